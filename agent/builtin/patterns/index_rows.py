"""x.index_copy(0, idx, src) and x.index_add(0, idx, src): rows of src written (or added) into a copy of x
at the rows idx names. The blocks split the columns, so every block owns its slice of every row: it
copies x to y for its columns, then walks the indices in order (a repeated index: the last copy wins,
additions accumulate), each read on the scalar unit and checked against x's rows, and stores its slice
of src's row there (atomic add for index_add). Like the DSL's embedding example. x[idx] = value is the
same copy, also written into x. torch documents index_copy with repeated indices as nondeterministic:
on the CPU its threads split the indices (measured, 2 threads: [8192, 1024] with 2048 indices is not
last-wins, while x[idx] = value at [10000, 1024] is), so a repeated index can differ from the reference."""
from __future__ import annotations

from kernelwright.agent.builtin.dslgen import FLOATS, doc, ident, kernel_name
from kernelwright.agent.builtin.graphview import FLOAT_DTYPES, OpGraph, ref
from kernelwright.agent.builtin.patterns import Emitted
from kernelwright.agent.builtin.patterns.common import returns, work

KNOWN = {"index_copy", "index_add", "setitem"}

SOURCE = '''
@A.tiling
def tiling({x}, {idx}, {src}, hw):
    V = {x}.shape[0]
    D = {x}.numel // V
    n = {idx}.numel
    assert {src}.numel == n * D, "one row of src per index"
    epb = A.elems_per_block({x}.dtype)
    nb = max(1, min(hw.vector_cores, A.ceil_div(D, epb)))
    cols = min(A.align_up(D, epb), 8192 // {x}.dtype.size)
    return A.Tiling(block_dim=nb, V=V, D=D, n=n, chunk=min(n, 1024), cols=cols, epb=epb)


@A.shapes
def shapes({x}, {idx}, {src}):
    return {{"{y}": {x}.shape}}


@A.kernel(inputs={{"{x}": {floats}, "{idx}": (A.i64,), "{src}": {floats}}}, outputs={{"{y}": "{x}"}})
def {kname}({x}, {idx}, {src}, {y}, t):
    ids = A.ub({idx}.dtype, t.chunk)
    rin = A.ub({x}.dtype, t.cols)
    rout = A.ub({y}.dtype, t.cols){inplace_decl}
    lo, hi = A.block_span(t.D, t.epb)
    for r in A.range(0, t.V):
        for c, w in A.tiles(lo, hi, t.cols, stages=2):
            A.load(rin, {x}[r * t.D + c:], w)
            A.copy(rout, rin, w)
            A.store({y}[r * t.D + c:], rout, w)
    for i0, m in A.tiles(0, t.n, t.chunk):
        A.load(ids, {idx}[i0:], m)
        for i in A.range(0, m):
            r = A.get(ids, i, bound=t.V)
            for c, w in A.tiles(lo, hi, t.cols, stages=2):
                A.load(rin, {src}[(i0 + i) * t.D + c:], w)
                A.copy(rout, rin, w)
                A.store({y}[r * t.D + c:], rout, w{atomic}){inplace}
'''
INPLACE = "\n                A.copy(rx, rin, w)\n                A.store({x}[r * t.D + c:], rx, w)       # x[idx] = value: x too"


def len_(g: OpGraph, name: str | None) -> int:
    """The length of a 1-D tensor value (-1 when it is not one)."""
    shape = g.node(name).shape if name else None
    return shape[0] if shape and len(shape) == 1 else -1


def match(g: OpGraph, name: str) -> Emitted | None:
    nodes = work(g)
    if len(nodes) != 1 or nodes[0].op not in KNOWN or g.scalar_inputs or not returns(g, nodes[0]):
        return None
    n = nodes[0]
    if n.op == "setitem":              # x[idx] = value with a 1-D index tensor: index_copy of rows (x is the result)
        x, idx, src = (ref(a) for a in n.args[:3])
        if None in (x, idx, src) or g.mutated != {x: n.name} \
                or g.node(src).shape != [len_(g, idx)] + (g.node(x).shape or [])[1:]:
            return None
    else:
        x, idx, src = ref(n.args[0]), ref(n.arg(2, "index")), ref(n.arg(3, "source"))
        if g.mutated or None in (x, idx, src) or n.arg(1, "dim") != 0 or n.kwargs.get("alpha", 1) != 1:
            return None
    xs, ids, ss = g.node(x), g.node(idx), g.node(src)
    if xs.kind != "placeholder" or ids.kind != "placeholder" or ss.kind != "placeholder" or xs.dtype not in FLOAT_DTYPES \
            or ss.dtype != xs.dtype or ids.dtype not in ("int64", "int32") or not xs.shape or len(ids.shape or [0, 0]) != 1:
        return None
    taken = {"ids", "rin", "rout", "rx", "lo", "hi", "r", "c", "w", "i0", "m", "i", "V", "D", "n", "nb", "cols", "epb"}
    xn, idn, sn, yn = (ident(v, taken) for v in (x, idx, src, "y"))
    add = n.op == "index_add"
    call = f"{xn}[{idn}] = {sn}" if n.op == "setitem" else f"{xn}.{n.op}(0, {idn}, {sn})"
    source = doc(f"{name}: {call}: a copy of {xn} with the rows {idn} names "
                 f"{'increased by' if add else 'replaced by'} the rows of {sn}; the blocks split the columns (written by the "
                 "builtin writer).") + SOURCE.format(x=xn, idx=idn, src=sn, y=yn, kname=kernel_name(name), floats=FLOATS,
                                                     atomic=', atomic="add"' if add else "",
                                                     inplace=INPLACE.format(x=xn) if n.op == "setitem" else "",
                                                     inplace_decl="\n    rx = A.ub({}.dtype, t.cols)".format(xn)
                                                     if n.op == "setitem" else "")
    return Emitted("index", f"{n.op} of rows along axis 0 of a {xs.shape} tensor", source)
