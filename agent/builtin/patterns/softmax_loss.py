"""KL divergence between two row distributions given as logits: kl_div(log_softmax(a, -1),
softmax(b, -1), reduction) reduced to one scalar. Rows are split across blocks; each row is walked
in column chunks three times (the maxima, the sums of exp, then the term q * (log q - log p)
accumulated in fp32), and the blocks' partial sums meet in a GM workspace as in the DSL's
loss/mse_loss example (A.sync_all, block 0 adds them)."""
from __future__ import annotations

from kernelwright.agent.builtin.dslgen import decorator, doc, ident, kernel_name
from kernelwright.agent.builtin.graphview import FLOAT_DTYPES, Node, OpGraph, ref
from kernelwright.agent.builtin.patterns import Emitted
from kernelwright.agent.builtin.patterns.common import one_dim

KNOWN = {"kl_div", "KLDivLoss", "log_softmax", "softmax", "LogSoftmax", "Softmax"}
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
    A.store(partials[A.block_idx() * 8:], part, 1)
    A.sync_all()
    if A.block_idx() == 0:
        nb = A.block_num()
        A.load(allp, partials, 1, rows=nb, src_stride=8, dst_stride=8, pad=0.0)
        total = A.reduce_sum(allp, 8 * nb)
        A.Duplicate(tot, total * t.scale, 1)
        A.Cast(yout, tot, "auto", 1)
        A.store({y}, yout, 1)
'''


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
                                             decorator=decorator([an, bn], {y: an}))
    return Emitted("loss", f"kl_div of log_softmax({an}) and softmax({bn}) over the last axis, {reduction}", source)
