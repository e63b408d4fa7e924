"""Losses over row softmaxes, reduced to one scalar: the KL divergence between two row distributions
given as logits, kl_div(log_softmax(a, -1), softmax(b, -1), reduction), and cross entropy of logits
(N, C) against class indices (N,). Rows are split across blocks. KL walks each row in column chunks
(the maxima, the sums of exp, then the term q * (log q - log p) in fp32). Cross entropy reads every
logit once: rows that fit in UB are loaded whole (several a copy when 32-byte aligned), their max,
sum of exp and the target's logit taken from the tile; longer rows keep a running max and a rescaled
sum of exp per lane in one pass, the target's logit read as one element; the class indices come a
chunk of rows per copy. The blocks' partial sums meet in a GM workspace as in the DSL's loss/mse_loss
example (A.sync_all, block 0 adds them)."""
from __future__ import annotations

from kernelwright.agent.builtin.dslgen import decorator, doc, ident, kernel_name
from kernelwright.agent.builtin.graphview import FLOAT_DTYPES, Node, OpGraph, ref
from kernelwright.agent.builtin.patterns import Emitted
from kernelwright.agent.builtin.patterns.common import cross_block_total, one_dim

KNOWN = {"kl_div", "KLDivLoss", "log_softmax", "softmax", "LogSoftmax", "Softmax", "cross_entropy", "CrossEntropyLoss"}
SCALE = {"batchmean": "1.0 / {a}.shape[0]", "sum": "1.0", "mean": "1.0 / {a}.numel"}

SOURCE = '''
@A.tiling
def tiling({a}, {b}, hw):
    assert {a}.numel == {b}.numel and {a}.shape[-1] == {b}.shape[-1], "both inputs have one shape"
    cols = {a}.shape[-1]
    rows = {a}.numel // cols
    nb = max(1, min(hw.vector_cores, rows))
    # UB per chunk element: two input tiles (2 slots each) + wa, wb, acca, accb, tot (fp32)
    per_elem = 4 * {a}.dtype.size + 20
    chunk = A.align_down((hw.ub_bytes - 16384) // per_elem, 64)       # 16 KiB left for the reduce scratch
    chunk = min(chunk, A.align_up(cols, 64))
    return A.Tiling(block_dim=nb, rows=rows, cols=cols, chunk=chunk, lanes=min(chunk, cols), slots=8 * nb,
                    scale={scale})


@A.shapes
def shapes({a}, {b}):
    return {{"{y}": ()}}


{decorator}
def {kname}({a}, {b}, {y}, t):
    partials = A.workspace(A.f32, t.slots)
    ain = A.ub({a}.dtype, t.chunk)
    bin = A.ub({b}.dtype, t.chunk)
    wa = A.ub(A.f32, t.chunk)
    wb = A.ub(A.f32, t.chunk)
    acca = A.ub(A.f32, t.chunk)
    accb = A.ub(A.f32, t.chunk)
    tot = A.ub(A.f32, t.chunk)
    part = A.ub(A.f32, 8)
    allp = A.ub(A.f32, t.slots)
    yout = A.ub({y}.dtype, 16)
    A.Duplicate(tot, 0.0, t.chunk)
    r0, r1 = A.block_span(t.rows)
    for r in A.range(r0, r1):
        base = r * t.cols
        A.Duplicate(acca, -A.inf, t.chunk)
        A.Duplicate(accb, -A.inf, t.chunk)
        for c, n in A.tiles(0, t.cols, t.chunk, stages=2):
            A.load(ain, {a}[base + c:], n)
            A.load(bin, {b}[base + c:], n)
            A.Cast(wa, ain, "auto", n)
            A.Cast(wb, bin, "auto", n)
            A.Max(acca, acca, wa, n)
            A.Max(accb, accb, wb, n)
        ma = A.reduce_max(acca, t.lanes)
        mb = A.reduce_max(accb, t.lanes)
        A.Duplicate(acca, 0.0, t.chunk)
        A.Duplicate(accb, 0.0, t.chunk)
        for c, n in A.tiles(0, t.cols, t.chunk, stages=2):
            A.load(ain, {a}[base + c:], n)
            A.load(bin, {b}[base + c:], n)
            A.Cast(wa, ain, "auto", n)
            A.Cast(wb, bin, "auto", n)
            A.Adds(wa, wa, -ma, n)
            A.Exp(wa, wa, n)
            A.Add(acca, acca, wa, n)
            A.Adds(wb, wb, -mb, n)
            A.Exp(wb, wb, n)
            A.Add(accb, accb, wb, n)
        sa = A.reduce_sum(acca, t.lanes)
        sb = A.reduce_sum(accb, t.lanes)
        lsa = A.ln(sa)
        lsb = A.ln(sb)
        la = ma + lsa
        lb = mb + lsb
        for c, n in A.tiles(0, t.cols, t.chunk, stages=2):
            A.load(ain, {a}[base + c:], n)
            A.load(bin, {b}[base + c:], n)
            A.Cast(wa, ain, "auto", n)
            A.Cast(wb, bin, "auto", n)
            A.Adds(wa, wa, -la, n)          # log p = log_softmax(a)
            A.Adds(wb, wb, -lb, n)          # log q = log_softmax(b)
            A.Sub(wa, wb, wa, n)            # log q - log p
            A.Exp(wb, wb, n)                # q
            A.Mul(wa, wa, wb, n)
            A.Add(tot, tot, wa, n)
    mine = A.reduce_sum(tot, t.lanes)
    A.Duplicate(part, mine, 1)
'''


