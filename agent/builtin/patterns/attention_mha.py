"""nn.MultiheadAttention (batch_first, packed in_proj, no mask, out[0] only) on the cube unit, a MIX kernel in
four phases separated by barriers:
  1. projections on the cube with their bias: Q and K per head into head-major workspaces (b, h, L, dh), whose
     rows are contiguous for the attention GEMMs; V as (b, L, E);
  2. per (batch, head, block of query rows): S = Q_h K_h^T / sqrt(dh) on the cube, online softmax on the vector
     unit (attention.py's two sweeps), P into a workspace;
  3. O = P V_h on the cube, each head's columns of O (b, L, E) in place;
  4. the output projection O W_o^T + b_o on the cube.
Every reduction (over E, over the keys, over the heads' concatenation) runs on the cube; the vector work is per
element of S."""
from __future__ import annotations

from kernelwright.agent.builtin.dslgen import decorator, doc, ident, kernel_name
from kernelwright.agent.builtin.graphview import FLOAT_DTYPES, OpGraph, ref
from kernelwright.agent.builtin.patterns import Emitted
from kernelwright.agent.builtin.patterns.attention import sweeps

KNOWN = {"MultiheadAttention", "getitem"}
LOCALS = {"qh", "kh", "vn", "on", "p", "acc", "pout", "mx", "sm", "cq", "ck", "cv", "co", "s1", "s2", "i", "c", "r",
          "b_", "h_", "m0", "mn", "n0", "nn", "ld", "ls", "cm", "mo", "mw", "l_", "inv", "rt", "sc", "cs", "ex", "bh",
          "mrow", "xqp", "xkp", "cxqp", "cxkp", "lo0", "hi0", "lo1", "hi1", "lo2", "hi2", "lo3", "hi3", "lo4", "hi4",
          "lo5", "hi5", "lo6", "hi6", "mt_", "win", "bin",
          "wout", "bout"}


def _heads_attr(g: OpGraph, heads: int) -> str | None:
    """The init argument that sets the head count (a shrunk case keeps it), if the task names one."""
    return next((i["name"] for i in g.trace.get("init", []) if i.get("name") == "num_heads" and i.get("value") == heads),
                None)


def match(g: OpGraph, name: str) -> Emitted | None:
    work = [n for n in g.compute if n.kind != "get_attr"]
    out = g.single_output()
    mha = [n for n in work if n.op == "MultiheadAttention"]
    if len(mha) != 1 or out is None or out.op != "getitem" or ref(out.args[0]) != mha[0].name or out.args[1] != 0:
        return None
    n = mha[0]
    if any(w.op not in ("MultiheadAttention", "getitem", "size", "Linear") for w in work) or len(n.args) != 3 \
            or set(n.kwargs) - {"attn_mask"}:
        return None
    m = n.module
    if not m.get("batch_first") or m.get("bias_k") is not None or m.get("add_zero_attn") or m.get("dropout", 0.0):
        return None
    E, H = m.get("embed_dim"), m.get("num_heads")
    if m.get("kdim") != E or m.get("vdim") != E or not isinstance(H, int) or E % H:
        return None
    xs = [g.node(ref(a)) if ref(a) else None for a in n.args]
    if any(x is None or x.shape is None or len(x.shape) != 3 or x.shape[2] != E or x.dtype not in FLOAT_DTYPES
           for x in xs) or xs[1].name != xs[2].name or len({x.dtype for x in xs}) != 1:
        return None
    pre = [_projection(g, x) for x in xs[:2]]        # (placeholder, weight, bias) of a Linear before the attention
    if any(x.kind != "placeholder" and p is None for x, p in zip(xs, pre)) \
            or sum(n.op == "Linear" for n in work) != len({x.name for x in xs if x.op == "Linear"}):
        return None
    names = [f"{n.target}.in_proj_weight", f"{n.target}.in_proj_bias", f"{n.target}.out_proj.weight",
             f"{n.target}.out_proj.bias"]
    weights = names + [w for p in pre if p for w in p[1:]]
    if any(p not in g.params or g.params[p]["dtype"] != xs[0].dtype for p in weights):
        return None
    mask = n.kwargs.get("attn_mask")
    buffer = _mask_buffer(g, ref(mask), xs[0], xs[1]) if mask is not None else None
    if mask is not None and buffer is None:
        return None
    return _emit(xs[0].name, xs[1].name, names, H, _heads_attr(g, H), name, buffer, pre)


