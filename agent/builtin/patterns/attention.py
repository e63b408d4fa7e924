"""F.scaled_dot_product_attention(q, k, v) (no mask, not causal, default or given scale) on the cube unit, a MIX
kernel in two phases:
  1. per batch and block of bm query rows: S = scale * Q K^T on the cube, bn key columns at a time into the UB;
     the vector unit keeps each row's running max and sum of exp (online softmax: the chunk's exps are rescaled
     to the new max on the scalar unit, so any key length fits), then a second sweep recomputes each chunk and
     writes P = exp(S - max) / sum to a workspace;
  2. after a barrier: O = P V on the cube straight to GM (the reduction over the keys runs on the cube).
The vector work is per element of S, never per head-dimension step; both GEMMs reduce on the cube."""
from __future__ import annotations

from kernelwright.agent.builtin.dslgen import decorator, doc, ident, kernel_name
from kernelwright.agent.builtin.graphview import FLOAT_DTYPES, OpGraph, ref
from kernelwright.agent.builtin.patterns import Emitted

KNOWN = {"scaled_dot_product_attention"}
LOCALS = {"p", "acc", "pout", "mx", "sm", "s1", "s2", "i", "c", "r", "b_", "m0", "mn", "n0", "nn", "ld", "ls", "cm",
          "mo", "mw", "l_", "inv", "lo_", "hi_", "lo2", "hi2", "rt", "sc", "cs", "ex", "mrow"}


def match(g: OpGraph, name: str) -> Emitted | None:
    work = [n for n in g.compute if n.kind != "get_attr"]
    out = g.single_output()
    if len(work) != 1 or work[0].op != "scaled_dot_product_attention" or out is None or out.name != work[0].name:
        return None
    n = work[0]
    if n.arg(3, "attn_mask") is not None or n.arg(4, "dropout_p", 0.0) != 0.0 or n.arg(5, "is_causal", False) \
            or n.kwargs.get("enable_gqa", False):
        return None
    ops = [g.node(ref(a)) if ref(a) else None for a in n.args[:3]]
    if any(o is None or o.kind != "placeholder" or o.shape is None or o.dtype not in FLOAT_DTYPES or len(o.shape) < 2
           for o in ops):
        return None
    q, k, v = ops
    if not (q.dtype == k.dtype == v.dtype) or q.shape[:-2] != k.shape[:-2] or k.shape[:-2] != v.shape[:-2] \
            or q.shape[-1] != k.shape[-1] or k.shape[-2] != v.shape[-2]:
        return None
    scale = n.arg(6, "scale", None)
    if scale is not None and not isinstance(scale, (int, float)):
        return None
    return _emit(q.name, k.name, v.name, len(q.shape), scale, name)


def sweeps(qv: str, kv: str, kdim: str, pv: str, mask: str | None = None) -> str:
    """The kernel lines (two loops deep) that turn a block of mn query rows into P = softmax(S) in the
    workspace, S = sc * Q K^T by the cube unit `s1` (query rows at `qv`, key rows at `kv`, each `kdim` long, the
    block's P at `pv`): sweep 1 keeps each row's running max (mx) and sum of exp (sm), online; sweep 2
    recomputes each chunk and writes exp(S - max) / sum. `mask`, a bool mask at query row m0 and key column n0
    (True: not attended; rows t.mw apart), sets those scores to -inf in both sweeps (the block's mn rows of the
    chunk in one 2-d load into the bool tile `mrow`, rows t.bna apart); a chunk a row sees nothing of adds
    exp(-inf) = 0."""
    load = "" if mask is None else f"\n            A.load(mrow, {mask}, nn, rows=mn, src_stride=t.mw, dst_stride=t.bna)"
    masked = "" if mask is None else "\n                A.where(acc[r * ld:], mrow[r * t.bna:], -A.inf, acc[r * ld:], nn)"
    return f'''        A.Duplicate(mx, -3.0e38, t.bma)
        A.Duplicate(sm, 0.0, t.bma)
        for c in A.range(0, t.kt):                # sweep 1: each row's max and sum of exp, online
            n0 = c * t.bn
            nn = min(t.bn, t.Lk - n0)
            ld = A.align_up(nn, 8)
            A.Duplicate(acc, 0.0, mn * ld)
            A.matmul(s1, acc, {qv}, {kv}, mn, nn, {kdim})
            A.Muls(acc, acc, sc, mn * ld){load}
            for r in A.range(0, mn):{masked}
                cm = A.reduce_max(acc[r * ld:], nn)
                mo = A.get(mx, r)
                mw = max(mo, cm)
                A.Adds(acc[r * ld:], acc[r * ld:], -mw, nn)
                A.Exp(acc[r * ld:], acc[r * ld:], nn)
                cs = A.reduce_sum(acc[r * ld:], nn)
                l_ = A.get(sm, r)
                ex = A.exp(mo - mw)
                l_ = l_ * ex + cs
                A.set(sm, r, l_)
                A.set(mx, r, mw)
        for c in A.range(0, t.kt):                # sweep 2: P = exp(S - max) / sum into the workspace
            n0 = c * t.bn
            nn = min(t.bn, t.Lk - n0)
            ld = A.align_up(nn, 8)
            ls = A.align_up(nn, 16)
            A.Duplicate(acc, 0.0, mn * ld)
            A.matmul(s1, acc, {qv}, {kv}, mn, nn, {kdim})
            A.Muls(acc, acc, sc, mn * ld){load}
            for r in A.range(0, mn):{masked}
                mo = A.get(mx, r)
                inv = A.get(sm, r)
                inv = 1.0 / inv
                A.Adds(acc[r * ld:], acc[r * ld:], -mo, nn)
                A.Exp(acc[r * ld:], acc[r * ld:], nn)
                A.Muls(acc[r * ld:], acc[r * ld:], inv, nn)
                A.Cast(pout[r * ls:], acc[r * ld:], "auto", nn)
            A.store({pv}, pout, nn, rows=mn, src_stride=ls, dst_stride=t.Lk)
'''


