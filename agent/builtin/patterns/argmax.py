"""argmax / argmin (keepdim or not), the first index of the largest (smallest) value as torch; the index
is stored as int64. Over the last axis: rows split across blocks, each row scanned element by element
with scalar reads (slow per element, but exact: no vector instruction returns an index in the DSL).
Over another axis: one lane per inner position, a running best and its index in fp32 tiles updated row
by row with vector instructions (a 0/1 gain from the saturated difference)."""
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


MIDDLE = '''
@A.tiling
def tiling({x}, hw):
    d = {dim}
    R = {x}.shape[d]
    inner = A.prod({x}.shape[d + 1:])
    outer = {x}.numel // (R * inner)
    assert R < 16777216, "indices stay exact in fp32"
    # UB per chunk element: two input tiles (2 slots) + 4 fp32 tiles + the i64 result (2 slots)
    chunk = A.align_down((hw.ub_bytes - 16384) // (4 * {x}.dtype.size + 32), 64)
    chunk = min(chunk, A.align_up(inner, 64))
    pieces = A.ceil_div(inner, chunk)
    nb = max(1, min(hw.vector_cores, outer * pieces))
    return A.Tiling(block_dim=nb, outer=outer, R=R, inner=inner, chunk=chunk, pieces=pieces)


@A.shapes
def shapes({x}):
    return {{"{y}": {x}.shape[:{dim}]{keep}{x}.shape[{dim} + 1:]}}


@A.kernel(inputs={{"{x}": (A.f32, A.f16, A.bf16)}}, outputs={{"{y}": (A.i64, A.i64, A.i64)}})
def {kname}({x}, {y}, t):
    xin = A.ub({x}.dtype, t.chunk)
    first = A.ub({x}.dtype, t.chunk)
    w = A.ub(A.f32, t.chunk)
    best = A.ub(A.f32, t.chunk)
    at = A.ub(A.f32, t.chunk)
    gain = A.ub(A.f32, t.chunk)
    yout = A.ub(A.i64, t.chunk)
    u0, u1 = A.block_span(t.outer * t.pieces)
    for u in A.range(u0, u1):
        o = u // t.pieces
        c = u % t.pieces * t.chunk
        n = min(t.chunk, t.inner - c)
        A.load(first, {x}[o * t.R * t.inner + c:], n)
        A.Cast(best, first, "auto", n)
        A.Duplicate(at, 0.0, n)
        for r in A.range(1, t.R, stages=2):
            A.load(xin, {x}[(o * t.R + r) * t.inner + c:], n)
            A.Cast(w, xin, "auto", n)
            # gain = 1 where the row is strictly {better} (a later equal value keeps the first index), else 0:
            # the difference scaled by 2^200 saturates to 1 for any positive float, clamps to 0 otherwise
            A.Sub(gain, {diff}, n)
            A.Muls(gain, gain, 1.2676506002282294e+30, n)
            A.Muls(gain, gain, 1.2676506002282294e+30, n)
            A.Maxs(gain, gain, 0.0, n)
            A.Mins(gain, gain, 1.0, n)
            A.{keep_op}(best, best, w, n)
            A.Muls(w, at, -1.0, n)
            A.Adds(w, w, float(r), n)
            A.Mul(w, w, gain, n)
            A.Add(at, at, w, n)
        A.Cast(yout, at, "round", n)
        A.store({y}[o * t.inner + c:], yout, n)
'''


def match(g: OpGraph, name: str) -> Emitted | None:
    x = one_float_input(g)
    nodes = work(g)
    if x is None or len(nodes) != 1 or nodes[0].op not in KNOWN or not applied_to(nodes[0], x) or not x.shape:
        return None
    n = nodes[0]
    dim = one_dim(n.arg(1, "dim"), len(x.shape))
    if dim is None or not returns(g, n):
        return None
    keepdim = bool(n.arg(2, "keepdim", False))
    taken: set[str] = {"xin", "w", "yout", "base", "best", "at", "gain", "first", "v", "c", "n", "i", "r", "r0", "r1", "cols", "rows",
                       "nb", "chunk", "b", "u", "u0", "u1", "o", "d", "R", "inner", "outer", "pieces"}
    xn, yn = ident(x.name, taken), ident("y", taken)
    largest = n.op == "argmax"
    if dim != len(x.shape) - 1:       # a middle axis: one lane per inner position, scanned along the axis
        source = doc(f"{name}: {n.op} over axis {dim} of {xn}, the first index of the "
                     f"{'largest' if largest else 'smallest'} value per position: a running best and its index in fp32 "
                     "tiles, row by row "
                     "(written by the builtin writer).") + \
            MIDDLE.format(x=xn, y=yn, kname=kernel_name(name), dim=dim, keep=" + (1,) + " if keepdim else " + ",
                          better="larger" if largest else "smaller", keep_op="Max" if largest else "Min",
                          diff="w, best" if largest else "best, w")
        return Emitted("index", f"{n.op} over axis {dim} of a {x.shape} tensor (keepdim={keepdim})", source)
    source = doc(f"{name}: {n.op} over the last axis of {xn}, the first index of the {'largest' if largest else 'smallest'}"
                 " value per row, by a scalar scan of each fp32 chunk (written by the builtin writer).") + \
        SOURCE.format(x=xn, y=yn, kname=kernel_name(name), keep=" + (1,)" if keepdim else "",
                      start="-A.inf" if largest else "A.inf", cmp=">" if largest else "<")
    return Emitted("index", f"{n.op} over the last axis of a {x.shape} tensor (keepdim={keepdim})", source)