def _projection(g: OpGraph, x) -> tuple[str, str, str] | None:
    """(input, weight, bias) when the attention's input `x` is an nn.Linear with a bias of a 3-d placeholder."""
    src = g.node(ref(x.args[0])) if x.op == "Linear" and len(x.args) == 1 and ref(x.args[0]) else None
    w, b = f"{x.target}.weight", f"{x.target}.bias"
    if src is None or src.kind != "placeholder" or len(src.shape or []) != 3 or src.dtype != x.dtype \
            or w not in g.params or b not in g.params:
        return None
    return src.name, w, b


def _mask_buffer(g: OpGraph, name: str | None, xq, xk) -> str | None:
    """The bool buffer a 2-d attn_mask reads: the buffer itself (Lq, Lk), or its top-left corner
    `buf[:xq.size(1), :xk.size(1)]` (causal and windowed masks made once at their largest length); None for
    any other mask (float masks, masks computed in forward)."""
    m = g.node(name) if name else None
    if m is None or m.dtype != "bool" or m.shape != [xq.shape[1], xk.shape[1]]:
        return None
    if m.kind == "get_attr":
        return m.target if m.target in g.params else None
    src = g.node(ref(m.args[0])) if m.op == "getitem" and ref(m.args[0]) else None
    key = m.args[1] if m.op == "getitem" else None
    if src is None or src.kind != "get_attr" or src.target not in g.params or len(g.params[src.target]["shape"]) != 2 \
            or not isinstance(key, list) or len(key) != 2:
        return None
    for part, x in zip(key, (xq, xk)):
        cut = part.get("slice") if isinstance(part, dict) else None
        size = g.node(ref(cut[1])) if cut and ref(cut[1]) else None
        if cut is None or cut[0] not in (None, 0) or cut[2] not in (None, 1) or size is None or size.op != "size" \
                or ref(size.args[0]) != x.name or size.arg(1, "dim") not in (1, -2):
            return None
    return src.target


