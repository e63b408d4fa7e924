"""Row softmax and log-softmax over the last axis, in fp32 for every input dtype, reading x from GM
once whenever a row fits in the Unified Buffer: (1) rows split across blocks, each row loaded whole;
(2) fewer rows than cores and rows too long for one buffer: each row split over several blocks, each
part held in UB while the blocks trade their part's max and sum of exp(x - max) through a workspace
(one SyncAll), then scale their part; (3) otherwise each row is walked in column chunks twice: a
running max and a running sum of exp(x - max) per lane in one pass (the sum rescaled when the max
grows), then the output. An elementwise chain on x before the softmax (`softmax(x / T)`,
`softmax(x * s + b)`) is recomputed on each chunk it loads."""
from __future__ import annotations

from kernelwright.agent.builtin.chain import ChainCompiler, Unsupported, is_elementwise
from kernelwright.agent.builtin.dslgen import decorator, doc, ident, indent, kernel_name
from kernelwright.agent.builtin.graphview import FLOAT_DTYPES, OpGraph, ref
from kernelwright.agent.builtin.patterns import Emitted

KNOWN = {"softmax", "log_softmax", "Softmax", "LogSoftmax"}

TILING = '''@A.tiling
def tiling({x}, hw):
    cols = {x}.shape[-1]
    rows = {x}.numel // cols
    cores = hw.vector_cores
    # UB per element: the input and output tiles (2 slots each) + w and tmp (fp32){more}; streaming adds
    # the running max and sum (fp32)
    per_elem = 4 * {x}.dtype.size + 8{extra}
    room = (hw.ub_bytes - 16384) // per_elem
    split = 1
    if cols <= room:
        mode = 1                                         # a row in UB: one read
        chunk = A.align_up(cols, 64)
        nb = max(1, min(cores, rows))
    elif rows * 2 <= cores and A.align_up(A.ceil_div(cols, cores // rows), 64) <= room:
        mode = 2                                         # a row split over blocks, each part in UB: one read
        chunk = A.align_up(A.ceil_div(cols, cores // rows), 64)
        split = A.ceil_div(cols, chunk)
        nb = rows * split
    else:
        mode = 3                                         # streamed: running max and sum in one pass, then y
        chunk = min(A.align_down((hw.ub_bytes - 16384) // (per_elem + 8), 64), A.align_up(cols, 64))
        nb = max(1, min(cores, rows))
    return A.Tiling(block_dim=nb, rows=rows, cols=cols, chunk=chunk, lanes=min(chunk, cols), mode=mode, split=split,
                    schunk=chunk if mode == 3 else 8, slots=8 * nb, pslots=8 * split)
'''

KERNEL = '''def {kname}({x}, {y}, t):
    pmax = A.workspace(A.f32, t.slots)                  # mode 2: each block's max and sum, 8 lanes apart
    psum = A.workspace(A.f32, t.slots)
    xin = A.ub({x}.dtype, t.chunk)
    yout = A.ub({y}.dtype, t.chunk)
    w = A.ub(A.f32, t.chunk)
    tmp = A.ub(A.f32, t.chunk)
    am = A.ub(A.f32, t.schunk)
    asum = A.ub(A.f32, t.schunk)
    pm = A.ub(A.f32, 8)
    ps = A.ub(A.f32, 8)
    allm = A.ub(A.f32, t.pslots)
    alls = A.ub(A.f32, t.pslots)
{decls}    if t.mode == 1:
        r0, r1 = A.block_span(t.rows)
        for r in A.range(r0, r1, stages=2):
            n = t.cols
            A.load(xin, {x}[r * t.cols:], n)
            A.Cast(w, xin, "auto", n)
{prefix}
            m = A.reduce_max(w, n)
            A.Adds(w, w, -m, n)
            A.Exp(tmp, w, n)
            s = A.reduce_sum(tmp, n)
{row_out}
            A.store({y}[r * t.cols:], yout, n)
    elif t.mode == 2:
        b = A.block_idx()
        r = b // t.split
        c0 = b % t.split * t.chunk
        n = min(t.chunk, t.cols - c0)
        A.load(xin, {x}[r * t.cols + c0:], n)
        A.Cast(w, xin, "auto", n)
{prefix2}
        m = A.reduce_max(w, n)
        A.Adds(w, w, -m, n)
        A.Exp(tmp, w, n)
        s = A.reduce_sum(tmp, n)
        A.Duplicate(pm, m, 8)
        A.store(pmax[b * 8:], pm, 1)
        A.Duplicate(ps, s, 8)
        A.store(psum[b * 8:], ps, 1)
        A.sync_all()
        A.load(allm, pmax[r * t.split * 8:], 1, rows=t.split, src_stride=8, dst_stride=8, pad=0.0)
        A.load(alls, psum[r * t.split * 8:], 1, rows=t.split, src_stride=8, dst_stride=8, pad=0.0)
        gm = m
        for p in A.range(t.split):
            v = A.get(allm, p * 8)
            gm = max(gm, v)
        tot = 0.0
        for p in A.range(t.split):
            v = A.get(allm, p * 8)
            sp = A.get(alls, p * 8)
            e = A.exp(v - gm)
            tot = tot + sp * e
{part_out}
        A.store({y}[r * t.cols + c0:], yout, n)
    else:
        r0, r1 = A.block_span(t.rows)
        for r in A.range(r0, r1):
            base = r * t.cols
            A.Duplicate(am, -3.0e38, t.chunk)
            A.Duplicate(asum, 0.0, t.chunk)
            for c, n in A.tiles(0, t.cols, t.chunk, stages=2):
                A.load(xin, {x}[base + c:], n)
                A.Cast(w, xin, "auto", n)
{prefix3}
                A.Max(tmp, am, w, n)                    # each lane's running max and its sum of exp(x - max)
                A.Sub(am, am, tmp, n)
                A.Exp(am, am, n)
                A.Mul(asum, asum, am, n)
                A.Sub(w, w, tmp, n)
                A.Exp(w, w, n)
                A.Add(asum, asum, w, n)
                A.copy(am, tmp, n)
            m = A.reduce_max(am, t.lanes)
            A.Adds(am, am, -m, t.lanes)
            A.Exp(am, am, t.lanes)
            A.Mul(asum, asum, am, t.lanes)
            s = A.reduce_sum(asum, t.lanes)
{finish}
            for c, n in A.tiles(0, t.cols, t.chunk, stages=2):
                A.load(xin, {x}[base + c:], n)
                A.Cast(w, xin, "auto", n)
{prefix3}
{normalise}
                A.Cast(yout, w, "auto", n)
                A.store({y}[base + c:], yout, n)
'''
# (row output from w = x - max and tmp = exp(w), s = its sum; part output with the global max gm and sum tot;
#  streaming finish and normalise), per kind
SOFTMAX = ("            inv = 1.0 / s\n            A.Muls(w, tmp, inv, n)\n            A.Cast(yout, w, \"auto\", n)",
           "        f = A.exp(m - gm)\n        scale = f / tot\n        A.Muls(w, tmp, scale, n)\n"
           "        A.Cast(yout, w, \"auto\", n)",
           "            inv = 1.0 / s",
           "                A.Adds(w, w, -m, n)\n                A.Exp(w, w, n)\n                A.Muls(w, w, inv, n)")
