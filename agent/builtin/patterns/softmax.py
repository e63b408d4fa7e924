"""Row softmax and log-softmax over the last axis (the DSL's softmax example): rows split across
blocks, each row walked in column chunks three times — running max, running sum of exp(x - max),
then the normalised output — in fp32 for every input dtype. An elementwise chain on x before the
softmax (`softmax(x / T)`, `softmax(x * s + b)`) is recomputed on each chunk in every pass."""
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
    nb = max(1, min(hw.vector_cores, rows))
    # UB per chunk element: the input and output tiles (2 slots each) + w and acc (fp32){more}
    per_elem = 4 * {x}.dtype.size + 4 + 4{extra}
    chunk = A.align_down((hw.ub_bytes - 16384) // per_elem, 64)       # 16 KiB left for the reduce scratch
    chunk = min(chunk, A.align_up(cols, 64))
    return A.Tiling(block_dim=nb, rows=rows, cols=cols, chunk=chunk, lanes=min(chunk, cols))
'''

KERNEL = '''def {kname}({x}, {y}, t):
    xin = A.ub({x}.dtype, t.chunk)
    yout = A.ub({y}.dtype, t.chunk)
    w = A.ub(A.f32, t.chunk)
    acc = A.ub(A.f32, t.chunk)
{decls}    r0, r1 = A.block_span(t.rows)
    for r in A.range(r0, r1):
        base = r * t.cols
        A.Duplicate(acc, -A.inf, t.chunk)
        for c, n in A.tiles(0, t.cols, t.chunk, stages=2):
            A.load(xin, {x}[base + c:], n)
            A.Cast(w, xin, "auto", n)
{prefix}
            A.Max(acc, acc, w, n)
        m = A.reduce_max(acc, t.lanes)
        A.Duplicate(acc, 0.0, t.chunk)
        for c, n in A.tiles(0, t.cols, t.chunk, stages=2):
            A.load(xin, {x}[base + c:], n)
            A.Cast(w, xin, "auto", n)
{prefix}
            A.Adds(w, w, -m, n)
            A.Exp(w, w, n)
            A.Add(acc, acc, w, n)
        s = A.reduce_sum(acc, t.lanes)
{finish}
        for c, n in A.tiles(0, t.cols, t.chunk, stages=2):
            A.load(xin, {x}[base + c:], n)
            A.Cast(w, xin, "auto", n)
{prefix}
{normalise}
            A.Cast(yout, w, "auto", n)
            A.store({y}[base + c:], yout, n)
'''
SOFTMAX = ("        inv = 1.0 / s",
           "            A.Adds(w, w, -m, n)\n            A.Exp(w, w, n)\n            A.Muls(w, w, inv, n)")
LOG_SOFTMAX = ("        ls = A.ln(s)\n        shift = m + ls",
               "            A.Adds(w, w, -shift, n)")


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
    finish, normalise = SOFTMAX if kind == "softmax" else LOG_SOFTMAX
    extra = (f" + {4 * len(tiles) + (8 if advanced else 0)}" if tiles or advanced else "")
    more = f" + {len(tiles)} tile(s) for the chain before it" if tiles else ""
    ops = ", ".join(n.op for n in g.compute[:-1])
    what = f"{kind} of elementwise {ops}" if ops else kind
    source = (doc(f"{name}: {what} over the last axis, row by row in column chunks, fp32 math (written by the "
                  "builtin writer).") + "\n\n" + TILING.format(x=xn, extra=extra, more=more) + "\n\n" +
              decorator([xn], {yn: xn}) + "\n" +
              KERNEL.format(kname=kernel_name(name), x=xn, y=yn, finish=finish, normalise=normalise,
                            decls=indent([f"{t} = A.ub(A.f32, t.chunk)" for t in tiles], 1) + ("\n" if tiles else ""),
                            prefix=indent(lines, 3)))
    source = "\n".join(line for line in source.split("\n") if line.strip() or not line) + "\n"
    return Emitted("softmax", f"{what} over the last axis of a {x.shape} tensor", source)
