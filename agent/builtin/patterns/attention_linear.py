"""Linear attention (the kernel trick): out = phi(Q) (phi(K)^T V), phi an elementwise map (relu(x) + eps, elu + 1,
...) written as einsum("bkd,bkv->bdv", phi(K), V) and einsum("bqd,bdv->bqv", phi(Q), KV), any letters. A MIX kernel
in three phases separated by barriers:
  1. phi(Q) and phi(K) on the vector unit into workspaces (the map is written by the elementwise chain compiler);
  2. KV = phi(K)^T V per batch on the cube (A transposed): (d, v), the reduction over the keys on the cube;
  3. out = phi(Q) KV per batch on the cube straight to GM.
The vector work is per element of Q and K; both products reduce on the cube."""
from __future__ import annotations

from kernelwright.agent.builtin.chain import ChainCompiler, Unsupported
from kernelwright.agent.builtin.dslgen import decorator, doc, ident, indent, kernel_name
from kernelwright.agent.builtin.graphview import FLOAT_DTYPES, Node, OpGraph, ref
from kernelwright.agent.builtin.patterns import Emitted

KNOWN = {"einsum"}
LOCALS = {"qp", "kp", "kvw", "c1", "c2", "xin", "yout", "i", "bi", "m0", "n0", "lo", "hi", "lo2", "hi2", "lo3", "hi3",
          "off", "n", "w0"}


def _einsum(n: Node | None, kind: str) -> tuple[str, str] | None:
    """The operands of einsum "bkd,bkv->bdv" (kind kv: A^T B per batch) or "bqd,bdv->bqv" (kind out: A B)."""
    if n is None or n.op != "einsum" or len(n.args) != 3 or not isinstance(n.args[0], str):
        return None
    ins, _, out = n.args[0].replace(" ", "").partition("->")
    a, _, b = ins.partition(",")
    if not (len(a) == len(b) == len(out) == 3 and len(set(a + b + out)) == 4 and a[0] == b[0] == out[0]):
        return None
    ok = a[1] == b[1] and out[1:] == a[2] + b[2] if kind == "kv" else a[2] == b[1] and out[1:] == a[1] + b[2]
    return (ref(n.args[1]), ref(n.args[2])) if ok and ref(n.args[1]) and ref(n.args[2]) else None


def _chain(g: OpGraph, name: str) -> tuple[str, list[Node]] | None:
    """(the placeholder, the elementwise nodes from it to `name`) for a single-input elementwise chain."""
    nodes, cur = [], g.node(name)
    while cur.kind != "placeholder":
        srcs = [ref(a) for a in cur.args if ref(a)]
        if len(srcs) != 1 or any(ref(v) for v in cur.kwargs.values()):
            return None
        nodes.append(cur)
        cur = g.node(srcs[0])
    return cur.name, nodes[::-1]


def match(g: OpGraph, name: str) -> Emitted | None:
    out = g.single_output()
    top = _einsum(out, "out")
    kv = _einsum(g.node(top[1]), "kv") if top else None
    if kv is None or g.mutated:
        return None
    q = _chain(g, top[0])
    k = _chain(g, kv[0])
    v = g.node(kv[1])
    if q is None or k is None or v.kind != "placeholder" or q[0] == k[0]:
        return None
    xs = [g.node(q[0]), g.node(k[0]), v]
    if any(x.shape is None or len(x.shape) != 3 or x.dtype not in FLOAT_DTYPES for x in xs) \
            or len({x.dtype for x in xs}) != 1 or xs[0].shape[2] != xs[1].shape[2] or xs[1].shape[:2] != v.shape[:2]:
        return None
    work = {n.name for n in g.compute}
    if work != {n.name for n in q[1] + k[1]} | {out.name, top[1]}:
        return None
    try:
        phis = [_phi(g, c, prefix) for c, prefix in ((q, "wq"), (k, "wk"))]
    except Unsupported:
        return None
    return _emit([x.name for x in xs], phis, name)


def _phi(g: OpGraph, chain: tuple[str, list[Node]], prefix: str) -> tuple[list[str], list[str], str]:
    """(its fp32 tiles, the lines computing the map from tile `<prefix>0`, the result tile) of an elementwise
    chain."""
    comp = ChainCompiler(g, prefix=prefix)
    leaf = comp.new()
    out = comp.compile(chain[1], {chain[0]: leaf}, keep={chain[1][-1].name})[chain[1][-1].name]
    return comp.tiles, comp.lines, out