def _emit(qn: str, kvn: str, pnames: list[str], heads: int, heads_attr: str | None, name: str,
          buffer: str | None, pre: list[tuple[str, str, str] | None]) -> Emitted:
    taken = set(LOCALS)
    # rq, rk: the task's inputs; xq, xk: the attention's (a workspace when a Linear projects the input first)
    rq = ident(pre[0][0] if pre[0] else qn, taken)
    rk = rq if (pre[1][0] if pre[1] else kvn) == (pre[0][0] if pre[0] else qn) else ident(pre[1][0] if pre[1] else kvn,
                                                                                       taken)
    pw = [[ident(w, taken) for w in p[1:]] if p else None for p in pre]
    xq = "xqp" if pre[0] else rq
    xk = "xkp" if pre[1] else rk
    win, bin_, wout, bout = (ident(p, taken) for p in pnames)
    mk = ident(buffer, taken) if buffer else None
    y = ident("y", taken)
    inputs = list(dict.fromkeys([rq, rk] + sum((w for w in pw if w), []) + [win, bin_, wout, bout]
                                + ([mk] if mk else [])))
    params = ", ".join(inputs)
    attrs = {heads_attr: heads} if heads_attr else {}
    hp = f", {heads_attr}" if heads_attr else ""
    H = f"int({heads_attr})" if heads_attr else str(heads)
    # a bool mask's row stride (the buffer may be larger than (Lq, Lk)) and its UB row
    mask_fields = f" mw={mk}.shape[1], bna=A.align_up(bn, 32)," if mk else ""
    mask_tile = ("\n    mrow = A.ub(A.bool, t.bm * t.bna)            # the block's mask rows (True: not attended)"
                 if mk else "")
    # UB rows: the fp32 S block, the P block it is cast into (two slots) and, masked, the bool mask block
    ub_rows = ("bm = max(1, min(64, Lq, (hw.ub_bytes - 8192) // (17 * A.align_up(bn, 32))))" if mk else
               "bm = max(1, min(64, Lq, (hw.ub_bytes - 8192) // (4 * 4 * A.align_up(bn, 16))))")
    pre_fields, pre_decls, pre_loops = _pre_parts(rq, rk, xq, xk, pw)
    E_expr = f"{win}.shape[1]" if any(pw) else f"{rq}.shape[2]"
    out_shape = f"({rq}.shape[0], {rq}.shape[1], {win}.shape[1])" if pw[0] else f"{rq}.shape"
    source = doc(f"{name}: nn.MultiheadAttention as projections, S = Q K^T, online softmax, O = P V and the output "
                 "projection, the GEMMs on the cube, a MIX kernel (written by the builtin writer).") + f'''

@A.tiling
def tiling({params}, hw{hp}):
    B = {rq}.shape[0]
    Lq = {rq}.shape[1]
    Lk = {rk}.shape[1]
    E = {E_expr}
    H = {H}
    dh = E // H
    bn = min(256, Lk)
    # UB: the fp32 S block, the P block it is cast into (two slots), the row max and sum
    {ub_rows}
    mt = A.ceil_div(Lq, bm)
    pm = min(128, Lq)
    pk = min(128, Lk)
    en = min(256, E)
    et = A.ceil_div(E, en)
    return A.Tiling(block_dim=max(1, min(hw.vector_cores, B * H * mt)), B=B, Lq=Lq, Lk=Lk, E=E, H=H, dh=dh, bn=bn, bm=bm, pk=pk,
                    bma=A.align_up(bm, 16), mt=mt, kt=A.ceil_div(Lk, bn), pm=pm, en=en, et=et,
                    qt=A.ceil_div(Lq, pm), kvt=A.ceil_div(Lk, pk), lanes=bm * A.align_up(bn, 16),{mask_fields}{pre_fields}
                    qsize=B * Lq * E, ksize=B * Lk * E, psize=B * H * Lq * Lk)


@A.shapes
def shapes({params}{hp}):
    return {{"{y}": {out_shape}}}


{decorator(inputs, {y: rq}, attrs, (mk,) if mk else ())}
def {kernel_name(name)}({params}, {y}, t):{pre_decls}
    qh = A.workspace({rq}.dtype, t.qsize)           # Q per head: (b, h, Lq, dh)
    kh = A.workspace({rq}.dtype, t.ksize)           # K per head: (b, h, Lk, dh)
    vn = A.workspace({rq}.dtype, t.ksize)           # V: (b, Lk, E)
    on = A.workspace({rq}.dtype, t.qsize)           # the heads' outputs side by side: (b, Lq, E)
    p = A.workspace({rq}.dtype, t.psize)            # softmax(S) per (b, h)
    acc = A.ub(A.f32, t.lanes)
    pout = A.ub({rq}.dtype, t.lanes)
    mx = A.ub(A.f32, t.bma){mask_tile}
    sm = A.ub(A.f32, t.bma)
    cq = A.cube({xq}, {win}, qh, tile=(t.pm, t.dh, t.E), shape=(t.Lq, t.dh, t.E), trans_b=True, bias={bin_})
    ck = A.cube({xk}, {win}, kh, tile=(t.pk, t.dh, t.E), shape=(t.Lk, t.dh, t.E), trans_b=True, bias={bin_})
    cv = A.cube({xk}, {win}, vn, tile=(t.pk, t.en, t.E), shape=(t.Lk, t.E, t.E), trans_b=True, bias={bin_})
    s1 = A.cube(qh, kh, acc, tile=(t.bm, t.bn, t.dh), shape=(t.Lq, t.Lk, t.dh), trans_b=True)
    s2 = A.cube(p, vn, on, tile=(t.pm, t.dh, t.Lk), shape=(t.Lq, t.E, t.Lk))
    co = A.cube(on, {wout}, {y}, tile=(t.pm, t.en, t.E), shape=(t.Lq, t.E, t.E), trans_b=True, bias={bout})
    rt = A.sqrt(float(t.dh))
    sc = 1.0 / rt
{pre_loops}    lo1, hi1 = A.block_span(t.B * t.H * t.qt)
    for i in A.range(lo1, hi1):                     # Q_h = x_q W_q,h^T + b_q,h
        bh = i // t.qt
        h_ = bh % t.H
        b_ = bh // t.H
        m0 = i % t.qt * t.pm
        mn = min(t.pm, t.Lq - m0)
        A.matmul(cq, qh[(bh * t.Lq + m0) * t.dh:], {xq}[(b_ * t.Lq + m0) * t.E:], {win}[h_ * t.dh * t.E:], mn, t.dh, t.E,
                 bias={bin_}[h_ * t.dh:])
    lo2, hi2 = A.block_span(t.B * t.H * t.kvt)
    for i in A.range(lo2, hi2):                     # K_h = x_k W_k,h^T + b_k,h
        bh = i // t.kvt
        h_ = bh % t.H
        b_ = bh // t.H
        m0 = i % t.kvt * t.pk
        mn = min(t.pk, t.Lk - m0)
        A.matmul(ck, kh[(bh * t.Lk + m0) * t.dh:], {xk}[(b_ * t.Lk + m0) * t.E:], {win}[(t.E + h_ * t.dh) * t.E:], mn,
                 t.dh, t.E, bias={bin_}[t.E + h_ * t.dh:])
    lo3, hi3 = A.block_span(t.B * t.kvt * t.et)
    for i in A.range(lo3, hi3):                     # V = x_v W_v^T + b_v
        b_ = i // (t.kvt * t.et)
        m0 = i // t.et % t.kvt * t.pk
        n0 = i % t.et * t.en
        mn = min(t.pk, t.Lk - m0)
        nn = min(t.en, t.E - n0)
        A.matmul(cv, vn[(b_ * t.Lk + m0) * t.E + n0:], {xk}[(b_ * t.Lk + m0) * t.E:], {win}[(2 * t.E + n0) * t.E:], mn,
                 nn, t.E, bias={bin_}[2 * t.E + n0:])
    A.sync_all()
    lo4, hi4 = A.block_span(t.B * t.H * t.mt)
    for i in A.range(lo4, hi4):                     # i = bh * mt + mi: P = softmax(Q_h K_h^T * sc), two sweeps
        bh = i // t.mt
        m0 = i % t.mt * t.bm
        mn = min(t.bm, t.Lq - m0)
{sweeps("qh[(bh * t.Lq + m0) * t.dh:]", "kh[(bh * t.Lk + n0) * t.dh:]", "t.dh", "p[(bh * t.Lq + m0) * t.Lk + n0:]",
         f"{mk}[m0 * t.mw + n0:]" if mk else None)}    A.sync_all()
{out_phases(y, wout, bout, 't.E')}'''
    return Emitted("attention", "multi-head attention: projections, QK^T, PV and the output projection on the cube, "
                                "online softmax on the vector unit, MIX", source)