def _emit(qn: str, kn: str, vn: str, rank: int, scale: float | None, name: str) -> Emitted:
    taken = set(LOCALS)
    q, k, v = (ident(s, taken) for s in (qn, kn, vn))
    y = ident("y", taken)
    params = f"{q}, {k}, {v}"
    out_shape = "(" + "".join(f"{q}.shape[{i}], " for i in range(rank - 1)) + f"{v}.shape[{rank - 1}])"
    # the default scale 1/sqrt(E) at the case's E (a shrunk case shrinks E), on the scalar unit
    scale_lines = ("rt = A.sqrt(float(t.E))\n    sc = 1.0 / rt" if scale is None else f"sc = {float(scale)!r}")
    source = doc(f"{name}: scaled_dot_product_attention as S = Q K^T (cube), online softmax (vector), O = P V (cube), "
                 "a MIX kernel (written by the builtin writer).") + f'''

@A.tiling
def tiling({params}, hw):
    E = {q}.shape[{q}.ndim - 1]
    Lq = {q}.shape[{q}.ndim - 2]
    Lk = {k}.shape[{k}.ndim - 2]
    Ev = {v}.shape[{v}.ndim - 1]
    batch = {q}.numel // (Lq * E)
    bn = min(256, Lk)
    # UB: the fp32 S block, the P block it is cast into (two slots), the row max and sum
    bm = max(1, min(64, Lq, (hw.ub_bytes - 8192) // (4 * 4 * A.align_up(bn, 16))))
    mt = A.ceil_div(Lq, bm)
    bn2 = min(256, Ev)
    bm2 = min(128, Lq)
    tn2 = A.ceil_div(Ev, bn2)
    per2 = A.ceil_div(Lq, bm2) * tn2
    return A.Tiling(block_dim=max(1, min(hw.vector_cores, max(batch * mt, batch * per2))), E=E, Lq=Lq, Lk=Lk, Ev=Ev,
                    bn=bn, bm=bm, bma=A.align_up(bm, 16), mt=mt, kt=A.ceil_div(Lk, bn), tiles=batch * mt, bn2=bn2,
                    bm2=bm2, tn2=tn2, per2=per2, tiles2=batch * per2, lanes=bm * A.align_up(bn, 16),
                    psize=batch * Lq * Lk)


@A.shapes
def shapes({params}):
    return {{"{y}": {out_shape}}}


{decorator([q, k, v], {y: q})}
def {kernel_name(name)}({params}, {y}, t):
    p = A.workspace({q}.dtype, t.psize)            # P = softmax(S), the A operand of the second GEMM
    acc = A.ub(A.f32, t.lanes)
    pout = A.ub({q}.dtype, t.lanes)
    mx = A.ub(A.f32, t.bma)                       # running max of each row
    sm = A.ub(A.f32, t.bma)                       # running sum of exp(S - max) of each row
    s1 = A.cube({q}, {k}, acc, tile=(t.bm, t.bn, t.E), shape=(t.Lq, t.Lk, t.E), trans_b=True)
    s2 = A.cube(p, {v}, {y}, tile=(t.bm2, t.bn2, t.Lk), shape=(t.Lq, t.Ev, t.Lk))
    {scale_lines}
    lo_, hi_ = A.block_span(t.tiles)
    for i in A.range(lo_, hi_):                   # i = b * mt + mi
        b_ = i // t.mt
        m0 = i % t.mt * t.bm
        mn = min(t.bm, t.Lq - m0)
{sweeps(f"{q}[(b_ * t.Lq + m0) * t.E:]", f"{k}[(b_ * t.Lk + n0) * t.E:]", "t.E", "p[(b_ * t.Lq + m0) * t.Lk + n0:]")}    A.sync_all()
    lo2, hi2 = A.block_span(t.tiles2)
    for i in A.range(lo2, hi2):                   # O = P V, straight to GM
        b_ = i // t.per2
        m0 = i % t.per2 // t.tn2 * t.bm2
        n0 = i % t.tn2 * t.bn2
        mn = min(t.bm2, t.Lq - m0)
        nn = min(t.bn2, t.Ev - n0)
        A.matmul(s2, {y}[(b_ * t.Lq + m0) * t.Ev + n0:], p[(b_ * t.Lq + m0) * t.Lk:], {v}[b_ * t.Lk * t.Ev + n0:], mn, nn, t.Lk)
'''
    return Emitted("attention", "scaled dot-product attention: Q K^T and P V on the cube, online softmax on the vector "
                                "unit, MIX", source)


