"""Attention written out by hand with separate q/k/v/out nn.Linear projections and einsum: Q = x W_q^T viewed as
(b, L, H, dh), K and V with H_kv heads (view + repeat_interleave over the head axis: grouped-query; unsqueeze(2),
one head broadcast: multi-query; H_kv = H: multi-head), S = einsum(Q, K) / sqrt(dh), softmax over the keys,
O = einsum(P, V) reshaped to (b, L, E), y = O W_o^T + b_o. The head map is the only difference between the
variants: query head h reads K/V head h // G, G = H / H_kv. A MIX kernel in four phases (barriers between):
  1. projections on the cube: Q per head into (b, h, Lq, dh), K per kv head into (b, h_kv, Lk, dh), V into
     (b, Lk, E) with kv head h // G at query head h's columns (repeat_interleave done by the GEMM's offsets);
  2. per (batch, head, block of query rows): attention.py's two online-softmax sweeps, K of head h // G;
  3. O[:, h] = P_h V_h on the cube (V_h: kv head h // G's copy);  4. the output projection on the cube
     (attention_mha.out_phases)."""
from __future__ import annotations

from kernelwright.agent.builtin.dslgen import decorator, doc, ident, kernel_name
from kernelwright.agent.builtin.graphview import FLOAT_DTYPES, Node, OpGraph, ref
from kernelwright.agent.builtin.patterns import Emitted
from kernelwright.agent.builtin.patterns.attention import sweeps
from kernelwright.agent.builtin.patterns.attention_mha import LOCALS, out_phases

KNOWN = {"einsum", "repeat_interleave"}
SHAPE_OPS = {"getattr", "getitem", "floordiv", "size"}


def _src(g: OpGraph, v) -> Node | None:
    return g.node(ref(v)) if ref(v) else None


def _einsum(n: Node | None, kind: str) -> tuple[Node, Node] | None:
    """The two operands of `n` when it is einsum QK ("blhd,bmhd->bhlm") or PV ("bhlm,bmhd->blhd"), any letters."""
    if n is None or n.op != "einsum" or len(n.args) != 3 or not isinstance(n.args[0], str):
        return None
    eq = n.args[0].replace(" ", "")
    ins, _, out = eq.partition("->")
    a, _, b = ins.partition(",")
    if not (len(a) == len(b) == len(out) == 4 and len(set(a)) == len(set(b)) == len(set(out)) == 4):
        return None
    if kind == "qk":
        ok = a[0] == b[0] == out[0] and a[2] == b[2] == out[1] and a[3] == b[3] and a[3] not in out \
            and out[2] == a[1] and out[3] == b[1] and a[1] != b[1]
    else:
        ok = a[0] == b[0] == out[0] and a[1] == b[2] == out[2] and a[2] == out[1] and a[3] == b[1] \
            and a[3] not in out and b[3] == out[3]
    return (n.args[1], n.args[2]) if ok else None


def _linear(g: OpGraph, n: Node | None) -> tuple[str, str, str] | None:
    """(input placeholder, weight, bias) of an nn.Linear with a bias on a placeholder."""
    if n is None or n.op != "Linear" or len(n.args) != 1:
        return None
    x = _src(g, n.args[0])
    w, b = f"{n.target}.weight", f"{n.target}.bias"
    if x is None or x.kind != "placeholder" or w not in g.params or b not in g.params:
        return None
    return x.name, w, b


def _heads(g: OpGraph, v, rank_heads: int | None) -> tuple[tuple[str, str, str], int, int] | None:
    """A projected operand as (linear, its heads, its repeat factor): view(Linear(x), b, L, heads, dh), optionally
    repeat_interleave(r, dim=2), or unsqueeze(Linear(x), 2) (one head, broadcast)."""
    n = _src(g, v)
    rep = 1
    if n is not None and n.op == "repeat_interleave":
        rep = n.arg(1, "repeats")
        if not isinstance(rep, int) or n.arg(2, "dim") not in (2, -2):
            return None
        n = _src(g, n.args[0])
    if n is None or n.shape is None or len(n.shape) != 4:
        return None
    if n.op == "unsqueeze" and n.arg(1, "dim") in (2, -2):
        heads = 1
    elif n.op in ("view", "reshape"):
        heads = n.shape[2]
    else:
        return None
    lin = _linear(g, _src(g, n.args[0]))
    if lin is None or rank_heads is not None and heads * rep not in (rank_heads, 1):
        return None
    return lin, heads, rep