def out_phases(y: str, wout: str, bout: str, width: str) -> str:
    """The kernel's last two phases: O[:, h] = P_h V_h on the cube from the workspaces p (b, h, Lq, Lk) and
    vn (b, Lk, E) into on (b, Lq, E), a barrier, then y = O W_o^T + b_o ({width} columns) on the cube."""
    return f'''    lo5, hi5 = A.block_span(t.B * t.H * t.qt)
    for i in A.range(lo5, hi5):                     # O[:, h] = P_h V_h
        bh = i // t.qt
        h_ = bh % t.H
        b_ = bh // t.H
        m0 = i % t.qt * t.pm
        mn = min(t.pm, t.Lq - m0)
        A.matmul(s2, on[(b_ * t.Lq + m0) * t.E + h_ * t.dh:], p[(bh * t.Lq + m0) * t.Lk:], vn[b_ * t.Lk * t.E + h_ * t.dh:],
                 mn, t.dh, t.Lk)
    A.sync_all()
    lo6, hi6 = A.block_span(t.B * t.qt * t.et)
    for i in A.range(lo6, hi6):                     # y = O W_o^T + b_o
        b_ = i // (t.qt * t.et)
        m0 = i // t.et % t.qt * t.pm
        n0 = i % t.et * t.en
        mn = min(t.pm, t.Lq - m0)
        nn = min(t.en, {width} - n0)
        A.matmul(co, {y}[(b_ * t.Lq + m0) * {width} + n0:], on[(b_ * t.Lq + m0) * t.E:], {wout}[n0 * t.E:], mn, nn, t.E,
                 bias={bout}[n0:])
'''


def _pre_parts(rq: str, rk: str, xq: str, xk: str, pw: list) -> tuple[str, str, str]:
    """(tiling fields, kernel declarations, the phase with its barrier) of the Linear projections before the
    attention (cross_modal_attention: q = q_proj(text), kv = kv_proj(img)): each input times its weight plus its
    bias on the cube into a workspace (b, L, E) the attention reads as its input; empty without them."""
    fields, decls, loops = "", "", ""
    for raw, x, w, L, tile, tiles, D in ((rq, xq, pw[0], "Lq", "pm", "qt", "Dq"), (rk, xk, pw[1], "Lk", "pk", "kvt", "Dk")):
        if not w:
            continue
        fields += f" {D}={raw}.shape[2],"
        decls += (f"\n    {x} = A.workspace({rq}.dtype, t.B * t.{L} * t.E)       # {raw} W^T + b: the attention's input"
                  f"\n    c{x} = A.cube({raw}, {w[0]}, {x}, tile=(t.{tile}, t.en, t.{D}), shape=(t.{L}, t.E, t.{D}), "
                  f"trans_b=True, bias={w[1]})")
        loops += f'''    lo0, hi0 = A.block_span(t.B * t.{tiles} * t.et)
    for i in A.range(lo0, hi0):                     # {x} = {raw} W^T + b, before the attention
        b_ = i // (t.{tiles} * t.et)
        m0 = i // t.et % t.{tiles} * t.{tile}
        n0 = i % t.et * t.en
        mn = min(t.{tile}, t.{L} - m0)
        nn = min(t.en, t.E - n0)
        A.matmul(c{x}, {x}[(b_ * t.{L} + m0) * t.E + n0:], {raw}[(b_ * t.{L} + m0) * t.{D}:], {w[0]}[n0 * t.{D}:], mn, nn,
                 t.{D}, bias={w[1]}[n0:])
'''
    return fields, decls, loops + ("    A.sync_all()\n" if loops else "")
