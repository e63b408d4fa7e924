"""F.interpolate over 1, 2 or 3 spatial axes: nearest, (bi/tri)linear and bicubic, align_corners either
way, by size or by scale factor. It generalises the DSL's resize/bilinear example: the source
coordinate of an output index is kept exact in integers (num / den), every axis but the last gives
row taps (index, weight) on the scalar unit per output row position, the taps of the last axis are built
once per block into index and weight tiles; a group of G planes (N*C) is done at once: their source rows
are loaded G at a time (strided), blended (vector Muls/Add in fp32), the column taps of all G blended
rows gathered in one instruction (the index table repeats per plane, shifted by its row) and blended. Antialiased bilinear: torch's widened triangle
filter, k taps per axis. Not covered: antialias for other modes, area and nearest-exact modes."""
from __future__ import annotations

import itertools
import re

from kernelwright.agent.builtin.dslgen import FLOATS, doc, ident, indent, kernel_name
from kernelwright.agent.builtin.graphview import FLOAT_DTYPES, OpGraph, ref
from kernelwright.agent.builtin.patterns import Emitted
from kernelwright.agent.builtin.patterns.common import returns, work

KNOWN = {"interpolate", "upsample", "Upsample"}
MODES = {"nearest": 1, "linear": 2, "bilinear": 2, "trilinear": 2, "bicubic": 4}
CUBIC_A = -0.75
LOCALS = {"y", "t", "u", "g", "g0", "gn", "pos", "ox", "planes", "nb", "sf", "bl", "gt", "acc", "out", "lo", "hi", "P", "Q",
          "Wa", "OWa", "G", "groups", "fixed", "per_plane"}


def _aa_taps(a: int, o: str, k: int) -> tuple[list[str], list[tuple[str, str]]]:
    """Antialiased linear taps (torch's _upsample_bilinear2d_aa): a triangle filter stretched by the scale
    max(I, O) / O around the centre I * (o + 0.5) / O, its `k` taps from lo (clipped to the input) normalised
    to sum 1; lo and hi exact in integers (t.S = max(I, O))."""
    I, O, S = f"t.I{a}", f"t.O{a}", f"t.S{a}"
    lines = [f"lo{a} = max({I} * (2 * {o} + 1) - 2 * {S} + {O}, 0) // (2 * {O})",
             f"hi{a} = min(({I} * (2 * {o} + 1) + 2 * {S} + {O}) // (2 * {O}), {I})",
             f"cen{a} = float({I} * (2 * {o} + 1)) / float(2 * {O})", f"inv{a} = float({O}) / float({S})"]
    for j in range(k):
        lines += [f"d{a}_{j} = float(lo{a} + {j}) + 0.5 - cen{a}",
                  f"v{a}_{j} = max(1.0 - max(d{a}_{j}, 0.0 - d{a}_{j}) * inv{a}, 0.0) if lo{a} + {j} < hi{a} else 0.0",
                  f"i{a}_{j} = min(lo{a} + {j}, {I} - 1)"]
    lines.append(f"tot{a} = " + " + ".join(f"v{a}_{j}" for j in range(k)))
    lines += [f"w{a}_{j} = v{a}_{j} / tot{a}" for j in range(k)]
    return lines, [(f"i{a}_{j}", f"w{a}_{j}") for j in range(k)]


