"""The DSL program of a convolution (see conv.py for the plan): the spec's constants are written into the
program as numbers, the sizes come from the input shapes in the tiling function."""
from __future__ import annotations

from kernelwright.agent.builtin.chain import ChainCompiler
from kernelwright.agent.builtin.dslgen import decorator, doc, ident, indent, kernel_name
from kernelwright.agent.builtin.graphview import Node, OpGraph
from kernelwright.agent.builtin.patterns import Emitted
from kernelwright.agent.builtin.patterns import conv_im2col, conv_norm, tail_group_rows
from kernelwright.agent.builtin.patterns.conv_norm import NormStage
from kernelwright.agent.builtin.patterns.conv_spec import ConvSpec, constant

LOCALS = {"acc", "yout", "bin_", "bv", "mm", "r", "i", "ni", "mi", "g", "b_", "m0", "n0", "mn", "nn", "ld", "ls", "ch",
          "lo3", "hi3", "ib"} | conv_im2col.LOCALS | \
         {f"{pre}_{k}" for pre in ("ex", "in", "cv", "s", "wk") for k in range(32)} | conv_norm.locals_() | \
         {"bm_", "bv_", "brt", "ba", "bw_", "bb_", "bb"} | {f"{p}_{k}_{j}" for p in ("bni", "bnf") for k in range(4) for j in range(4)}
PHASE1_BYTES = 81920       # UB for the im2col tiles (via, zt); the rest holds the GEMM blocks and the epilogue


def _init_groups(g: OpGraph):
    return next((i["value"] for i in g.trace.get("init", []) if i.get("name") == "groups"), None)