def _scale(g: OpGraph, n: Node) -> tuple[Node, float | None] | None:
    """(the einsum the scores come from, the scale or None for 1 / sqrt(dh)) of S / sqrt(dh), S / c or S * c."""
    s = _src(g, n.args[0]) if n.op in ("div", "mul") and len(n.args) == 2 else None
    if s is None:
        return None
    d = n.args[1]
    if isinstance(d, (int, float)) and d != 0:
        return s, (1.0 / d if n.op == "div" else float(d))
    sq = _src(g, d)
    if n.op == "div" and sq is not None and sq.op == "sqrt" and sq.shape is None:
        fd = _src(g, sq.args[0])        # math.sqrt(D // H): the head dimension of the case
        if fd is not None and fd.op == "floordiv" and isinstance(fd.args[1], int):
            return s, None
    return None


def match(g: OpGraph, name: str) -> Emitted | None:
    out = g.single_output()
    if out is None or out.op != "Linear":
        return None
    work = [n for n in g.compute if n.kind != "get_attr"]
    if not any(n.op == "einsum" for n in work):
        return None
    lin_o = _linear_on(g, out)
    if lin_o is None:
        return None
    o4 = _src(g, out.args[0])
    pv = _src(g, o4.args[0]) if o4 is not None and o4.op in ("reshape", "view") and o4.shape is not None \
        and len(o4.shape) == 3 else None
    pv_ops = _einsum(pv, "pv")
    if pv_ops is None:
        return None
    sm = _src(g, pv_ops[0])
    if sm is None or sm.op != "softmax" or sm.arg(1, "dim") not in (-1, 3) or sm.kwargs.get("dtype") is not None:
        return None
    scaled = _src(g, sm.args[0])
    sc = _scale(g, scaled) if scaled is not None else None
    qk = _einsum(sc[0], "qk") if sc else None
    q4 = _src(g, qk[0]) if qk else None
    if q4 is None or q4.shape is None or len(q4.shape) != 4:
        return None
    H, dh = q4.shape[2], q4.shape[3]
    q, k, v = _heads(g, qk[0], None), _heads(g, qk[1], H), _heads(g, pv_ops[1], H)
    if q is None or k is None or v is None or q[2] != 1 or q[1] != H:
        return None
    hkv = k[1]
    if v[1] != hkv or H % hkv or k[0][0] != v[0][0]:
        return None
    xq, xk = g.node(q[0][0]), g.node(k[0][0])
    names = [q[0][1], q[0][2], k[0][1], k[0][2], v[0][1], v[0][2], lin_o[0], lin_o[1]]
    if len({xq.dtype, xk.dtype} | {g.params[p]["dtype"] for p in names}) != 1 or xq.dtype not in FLOAT_DTYPES \
            or len(xq.shape) != 3 or len(xk.shape) != 3 or xq.shape[0] != xk.shape[0] \
            or g.params[names[0]]["shape"][0] != H * dh or g.params[names[6]]["shape"][1] != H * dh:
        return None
    allowed = {"Linear", "view", "reshape", "unsqueeze", "repeat_interleave", "einsum", "sqrt", "div", "mul", "softmax",
               "contiguous"} | SHAPE_OPS
    if any(n.op not in allowed for n in work):
        return None
    return _emit(xq.name, xk.name, names, H, hkv, _attr(g, "num_heads", H), _attr(g, "num_kv_heads", hkv),
                 sc[1], name)


def _linear_on(g: OpGraph, out: Node) -> tuple[str, str] | None:
    w, b = f"{out.target}.weight", f"{out.target}.bias"
    return (w, b) if w in g.params and b in g.params else None


def _attr(g: OpGraph, name: str, value: int) -> str | None:
    """The init argument `name` when it sets this count (a shrunk case keeps the kernel's head map with it)."""
    return next((i["name"] for i in g.trace.get("init", []) if i.get("name") == name and i.get("value") == value), None)