LOG_SOFTMAX = ("            ls = A.ln(s)\n            A.Adds(w, w, -ls, n)\n            A.Cast(yout, w, \"auto\", n)",
               "        lt = A.ln(tot)\n        A.Adds(w, w, m - gm - lt, n)\n        A.Cast(yout, w, \"auto\", n)",
               "            ls = A.ln(s)\n            shift = m + ls",
               "                A.Adds(w, w, -shift, n)")


def _prefix(g: OpGraph, x, node) -> tuple[list[str], list[str], bool] | None:
    """The elementwise chain from x to the softmax's input as instructions that leave it in `w`
    (in place over the chunk), with the scratch tiles they need; None when it is not one."""
    chain = [n for n in g.compute if n.name != node.name]
    src = ref(node.args[0])
    if not chain:
        return ([], [], False) if src == x.name else None
    if src != chain[-1].name or not all(is_elementwise(g, n) for n in chain) or \
            any(n.shape is not None and n.shape != x.shape for n in chain):
        return None
    comp = ChainCompiler(g, prefix="p")
    comp.tiles.append("w")                       # the leaf: the chunk in fp32, already in w
    try:
        tile = comp.compile(chain, {x.name: "w"}, keep={src})[src]
    except Unsupported:
        return None
    lines = comp.lines + ([] if tile == "w" else [f"A.copy(w, {tile}, n)"])
    return lines, [t for t in comp.tiles if t != "w"], comp.advanced


def match(g: OpGraph, name: str) -> Emitted | None:
    out = g.single_output()
    if out is None or not g.compute or len(g.tensor_inputs) != 1 or g.scalar_inputs or g.mutated:
        return None
    node, x = g.compute[-1], g.tensor_inputs[0]
    kind = {"Softmax": "softmax", "LogSoftmax": "log_softmax"}.get(node.op, node.op)
    if kind not in ("softmax", "log_softmax") or out.name != node.name or x.dtype not in FLOAT_DTYPES:
        return None
    dim = node.arg(1, "dim")
    if dim is None or dim not in (-1, len(x.shape) - 1) or node.kwargs.get("dtype") is not None:
        return None
    prefix = _prefix(g, x, node)
    if prefix is None:
        return None
    lines, tiles, advanced = prefix
    taken: set[str] = set()
    xn, yn = ident(x.name, taken), ident("y", taken)
    row_out, part_out, finish, normalise = SOFTMAX if kind == "softmax" else LOG_SOFTMAX
    extra = (f" + {4 * len(tiles) + (8 if advanced else 0)}" if tiles or advanced else "")
    more = f" + {len(tiles)} tile(s) for the chain before it" if tiles else ""
    ops = ", ".join(n.op for n in g.compute[:-1])
    what = f"{kind} of elementwise {ops}" if ops else kind
    source = (doc(f"{name}: {what} over the last axis, fp32 math; x read once when a row (or "
                  "its part on each of several blocks) fits in UB, else twice (written by the builtin writer).") + "\n\n" + TILING.format(x=xn, extra=extra, more=more) + "\n\n" +
              decorator([xn], {yn: xn}) + "\n" +
              KERNEL.format(kname=kernel_name(name), x=xn, y=yn, finish=finish, normalise=normalise,
                            row_out=row_out, part_out=part_out,
                            decls=indent([f"{t} = A.ub(A.f32, t.chunk)" for t in tiles], 1) + ("\n" if tiles else ""),
                            prefix=indent(lines, 3), prefix2=indent(lines, 2), prefix3=indent(lines, 4)))
    source = "\n".join(line for line in source.split("\n") if line.strip() or not line) + "\n"
    return Emitted("softmax", f"{what} over the last axis of a {x.shape} tensor", source)