def emit(g: OpGraph, spec: ConvSpec, after: list[Node], extras: dict[str, str], name: str,
         norm: NormStage | None = None) -> Emitted:
    taken = set(LOCALS)
    names = {spec.x.name: ident(spec.x.name, taken), spec.weight.name: ident(spec.weight.name, taken)}
    if spec.bias is not None:
        names[spec.bias.name] = ident(spec.bias.name, taken)
    for leaf, kind in extras.items():
        if kind != "const":
            names.setdefault(leaf, ident(leaf, taken))
    if norm is not None:
        for leaf in [p for p in (norm.weight, norm.bias) if p] + [e for e, k in norm.post_extras.items() if k != "const"]:
            names.setdefault(leaf, ident(leaf, taken))
    for n in after:
        if n.op in conv_norm.BATCHNORMS:
            for p in conv_norm.batchnorm_params(g, n):
                names.setdefault(p, ident(p, taken))
    x, w = names[spec.x.name], names[spec.weight.name]
    bias = names[spec.bias.name] if spec.bias is not None else None
    y = ident("y", taken)
    inputs = list(dict.fromkeys(names.values()))
    params = ", ".join(inputs)
    (KD, KH, KW), (SD, SH, SW) = spec.kernel, spec.step
    (PD, PH, PW), (LD, LH, LW), (ED, EH, EW) = spec.padding, spec.dilation, spec.extra
    UD_, UH_, UW_ = spec.stride if spec.transposed else (1, 1, 1)
    KK, tr = KD * KH * KW, spec.transposed
    # the groups from the shapes (a shrunk case shrinks the channels and the groups alike), or for a transposed
    # convolution (whose weight does not tell) from the task's `groups` init argument when it has one
    attrs = {"groups": spec.groups} if tr and spec.groups > 1 and _init_groups(g) == spec.groups else {}
    G = f"{x}.shape[1] // {w}.shape[1]" if not tr else ("int(groups)" if attrs else str(spec.groups))
    r = spec.rank
    dims = ["1"] * (3 - r) + [f"{x}.shape[{2 + i}]" for i in range(r)]
    co = f"{w}.shape[1] * G" if tr else f"{w}.shape[0]"

    comp = ChainCompiler(g, count="mn * ld", prefix="wk_", broadcast=True)
    result, bn_decls = conv_norm.compile_pre(g, comp, spec.node.name, after, extras, names)
    ntiles = 2 + 2 * len(extras) + len(comp.tiles) + (2 if comp.advanced else 0)
    if norm is not None:
        comp3, result3 = conv_norm.compile_post(g, norm)
        ntiles3 = 3 + 2 * len(norm.post_extras) + len(comp3.tiles) + (2 if comp3.advanced else 0)
        GN = tail_group_rows.group_count("CO", norm.node.shape[1], norm.groups)[0] if norm.groups is not None else "CO"
    else:
        ntiles3, GN = 0, "1"

    shape_lines = f'''N = {x}.shape[0]
    C = {x}.shape[1]
    ID = {dims[0]}
    IH = {dims[1]}
    IW = {dims[2]}
    UD = (ID - 1) * {UD_} + 1
    UH = (IH - 1) * {UH_} + 1
    UW = (IW - 1) * {UW_} + 1
    G = {G}
    OD = (UD + {2 * PD + ED - LD * (KD - 1) - 1}) // {SD} + 1
    OH = (UH + {2 * PH + EH - LH * (KH - 1) - 1}) // {SH} + 1
    OW = (UW + {2 * PW + EW - LW * (KW - 1) - 1}) // {SW} + 1
    CO = {co}'''
    extra_params = "".join(f", {a}" for a in attrs)
    out_dims = ", ".join(["N", "CO"] + ["OD", "OH", "OW"][3 - r:])
    tiling = f'''@A.tiling
def tiling({params}, hw{extra_params}):
    {shape_lines}
    OHW = OD * OH * OW
    CKKg = C // G * {KK}
    COg = CO // G
    # A.move copies of up to bw outputs (rows of one element take 32 bytes of UB each)
    bw = min({conv_im2col.SEGMENT}, max(OW, {UW_}))
    bx = max(1, bw // {UW_})
    KKA = A.align_up({KK}, A.elems_per_block({w}.dtype))
    cb = min(COg, max(1, 2048 // KKA))
    bn = min(128, OHW)
    # UB: {ntiles} fp32 tiles of bm rows x align_up(bn, 16) lanes after the im2col tiles
    left = hw.ub_bytes - {PHASE1_BYTES} - 4 * 2 * 2048 - 8192 - {ntiles3 * 4 * conv_norm.CHUNK}
    bm = max(1, min(64, COg, left // ({ntiles} * 4 * A.align_up(bn, 16))))
    mt = A.ceil_div(COg, bm)
    tn = A.ceil_div(OHW, bn)
    tiles = N * G * mt * tn
    rows = N * C * {KD * KH} * OD * OH
    GN = {GN}
    Cg = CO // GN
    return A.Tiling(block_dim=max(1, min(hw.vector_cores, max(tiles, rows // 4))), G=G, N=N, C=C, ID=ID, IH=IH, IW=IW,
                    UD=UD, UH=UH, UW=UW, OD=OD, OH=OH, OW=OW, CO=CO, COg=COg, CKK=C * {KK}, CKKg=CKKg, OHW=OHW,
                    bw=bw, bwa=A.align_up(bw, 16), vcap=max(bw * A.elems_per_block({x}.dtype), cb * KKA), bu=bx * {UW_},
                    epb=A.elems_per_block({x}.dtype), prows=N * C * {KD * KH} * OD, urows=N * C * UD * UH, cb=cb,
                    wc=A.ceil_div(COg, cb), wtasks=C * A.ceil_div(COg, cb), srows=N * C * UD * UH,
                    PWd=A.ceil_div(UW, {SW}), psize=N * C * UD * UH * {SW} * A.ceil_div(UW, {SW}),
                    usize=N * C * UD * UH * UW, wsize=CO * CKKg, csize=N * C * {KK} * OHW, rows=rows,
                    bm=bm, bn=bn, bma=A.align_up(bm, 16), mt=mt, tn=tn, tiles=tiles, lanes=bm * A.align_up(bn, 16),
                    GN=GN, Cg=Cg, CgA=A.align_up(Cg, 16), glen=Cg * OHW, zsize=N * CO * OHW, T={conv_norm.CHUNK})


@A.shapes
def shapes({params}{extra_params}):
    {shape_lines}
    return {{"{y}": ({out_dims})}}
'''
    src = "u" if conv_im2col.upsampled(spec) else x
    wmat = "wt" if tr else w
    cmat = x if conv_im2col.pointwise(spec) else "col"
    decls = conv_im2col.decls(x, w, spec)
    decls += ["acc = A.ub(A.f32, t.lanes)"] + ([f"yout = A.ub({y}.dtype, t.lanes)"] if norm is None else [])
    if bias:
        decls += [f"bin_ = A.ub({bias}.dtype, t.bma)", "bv = A.ub(A.f32, t.bma)"]
    for i, (leaf, kind) in enumerate(extras.items()):
        decls += [] if kind == "const" else [f"in_{i} = A.ub({names[leaf]}.dtype, t.lanes)"]
        decls.append(f"ex_{i} = A.ub(A.f32, t.lanes)")
        if kind == "chan":
            decls.append(f"cv_{i} = A.ub(A.f32, t.bma)")
    decls += [f"{tw} = A.ub(A.f32, t.lanes)" for tw in comp.tiles]
    decls += bn_decls
    if norm is not None:
        decls += conv_norm.decls(norm, comp3, names, y)
    decls.append(f"mm = A.cube({wmat}, {cmat}, acc, tile=(t.bm, t.bn, t.CKKg), shape=(t.CO, t.OHW, t.CKKg))")

    body = []
    if not conv_im2col.pointwise(spec):
        body += conv_im2col.zeros()
        if tr:
            body += conv_im2col.transposed_inputs(x, w, spec)
        body += conv_im2col.im2col(src, spec)
    body += ["lo3, hi3 = A.block_span(t.tiles)",
             "for i in A.range(lo3, hi3):                     # i = ((n * G + g) * mt + mi) * tn + ni",
             "    ni = i % t.tn", "    mi = i // t.tn % t.mt", "    g = i // (t.tn * t.mt) % t.G",
             "    ib = i // (t.tn * t.mt * t.G)", "    m0 = mi * t.bm", "    n0 = ni * t.bn",
             "    mn = min(t.bm, t.COg - m0)", "    nn = min(t.bn, t.OHW - n0)",
             "    ld = A.align_up(nn, 8)                      # fp32 rows of the block: 32-byte aligned",
             "    ls = A.align_up(nn, 16)                     # rows of the store tile (any float dtype)",
             "    ch = g * t.COg + m0                         # the block's first output channel",
             "    A.Duplicate(acc, 0.0, mn * ld)",
             f"    A.matmul(mm, acc, {wmat}[ch * t.CKKg:], {cmat}[(ib * t.CKK + g * t.CKKg) * t.OHW + n0:], mn, nn, t.CKKg)"]
    loop = []
    if bias:
        loop += [f"A.load(bin_, {bias}[ch:], mn)", 'A.Cast(bv, bin_, "auto", mn)', "for r in A.range(0, mn):",
                 "    b_ = A.get(bv, r)", "    A.Adds(acc[r * ld:], acc[r * ld:], b_, nn)"]
    for i, (leaf, kind) in enumerate(extras.items()):
        e = names.get(leaf)
        if kind == "const":
            loop.append(f"A.Duplicate(ex_{i}, {float(constant(g, leaf))!r}, mn * ld)")
        elif kind == "full":
            loop += [f"A.Duplicate(ex_{i}, 0.0, mn * ld)",
                     f"A.load(in_{i}, {e}[(ib * t.CO + ch) * t.OHW + n0:], nn, rows=mn, src_stride=t.OHW, dst_stride=ls)",
                     "if nn == ls:                                # rows without padding lanes: one cast",
                     f'    A.Cast(ex_{i}, in_{i}, "auto", mn * ld)', "else:",
                     "    for r in A.range(0, mn):", f'        A.Cast(ex_{i}[r * ld:], in_{i}[r * ls:], "auto", nn)']
        elif kind == "chan":
            loop += [f"A.load(in_{i}, {e}[ch:], mn)", f'A.Cast(cv_{i}, in_{i}, "auto", mn)', "for r in A.range(0, mn):",
                     f"    s_{i} = A.get(cv_{i}, r)", f"    A.Duplicate(ex_{i}[r * ld:], s_{i}, ld)"]
        else:
            loop += [f"A.load(in_{i}, {e}, 1)", f'A.Cast(ex_{i}, in_{i}, "auto", 1)', f"s_{i} = A.get(ex_{i}, 0)",
                     f"A.Duplicate(ex_{i}, s_{i}, mn * ld)"]
    loop += comp.lines
    if norm is None:
        loop += ["if ld == ls:                                  # the block's rows are the store tile's: one cast",
                 f'    A.Cast(yout, {result}, "auto", mn * ld)', "else:",
                 "    for r in A.range(0, mn):", f'        A.Cast(yout[r * ls:], {result}[r * ld:], "auto", nn)',
                 f"A.store({y}[(ib * t.CO + ch) * t.OHW + n0:], yout, nn, rows=mn, src_stride=ls, dst_stride=t.OHW)"]
    else:
        loop.append(f"A.store(z[(ib * t.CO + ch) * t.OHW + n0:], {result}, nn, rows=mn, src_stride=ld, dst_stride=t.OHW)")
    body += ["    " + line for line in loop]
    if norm is not None:
        body += conv_norm.phase(norm, comp3, result3, names, y, lambda leaf: constant(g, leaf))
    ops = ", ".join(dict.fromkeys(n.op for n in [spec.node, *after] + ([norm.node, *norm.post] if norm else [])))
    kind = "transposed convolution" if tr else "convolution"
    source = (doc(f"{name}: {ops}: a {spec.rank}-d {kind} (groups {spec.groups}) by im2col + GEMM on the cube unit, a MIX "
                  "kernel (written by the builtin writer).") + "\n\n" + tiling + "\n\n" +
              f"{decorator(inputs, {y: x}, attrs)}\ndef {kernel_name(name)}({params}, {y}, t):\n{indent(decls + body, 1)}\n")
    how = "W @ x (cube; pointwise: x is col)" if conv_im2col.pointwise(spec) else \
        "im2col (copy engines) + W @ col (cube)"
    return Emitted("convolution", f"{ops}: {spec.rank}-d {kind} as {how}, MIX", source)