def _taps(a: int, o: str, mode: str, corners: bool, k: int = 0) -> tuple[list[str], list[tuple[str, str]]]:
    """Kernel lines computing the taps of axis `a` at output index `o`, and the (index, weight) names."""
    I, O = f"t.I{a}", f"t.O{a}"
    if mode == "aa":
        return _aa_taps(a, o, k)
    if mode == "nearest":
        return [f"i{a}_0 = min({o} * {I} // {O}, {I} - 1)"], [(f"i{a}_0", "1.0")]
    if corners:
        num, den = f"{o} * t.M{a}", f"t.E{a}"
    else:
        num, den = f"(2 * {o} + 1) * {I} - {O}", f"2 * {O}"
    if mode != "bicubic":
        lines = [f"num{a} = max(0, {num})" if not corners else f"num{a} = {num}",
                 f"i{a}_0 = num{a} // ({den})", f"i{a}_1 = min(i{a}_0 + 1, {I} - 1)",
                 f"f{a} = float(num{a} - i{a}_0 * ({den})) / float({den})", f"w{a}_0 = 1.0 - f{a}"]
        return lines, [(f"i{a}_0", f"w{a}_0"), (f"i{a}_1", f"f{a}")]
    A = CUBIC_A
    lines = [f"num{a} = {num}", f"b{a} = (num{a} + 4 * ({den})) // ({den}) - 4",
             f"f{a} = float(num{a} - b{a} * ({den})) / float({den})",
             f"ta{a} = f{a} + 1.0", f"tb{a} = 1.0 - f{a}", f"tc{a} = 2.0 - f{a}",
             f"w{a}_0 = (({A} * ta{a} - {5 * A}) * ta{a} + {8 * A}) * ta{a} - {4 * A}",
             f"w{a}_1 = (({A + 2} * f{a} - {A + 3}) * f{a}) * f{a} + 1.0",
             f"w{a}_2 = (({A + 2} * tb{a} - {A + 3}) * tb{a}) * tb{a} + 1.0",
             f"w{a}_3 = (({A} * tc{a} - {5 * A}) * tc{a} + {8 * A}) * tc{a} - {4 * A}"]
    lines += [f"i{a}_{j} = min(max(b{a} + {j - 1}, 0), {I} - 1)" for j in range(4)]
    return lines, [(f"i{a}_{j}", f"w{a}_{j}") for j in range(4)]


def _size_argument(g: OpGraph, n, d: int) -> str | None:
    """The name of the forward argument giving the output size (F.interpolate(x, size=target_size)), or None."""
    size = n.kwargs.get("size", n.args[1] if len(n.args) > 1 else None)
    arg = g.node(ref(size)) if ref(size) else None
    if arg is None or arg.kind != "placeholder" or arg.shape is not None or n.shape is None or len(n.shape) != d + 2 \
            or not arg.name.isidentifier() or arg.name in LOCALS | {"x", "A", "hw", "t"} or re.fullmatch(r"[A-Z]\d?|[a-z]\d", arg.name):
        return None
    return arg.name