CROSS_ENTROPY = '''
@A.tiling
def tiling({x}, {k}, hw):
    assert {x}.ndim == 2 and {k}.ndim == 1 and {k}.shape[0] == {x}.shape[0], "logits (N, C) and class indices (N,)"
    cols = {x}.shape[-1]
    rows = {x}.shape[0]
    nb = max(1, min(hw.vector_cores, rows))
    per_block = A.ceil_div(rows, nb)
    kchunk = min(per_block, 1024)                                      # class indices loaded per copy
    room = hw.ub_bytes - 16384 - 2 * 8 * A.align_up(kchunk, 4)        # 16 KiB left for the reduce scratch
    # a row in UB, per element: the input tile (2 slots) + w, t1 (fp32) + ridx and the gather's offsets (i32);
    # per row three 8-lane slots; rows 32-byte aligned in both dtypes go R at a time
    per_elem = 2 * {x}.dtype.size + 16
    if cols * per_elem + 96 <= room:
        fits = 1
        R = min(per_block, room // (cols * per_elem + 96)) if cols % 16 == 0 else 1
        chunk = A.align_up(R * cols, 64)
        acc = 8
    else:
        fits = 0                                                       # streamed: running max and sum per lane
        R = 1
        chunk = min(A.align_down(room // (2 * {x}.dtype.size + 12), 64), A.align_up(cols, 64))
        acc = chunk
    return A.Tiling(block_dim=nb, rows=rows, cols=cols, fits=fits, R=R, chunk=chunk, acc=acc, kchunk=kchunk,
                    lanes=min(chunk, cols), slots=8 * nb, scale={scale})


@A.shapes
def shapes({x}, {k}):
    return {{"{y}": ()}}


@A.kernel(inputs={{"{x}": (A.f32, A.f16, A.bf16), "{k}": (A.i64, A.i64, A.i64)}}, outputs={{"{y}": "{x}"}})
def {kname}({x}, {k}, {y}, t):
    partials = A.workspace(A.f32, t.slots)
    xin = A.ub({x}.dtype, t.chunk)
    xone = A.ub({x}.dtype, A.elems_per_block({x}.dtype))      # streamed: the target's logit
    kall = A.ub({k}.dtype, t.kchunk)                          # the class indices of up to kchunk rows
    w = A.ub(A.f32, t.chunk)
    acc = A.ub(A.f32, t.acc)
    am = A.ub(A.f32, t.acc)
    t1 = A.ub(A.f32, t.chunk if t.fits == 1 else 8)
    ridx = A.ub(A.i32, t.chunk if t.fits == 1 else 8)         # element -> its row's slot
    mx = A.ub(A.f32, t.R * 8)                                 # per row (lane 0 of 8): max, sum of exp, loss
    se = A.ub(A.f32, t.R * 8)
    lacc = A.ub(A.f32, t.R * 8)
    part = A.ub(A.f32, 8)
    allp = A.ub(A.f32, t.slots)
    yout = A.ub({y}.dtype, 16)
    mine = 0.0
    if t.fits == 1:
        A.Duplicate(mx, 0.0, t.R * 8)                         # lanes 1..7 of a slot are never read as results
        A.Duplicate(se, 1.0, t.R * 8)
        A.Duplicate(lacc, 0.0, t.R * 8)
        for b in A.range(t.R):
            A.Duplicate(ridx[b * t.cols:], b * 8, t.cols)
    r0, r1 = A.block_span(t.rows)
    for q, mq in A.tiles(r0, r1, t.kchunk):
        A.load(kall, {k}[q:], mq)
        if t.fits == 1:
            # each row read once and no scalar wait on a vector result, so the next rows load meanwhile
            for r, m in A.tiles(q, q + mq, t.R, stages=2):
                A.load(xin, {x}[r * t.cols:], m * t.cols)
                for b in A.range(m):                          # the targets' logits, from the loaded tile
                    cls = A.get(kall, r - q + b)
                    picked = A.get(xin, b * t.cols + cls)
                    mine = mine - picked
                A.Cast(w, xin, "auto", m * t.cols)
                for b in A.range(m):
                    A.ReduceMax(mx[b * 8:], w[b * t.cols:], t.cols)
                A.gather(t1, mx, ridx, m * t.cols, m * 8)      # each row's max over its row
                A.Sub(w, w, t1, m * t.cols)
                A.Exp(w, w, m * t.cols)
                for b in A.range(m):
                    A.ReduceSum(se[b * 8:], w[b * t.cols:], t.cols)
                A.Ln(t1, se, m * 8)
                A.Add(lacc, lacc, t1, m * 8)                  # logsumexp = max + ln(sum of exp(x - max))
                A.Add(lacc, lacc, mx, m * 8)
        else:
            for r in A.range(q, q + mq):
                base = r * t.cols
                A.Duplicate(am, -3.0e38, t.chunk)
                A.Duplicate(acc, 0.0, t.chunk)
                for c, n in A.tiles(0, t.cols, t.chunk, stages=2):
                    A.load(xin, {x}[base + c:], n)
                    A.Cast(w, xin, "auto", n)
                    A.Max(w, am, w, n)                          # w: the new running max; am: the old one
                    A.Sub(am, am, w, n)
                    A.Exp(am, am, n)
                    A.Mul(acc, acc, am, n)                      # the sum rescaled to the new max
                    A.Cast(am, xin, "auto", n)
                    A.Sub(am, am, w, n)
                    A.Exp(am, am, n)
                    A.Add(acc, acc, am, n)
                    A.copy(am, w, n)
                mr = A.reduce_max(am, t.lanes)
                A.Adds(am, am, -mr, t.lanes)
                A.Exp(am, am, t.lanes)
                A.Mul(acc, acc, am, t.lanes)
                s = A.reduce_sum(acc, t.lanes)
                ls = A.ln(s)
                cls = A.get(kall, r - q)
                A.load(xone, {x}[base + cls:], 1)
                picked = A.get(xone, 0)
                mine = mine + mr + ls - picked
    if t.fits == 1:
        for b in A.range(t.R):
            v = A.get(lacc, b * 8)
            mine = mine + v
    A.Duplicate(part, mine, 1)
'''