def _emit(names: list[str], phis, name: str) -> Emitted:
    taken = set(LOCALS)
    q, k, v = (ident(s, taken) for s in names)
    y = ident("y", taken)
    params = f"{q}, {k}, {v}"
    decls = [f"{w} = A.ub(A.f32, t.tile)" for tiles, _, _ in phis for w in tiles]
    phase = ""
    for src, dst, size, (tiles, lines, res) in ((q, "qp", "t.qsize", phis[0]), (k, "kp", "t.ksize", phis[1])):
        phase += f'''    lo, hi = A.block_span({size}, 32)
    for off, n in A.tiles(lo, hi, t.tile, stages=2):          # phi({src}) into a workspace
        A.load(xin, {src}[off:], n)
        A.Cast({tiles[0]}, xin, "auto", n)
{indent(lines, 2)}
        A.Cast(yout, {res}, "auto", n)
        A.store({dst}[off:], yout, n)
'''
    source = doc(f"{name}: linear attention phi(Q) (phi(K)^T V): phi on the vector unit, both products on the cube, "
                 "a MIX kernel (written by the builtin writer).") + f'''

@A.tiling
def tiling({params}, hw):
    B = {q}.shape[0]
    Lq = {q}.shape[1]
    Lk = {k}.shape[1]
    D = {q}.shape[2]
    Dv = {v}.shape[2]
    bm = min(128, D)
    bn = min(256, Dv)
    tn = A.ceil_div(Dv, bn)
    per2 = A.ceil_div(D, bm) * tn
    bq = min(128, Lq)
    per3 = A.ceil_div(Lq, bq) * tn
    return A.Tiling(block_dim=hw.vector_cores, B=B, Lq=Lq, Lk=Lk, D=D, Dv=Dv, bm=bm, bn=bn, tn=tn, per2=per2, bq=bq,
                    per3=per3, tile=2048, qsize=B * Lq * D, ksize=B * Lk * D, kvsize=B * D * Dv)


@A.shapes
def shapes({params}):
    return {{"{y}": ({q}.shape[0], {q}.shape[1], {v}.shape[2])}}


{decorator([q, k, v], {y: q})}
def {kernel_name(name)}({params}, {y}, t):
    qp = A.workspace({q}.dtype, t.qsize)           # phi(Q): (b, Lq, D)
    kp = A.workspace({q}.dtype, t.ksize)           # phi(K): (b, Lk, D)
    kvw = A.workspace({q}.dtype, t.kvsize)         # phi(K)^T V: (b, D, Dv)
    xin = A.ub({q}.dtype, t.tile)
    yout = A.ub({q}.dtype, t.tile)
{indent(decls, 1)}
    c1 = A.cube(kp, {v}, kvw, tile=(t.bm, t.bn, t.Lk), shape=(t.D, t.Dv, t.Lk), trans_a=True)
    c2 = A.cube(qp, kvw, {y}, tile=(t.bq, t.bn, t.D), shape=(t.Lq, t.Dv, t.D))
{phase}    A.sync_all()
    lo2, hi2 = A.block_span(t.B * t.per2)
    for i in A.range(lo2, hi2):                     # KV[b] = phi(K)[b]^T V[b]
        bi = i // t.per2
        m0 = i % t.per2 // t.tn * t.bm
        n0 = i % t.tn * t.bn
        A.matmul(c1, kvw[(bi * t.D + m0) * t.Dv + n0:], kp[bi * t.Lk * t.D + m0:], {v}[bi * t.Lk * t.Dv + n0:],
                 min(t.bm, t.D - m0), min(t.bn, t.Dv - n0), t.Lk)
    A.sync_all()
    lo3, hi3 = A.block_span(t.B * t.per3)
    for i in A.range(lo3, hi3):                     # out[b] = phi(Q)[b] KV[b]
        bi = i // t.per3
        m0 = i % t.per3 // t.tn * t.bq
        n0 = i % t.tn * t.bn
        A.matmul(c2, {y}[(bi * t.Lq + m0) * t.Dv + n0:], qp[(bi * t.Lq + m0) * t.D:], kvw[bi * t.D * t.Dv + n0:],
                 min(t.bq, t.Lq - m0), min(t.bn, t.Dv - n0), t.D)
'''
    return Emitted("attention", "linear attention: phi(Q), phi(K) on the vector unit, phi(K)^T V and phi(Q) KV on the "
                                "cube, MIX", source)