def match(g: OpGraph, name: str) -> Emitted | None:
    nodes = work(g)
    ins = g.tensor_inputs
    if len(nodes) != 1 or nodes[0].op not in KNOWN or len(ins) != 1 or g.mutated:
        return None
    n, x = nodes[0], ins[0]
    attr = _size_argument(g, n, len(x.shape) - 2)
    if g.scalar_inputs and (attr is None or len(g.scalar_inputs) != 1):
        return None
    if ref(n.args[0]) != x.name or x.dtype not in FLOAT_DTYPES or not returns(g, n) or n.shape is None:
        return None
    mode = n.kwargs.get("mode", n.module.get("mode", "nearest"))
    corners = bool(n.kwargs.get("align_corners", n.module.get("align_corners")) or False)
    size, scale = n.kwargs.get("size", n.module.get("size")), n.kwargs.get("scale_factor", n.module.get("scale_factor"))
    d = len(x.shape) - 2
    if mode not in MODES or n.kwargs.get("recompute_scale_factor") or not 1 <= d <= 3 \
            or mode == "bicubic" and d != 2 or mode == "nearest" and corners:
        return None
    k = MODES[mode]
    if n.kwargs.get("antialias"):         # a linear filter widened by the downscale: k taps per axis, from the traced sizes
        if mode != "bilinear" or corners:
            return None
        mode, k = "aa", max(2 * -(-max(i, o) // o) + 1 for i, o in zip(x.shape[2:], n.shape[2:]))
    if attr is not None:           # the size is a forward argument: a list attribute, read at run time
        outs = [f"{attr}[{a}]" for a in range(d)]
    elif size is not None:
        sizes = size if isinstance(size, list) else [size] * d
        if len(sizes) != d or not all(isinstance(s, int) for s in sizes):
            return None
        outs = [str(s) for s in sizes]
    else:
        scales = scale if isinstance(scale, list) else [scale] * d
        if len(scales) != d or not all(isinstance(s, (int, float)) and s > 0 for s in scales):
            return None
        outs = [f"int(x.shape[{2 + a}] * {float(s)!r})" for a, s in enumerate(scales)]
    last = d - 1
    k_col = k
    combos_n = k ** last
    host = [f"I{a} = x.shape[{2 + a}]" for a in range(d)] + [f"O{a} = {outs[a]}" for a in range(d)]
    host += ["planes = x.shape[0] * x.shape[1]",
             "P = 1" + "".join(f" * O{a}" for a in range(last)) + "       # output rows of one plane",
             "Q = 1" + "".join(f" * I{a}" for a in range(last)) + "       # input rows of one plane",
             f"Wa = A.align_up(I{last}, A.elems_per_block(x.dtype))    # a loaded row padded to its 32-byte block",
             f"OWa = A.align_up(O{last}, 16)",
             "fixed = 4096",
             "# UB bytes per plane of a group: its source rows (2 slots), sf, bl; its column taps and weights, gt, acc,",
             "# the gather's index scratch, the output row (2 slots)",
             f"per_plane = ({combos_n} * 2 * x.dtype.size + 8) * Wa + ({8 * k_col} + 12 + 2 * x.dtype.size) * OWa",
             'assert fixed + per_plane < hw.ub_bytes - 8192, "one row of a plane, in and out, fits the UB"',
             "G = max(1, min(planes, (hw.ub_bytes - 8192 - fixed) // per_plane, 64))",
             "groups = A.ceil_div(planes, G)",
             "nb = max(1, min(hw.vector_cores, P * groups))"]
    fields = ["block_dim=nb", "planes=planes", "P=P", "Q=Q", "Wa=Wa", "OWa=OWa", "G=G", "groups=groups"]
    fields += [f"I{a}=I{a}, O{a}=O{a}" for a in range(d)]
    if corners:
        fields += [f"M{a}=(I{a} - 1 if O{a} > 1 else 0), E{a}=max(O{a} - 1, 1)" for a in range(d)]
    if mode == "aa":
        host += [f'assert 2 * A.ceil_div(max(I{a}, O{a}), O{a}) + 1 <= {k}, "the filter spans at most {k} taps (as traced)"'
                 for a in range(d)]
        fields += [f"S{a}=max(I{a}, O{a})" for a in range(d)]
    host.append("return A.Tiling(" + ", ".join(fields) + ")")
    W, OW = f"t.I{last}", f"t.O{last}"
    col_lines, col_taps = _taps(last, "ox", mode, corners, k)
    row_taps: list[list[tuple[str, str]]] = []
    per_row = ["pos = u // t.groups", "g0 = u % t.groups * t.G", "gn = min(t.G, t.planes - g0)"]
    for a in range(last):
        inner = "".join(f" * t.O{b}" for b in range(a + 1, last))
        per_row.append(f"o{a} = pos // (1{inner}) % t.O{a}")
        lines, taps = _taps(a, f"o{a}", mode, corners, k)
        per_row += lines
        row_taps.append(taps)
    combos = list(itertools.product(*row_taps)) if row_taps else [()]
    decls = [f"s{k} = A.ub(x.dtype, t.G * t.Wa)" for k in range(len(combos))]
    decls += ["sf = A.ub(A.f32, t.G * t.Wa)", "bl = A.ub(A.f32, t.G * t.Wa)"]
    decls += [f"cx{j} = A.ub(A.i32, t.G * t.OWa)" for j in range(k_col)]
    decls += [f"cw{j} = A.ub(A.f32, t.G * t.OWa)" for j in range(k_col)]
    decls += ["gt = A.ub(A.f32, t.G * t.OWa)", "acc = A.ub(A.f32, t.G * t.OWa)", "out = A.ub(y.dtype, t.G * t.OWa)"]
    # the column taps of plane 0, then each plane's copy shifted by its row of the blended tile
    table = [f"A.Duplicate(cx{j}, 0, t.G * t.OWa)" for j in range(k_col)]
    table += [f"A.Duplicate(cw{j}, 0.0, t.G * t.OWa)" for j in range(k_col)]
    table += [f"for ox in A.range(0, {OW}):"] + ["    " + line for line in col_lines]
    table += [f"    A.set(cx{j}, ox, {i})" for j, (i, _) in enumerate(col_taps)]
    table += [f"    A.set(cw{j}, ox, {w})" for j, (_, w) in enumerate(col_taps)]
    table += ["for g in A.range(1, t.G):"]
    table += [f"    A.Adds(cx{j}[g * t.OWa:], cx{j}, g * t.Wa, {OW})" for j in range(k_col)]
    table += [f"    A.copy(cw{j}[g * t.OWa:], cw{j}, {OW})" for j in range(k_col)]
    rows_once = mode == "nearest" and last > 0 and all(o >= i for i, o in zip(x.shape[2:-1], n.shape[2:-1]))
    if rows_once:                 # nearest upsampling: each source row once, stored to every output row it fills
        per_row, combos = ["pos = u // t.groups", "g0 = u % t.groups * t.G", "gn = min(t.G, t.planes - g0)"], [()]
        for a in range(last):
            inner = "".join(f" * t.I{b}" for b in range(a + 1, last))
            per_row += [f"q{a} = pos // (1{inner}) % t.I{a}", f"lo{a} = (q{a} * t.O{a} + t.I{a} - 1) // t.I{a}",
                        f"hi{a} = ((q{a} + 1) * t.O{a} + t.I{a} - 1) // t.I{a}"]
        host[-1:-1] = [f'assert O{a} >= I{a}, "nearest upsampling along the row axes (as traced)"' for a in range(last)]
        host = [h.replace("min(hw.vector_cores, P * groups)", "min(hw.vector_cores, Q * groups)") for h in host]
    body = list(per_row)
    span = "gn * t.Wa"
    for k, combo in enumerate(combos):
        src = "0"
        for a, (i, _) in enumerate(combo):
            src = f"({src} * t.I{a} + {i})" if src != "0" else i
        weight = " * ".join(w for _, w in combo) or "1.0"
        src = "pos" if rows_once else src
        body += [f"A.load(s{k}, x[(g0 * t.Q + {src}) * {W}:], {W}, rows=gn, src_stride=t.Q * {W}, dst_stride=t.Wa, "
                 "pad=0.0)", f'A.Cast({"sf" if k else "bl"}, s{k}, "none", {span})']
        if k:
            body += [f"A.Muls(sf, sf, {weight}, {span})", f"A.Add(bl, bl, sf, {span})"]
        elif combo:
            body.append(f"A.Muls(bl, bl, {weight}, {span})")
    cols = "gn * t.OWa"
    for j in range(k_col):
        if j == 0:
            body += [f"A.gather(acc, bl, cx0, {cols}, {span})"] + ([] if mode == "nearest" else [f"A.Mul(acc, acc, cw0, {cols})"])
        else:
            body += [f"A.gather(gt, bl, cx{j}, {cols}, {span})", f"A.Mul(gt, gt, cw{j}, {cols})",
                     f"A.Add(acc, acc, gt, {cols})"]
    cast = f'A.Cast(out, acc, "auto", {cols})'
    if rows_once:                 # the output tile lives in the loop of its store: cast there
        loops = [f"{'    ' * a}for o{a} in A.range(lo{a}, hi{a}):" for a in range(last)]
        at = "o0" + "".join(f" * t.O{a} + o{a}" for a in range(1, last))
        body += loops + ["    " * last + cast, "    " * last + f"A.store(y[(g0 * t.P + {at}) * {OW}:], out, {OW}, rows=gn, src_stride=t.OWa, "
                                           f"dst_stride=t.P * {OW})"]
    else:
        body += [cast, f"A.store(y[(g0 * t.P + pos) * {OW}:], out, {OW}, rows=gn, src_stride=t.OWa, dst_stride=t.P * {OW})"]
    out_shape = "(x.shape[0], x.shape[1], " + "".join(f"{outs[a]}, " for a in range(d)) + ")"
    given = f"size from the argument {attr}" if attr else f"size {size}" if size is not None else f"scale factor {scale}"
    how = f"{'bilinear, antialias' if mode == 'aa' else mode}, align_corners={corners}, {given}"
    X = ident(x.name, set(LOCALS))
    extra = f", {attr}" if attr else ""
    attrs = f', attrs={{"{attr}": {[int(v) for v in n.shape[2:]]}}}' if attr else ""
    code = f"""@A.tiling
def tiling(x, hw{extra}):
{indent(host, 1)}


@A.shapes
def shapes(x{extra}):
    return {{"y": {out_shape}}}


@A.kernel(inputs={{"x": {FLOATS}}}, outputs={{"y": "x"}}{attrs})
def {kernel_name(name)}(x, y, t):
{indent(decls + table, 1)}
    lo, hi = A.block_span(t.{'Q' if rows_once else 'P'} * t.groups)
    for u in A.range(lo, hi):          # u = {'source' if rows_once else 'output'} row position * groups + group of planes
{indent(body, 2)}
"""
    source = (doc(f"{name}: F.interpolate ({how}) of a {x.shape} tensor to {n.shape}: row taps on the scalar unit, "
                  "column taps gathered from the blended row, fp32 weights (written by the builtin writer).") + "\n\n"
              + re.sub(r"\bx\b", X, code))
    return Emitted("resize", f"F.interpolate ({how}) from {x.shape} to {n.shape}", source)