def _cross_entropy(g: OpGraph, name: str) -> Emitted | None:
    out = g.single_output()
    if out is None or out.op not in ("cross_entropy", "CrossEntropyLoss") or len(g.compute) != 1 or g.mutated:
        return None
    reduction = out.kwargs.get("reduction", out.module.get("reduction", "mean"))
    if reduction not in ("mean", "sum") or len(out.args) < 2 or any(
            out.kwargs.get(k, out.module.get(k)) not in (None, 0, 0.0, -100)
            for k in ("weight", "label_smoothing", "ignore_index")):
        return None
    x, k = (g.node(ref(v)) if ref(v) else None for v in out.args[:2])
    if x is None or k is None or x.kind != "placeholder" or k.kind != "placeholder" or x.dtype not in FLOAT_DTYPES \
            or k.dtype != "int64" or x.shape is None or len(x.shape) != 2 or k.shape != x.shape[:1]:
        return None
    taken: set[str] = {"partials", "xin", "xone", "kall", "w", "acc", "am", "part", "allp", "yout", "mine", "base", "m",
                       "s", "ls", "cls", "picked", "nb", "total", "c", "r", "r0", "r1", "q", "mq", "b", "o", "mx", "n", "mr",
                       "t1", "ridx", "se", "lacc", "v",
                       "cols", "rows", "chunk", "per_elem", "per_block", "kchunk", "room", "fits", "R"}
    xn, kn = ident(x.name, taken), ident(k.name, taken)
    y = ident("y", taken)
    scale = f"1.0 / {xn}.shape[0]" if reduction == "mean" else "1.0"
    source = doc(f"{name}: cross entropy of logits {xn} {x.shape} against class indices {kn}, {reduction}: per row "
                 "logsumexp minus the target's logit, rows across blocks, partial sums through a GM workspace (written "
                 "by the builtin writer).") + CROSS_ENTROPY.format(x=xn, k=kn, y=y, kname=kernel_name(name), scale=scale) \
        + cross_block_total("acc", y)
    return Emitted("loss", f"cross entropy of {x.shape} logits against class indices, {reduction}", source)


