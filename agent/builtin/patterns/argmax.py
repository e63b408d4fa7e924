"""argmax / argmin over the last axis (keepdim or not): rows split across blocks; each row is loaded
in chunks, cast to fp32 and scanned element by element with scalar reads, keeping the first index of
the largest (smallest) value, as torch does; the index is stored as int64. Slow per element, but
exact (no vector instruction returns an index in the DSL)."""
from __future__ import annotations

from kernelwright.agent.builtin.dslgen import doc, ident, kernel_name
from kernelwright.agent.builtin.graphview import OpGraph
from kernelwright.agent.builtin.patterns import Emitted
from kernelwright.agent.builtin.patterns.common import applied_to, one_dim, one_float_input, returns, work

KNOWN = {"argmax", "argmin"}

SOURCE = '''
@A.tiling
def tiling({x}, hw):
    cols = {x}.shape[-1]
    rows = {x}.numel // cols
    nb = max(1, min(hw.vector_cores, rows))
    # UB per chunk element: the input tile (2 slots) + its fp32 copy
    chunk = A.align_down((hw.ub_bytes - 16384) // (2 * {x}.dtype.size + 4), 64)
    chunk = min(chunk, A.align_up(cols, 64))
    return A.Tiling(block_dim=nb, rows=rows, cols=cols, chunk=chunk)


@A.shapes
def shapes({x}):
    return {{"{y}": {x}.shape[:-1]{keep}}}


@A.kernel(inputs={{"{x}": (A.f32, A.f16, A.bf16)}}, outputs={{"{y}": (A.i64, A.i64, A.i64)}})
def {kname}({x}, {y}, t):
    xin = A.ub({x}.dtype, t.chunk)
    w = A.ub(A.f32, t.chunk)
    yout = A.ub(A.i64, 4)
    r0, r1 = A.block_span(t.rows)
    for r in A.range(r0, r1):
        base = r * t.cols
        best = {start}
        at = 0
        for c, n in A.tiles(0, t.cols, t.chunk):
            A.load(xin, {x}[base + c:], n)
            A.Cast(w, xin, "auto", n)
            for i in A.range(n):
                v = A.get(w, i)
                if v {cmp} best:
                    best = v
                    at = c + i
        A.set(yout, 0, at)
        A.store({y}[r:], yout, 1)
'''


def match(g: OpGraph, name: str) -> Emitted | None:
    x = one_float_input(g)
    nodes = work(g)
    if x is None or len(nodes) != 1 or nodes[0].op not in KNOWN or not applied_to(nodes[0], x) or not x.shape:
        return None
    n = nodes[0]
    if one_dim(n.arg(1, "dim"), len(x.shape)) != len(x.shape) - 1 or not returns(g, n):
        return None
    keepdim = bool(n.arg(2, "keepdim", False))
    taken: set[str] = {"xin", "w", "yout", "base", "best", "at", "v", "c", "n", "i", "r", "r0", "r1", "cols", "rows",
                       "nb", "chunk"}
    xn, yn = ident(x.name, taken), ident("y", taken)
    largest = n.op == "argmax"
    source = doc(f"{name}: {n.op} over the last axis of {xn}, the first index of the {'largest' if largest else 'smallest'}"
                 " value per row, by a scalar scan of each fp32 chunk (written by the builtin writer).") + \
        SOURCE.format(x=xn, y=yn, kname=kernel_name(name), keep=" + (1,)" if keepdim else "",
                      start="-A.inf" if largest else "A.inf", cmp=">" if largest else "<")
    return Emitted("index", f"{n.op} over the last axis of a {x.shape} tensor (keepdim={keepdim})", source)