def _emit(qn: str, kn: str, pnames: list[str], heads: int, kv_heads: int, heads_attr: str | None,
          kv_attr: str | None, scale: float | None, name: str) -> Emitted:
    taken = set(LOCALS)
    xq = ident(qn, taken)
    xk = ident(kn, taken) if kn != qn else xq
    wq, bq, wk, bk, wv, bv, wo, bo = (ident(p, taken) for p in pnames)
    y = ident("y", taken)
    inputs = list(dict.fromkeys([xq, xk, wq, bq, wk, bk, wv, bv, wo, bo]))
    params = ", ".join(inputs)
    attrs = {a: v for a, v in ((heads_attr, heads), (kv_attr, kv_heads)) if a}
    hp = "".join(f", {a}" for a in attrs)
    H = f"int({heads_attr})" if heads_attr else str(heads)
    Hkv = f"int({kv_attr})" if kv_attr else str(kv_heads) if kv_heads != heads else "H"
    scale_lines = ("rt = A.sqrt(float(t.dh))\n    sc = 1.0 / rt" if scale is None else f"sc = {float(scale)!r}")
    what = "multi-query" if kv_heads == 1 else "grouped-query" if kv_heads != heads else "multi-head"
    source = doc(f"{name}: {what} attention from q/k/v/out Linear projections and einsum: the projections, "
                 "S = Q K^T, O = P V and the output projection on the cube, online softmax on the vector unit, query "
                 "head h reading K/V head h // G (written by the builtin writer).") + f'''

@A.tiling
def tiling({params}, hw{hp}):
    B = {xq}.shape[0]
    Lq = {xq}.shape[1]
    Lk = {xk}.shape[1]
    D = {xq}.shape[2]
    Dk = {xk}.shape[2]
    E = {wq}.shape[0]
    Eo = {wo}.shape[0]
    H = {H}
    Hkv = {Hkv}
    dh = E // H
    bn = min(256, Lk)
    # UB: the fp32 S block, the P block it is cast into (two slots), the row max and sum
    bm = max(1, min(64, Lq, (hw.ub_bytes - 8192) // (4 * 4 * A.align_up(bn, 16))))
    mt = A.ceil_div(Lq, bm)
    pm = min(128, Lq)
    pk = min(128, Lk)
    en = min(256, Eo)
    return A.Tiling(block_dim=max(1, min(hw.vector_cores, B * H * mt)), B=B, Lq=Lq, Lk=Lk, D=D, Dk=Dk, E=E, Eo=Eo,
                    H=H, Hkv=Hkv, G=H // Hkv, dh=dh, bn=bn, bm=bm, pk=pk, bma=A.align_up(bm, 16), mt=mt,
                    kt=A.ceil_div(Lk, bn), pm=pm, en=en, et=A.ceil_div(Eo, en), qt=A.ceil_div(Lq, pm),
                    kvt=A.ceil_div(Lk, pk), lanes=bm * A.align_up(bn, 16), qsize=B * Lq * E, ksize=B * Hkv * Lk * dh,
                    vsize=B * Lk * E, psize=B * H * Lq * Lk)


@A.shapes
def shapes({params}{hp}):
    return {{"{y}": ({xq}.shape[0], {xq}.shape[1], {wo}.shape[0])}}


{decorator(inputs, {y: xq}, attrs)}
def {kernel_name(name)}({params}, {y}, t):
    qh = A.workspace({xq}.dtype, t.qsize)           # Q per head: (b, h, Lq, dh)
    kh = A.workspace({xq}.dtype, t.ksize)           # K per kv head: (b, h_kv, Lk, dh)
    vn = A.workspace({xq}.dtype, t.vsize)           # V: (b, Lk, E), kv head h // G at head h's columns
    on = A.workspace({xq}.dtype, t.qsize)           # the heads' outputs side by side: (b, Lq, E)
    p = A.workspace({xq}.dtype, t.psize)            # softmax(S) per (b, h)
    acc = A.ub(A.f32, t.lanes)
    pout = A.ub({xq}.dtype, t.lanes)
    mx = A.ub(A.f32, t.bma)
    sm = A.ub(A.f32, t.bma)
    cq = A.cube({xq}, {wq}, qh, tile=(t.pm, t.dh, t.D), shape=(t.Lq, t.dh, t.D), trans_b=True, bias={bq})
    ck = A.cube({xk}, {wk}, kh, tile=(t.pk, t.dh, t.Dk), shape=(t.Lk, t.dh, t.Dk), trans_b=True, bias={bk})
    cv = A.cube({xk}, {wv}, vn, tile=(t.pk, t.dh, t.Dk), shape=(t.Lk, t.E, t.Dk), trans_b=True, bias={bv})
    s1 = A.cube(qh, kh, acc, tile=(t.bm, t.bn, t.dh), shape=(t.Lq, t.Lk, t.dh), trans_b=True)
    s2 = A.cube(p, vn, on, tile=(t.pm, t.dh, t.Lk), shape=(t.Lq, t.E, t.Lk))
    co = A.cube(on, {wo}, {y}, tile=(t.pm, t.en, t.E), shape=(t.Lq, t.Eo, t.E), trans_b=True, bias={bo})
    {scale_lines}
    lo1, hi1 = A.block_span(t.B * t.H * t.qt)
    for i in A.range(lo1, hi1):                     # Q_h = x_q W_q,h^T + b_q,h
        bh = i // t.qt
        h_ = bh % t.H
        b_ = bh // t.H
        m0 = i % t.qt * t.pm
        mn = min(t.pm, t.Lq - m0)
        A.matmul(cq, qh[(bh * t.Lq + m0) * t.dh:], {xq}[(b_ * t.Lq + m0) * t.D:], {wq}[h_ * t.dh * t.D:], mn, t.dh, t.D,
                 bias={bq}[h_ * t.dh:])
    lo2, hi2 = A.block_span(t.B * t.Hkv * t.kvt)
    for i in A.range(lo2, hi2):                     # K_g = x_k W_k,g^T + b_k,g per kv head g
        bh = i // t.kvt
        h_ = bh % t.Hkv
        b_ = bh // t.Hkv
        m0 = i % t.kvt * t.pk
        mn = min(t.pk, t.Lk - m0)
        A.matmul(ck, kh[(bh * t.Lk + m0) * t.dh:], {xk}[(b_ * t.Lk + m0) * t.Dk:], {wk}[h_ * t.dh * t.Dk:], mn, t.dh,
                 t.Dk, bias={bk}[h_ * t.dh:])
    lo3, hi3 = A.block_span(t.B * t.H * t.kvt)
    for i in A.range(lo3, hi3):                     # V of kv head h // G into query head h's columns
        bh = i // t.kvt
        h_ = bh % t.H
        b_ = bh // t.H
        m0 = i % t.kvt * t.pk
        mn = min(t.pk, t.Lk - m0)
        A.matmul(cv, vn[(b_ * t.Lk + m0) * t.E + h_ * t.dh:], {xk}[(b_ * t.Lk + m0) * t.Dk:],
                 {wv}[h_ // t.G * t.dh * t.Dk:], mn, t.dh, t.Dk, bias={bv}[h_ // t.G * t.dh:])
    A.sync_all()
    lo4, hi4 = A.block_span(t.B * t.H * t.mt)
    for i in A.range(lo4, hi4):                     # i = bh * mt + mi: P = softmax(Q_h K_(h // G)^T * sc)
        bh = i // t.mt
        h_ = bh % t.H
        b_ = bh // t.H
        m0 = i % t.mt * t.bm
        mn = min(t.bm, t.Lq - m0)
{sweeps("qh[(bh * t.Lq + m0) * t.dh:]", "kh[((b_ * t.Hkv + h_ // t.G) * t.Lk + n0) * t.dh:]", "t.dh",
        "p[(bh * t.Lq + m0) * t.Lk + n0:]")}    A.sync_all()
{out_phases(y, wo, bo, 't.Eo')}'''
    return Emitted("attention", f"{what} attention: q/k/v/out projections, QK^T and PV on the cube (query head h reads "
                                "kv head h // G), online softmax on the vector unit, MIX", source)