def _row_softmax(g: OpGraph, v, kind: str) -> Node | None:
    """The input a value is `kind` (softmax or log_softmax) of, over the last axis."""
    name = ref(v)
    if name is None:
        return None
    n = g.node(name)
    op = {"Softmax": "softmax", "LogSoftmax": "log_softmax"}.get(n.op, n.op)
    src = ref(n.args[0]) if n.args else None
    if op != kind or src is None or n.kwargs.get("dtype") is not None:
        return None
    x = g.node(src)
    if x.kind != "placeholder" or x.shape is None or one_dim(n.arg(1, "dim"), len(x.shape)) != len(x.shape) - 1:
        return None
    return x


def match(g: OpGraph, name: str) -> Emitted | None:
    return _kl_div(g, name) or _cross_entropy(g, name)


def _kl_div(g: OpGraph, name: str) -> Emitted | None:
    out = g.single_output()
    if out is None or out.op not in ("kl_div", "KLDivLoss") or g.scalar_inputs or g.mutated or len(g.compute) != 3:
        return None
    reduction = out.kwargs.get("reduction", out.module.get("reduction", "mean"))
    if reduction not in SCALE or out.kwargs.get("log_target") or out.module.get("log_target") or len(out.args) < 2:
        return None
    a, b = _row_softmax(g, out.args[0], "log_softmax"), _row_softmax(g, out.args[1], "softmax")
    if a is None or b is None or a.name == b.name or a.shape != b.shape or a.dtype != b.dtype \
            or a.dtype not in FLOAT_DTYPES or not a.shape:
        return None
    taken: set[str] = {"ain", "bin", "wa", "wb", "acca", "accb", "tot", "part", "allp", "yout", "partials", "base",
                       "ma", "mb", "sa", "sb", "lsa", "lsb", "la", "lb", "mine", "total", "nb", "c", "r", "r0", "r1",
                       "cols", "rows", "chunk", "per_elem"}
    an, bn = ident(a.name, taken), ident(b.name, taken)
    y = ident("y", taken)
    source = doc(f"{name}: kl_div(log_softmax({an}), softmax({bn})) over the last axis, {reduction}: rows across "
                 "blocks in column chunks, fp32 math, partial sums through a GM workspace (written by the builtin "
                 "writer).") + SOURCE.format(a=an, b=bn, y=y, kname=kernel_name(name), scale=SCALE[reduction].format(a=an),
                                             decorator=decorator([an, bn], {y: an})) + cross_block_total("tot", y)
    return Emitted("loss", f"kl_div of log_softmax({an}) and softmax({bn}) over the last axis, {reduction}", source)
