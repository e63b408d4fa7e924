"""F.interpolate over 1, 2 or 3 spatial axes: nearest, (bi/tri)linear and bicubic, align_corners either
way, by size or by scale factor. It generalises the DSL's resize/bilinear example: the source
coordinate of an output index is kept exact in integers (num / den), every axis but the last gives
row taps (index, weight) on the scalar unit per output row, the taps of the last axis are built once per
block into index and weight tiles; a row blends its source rows (vector Muls/Add in fp32), then gathers
the column taps of the blended row and blends them. Not covered: antialias, a size given as a forward
argument, area and nearest-exact modes."""
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
LOCALS = {"y", "t", "r", "q", "ox", "plane", "rows", "nb", "sf", "bl", "gt", "acc", "out", "lo", "hi"}


def _taps(a: int, o: str, mode: str, corners: bool) -> tuple[list[str], list[tuple[str, str]]]:
    """Kernel lines computing the taps of axis `a` at output index `o`, and the (index, weight) names."""
    I, O = f"t.I{a}", f"t.O{a}"
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
             f"g{a} = f{a} + 1.0", f"h{a} = 1.0 - f{a}", f"k{a} = 2.0 - f{a}",
             f"w{a}_0 = (({A} * g{a} - {5 * A}) * g{a} + {8 * A}) * g{a} - {4 * A}",
             f"w{a}_1 = (({A + 2} * f{a} - {A + 3}) * f{a}) * f{a} + 1.0",
             f"w{a}_2 = (({A + 2} * h{a} - {A + 3}) * h{a}) * h{a} + 1.0",
             f"w{a}_3 = (({A} * k{a} - {5 * A}) * k{a} + {8 * A}) * k{a} - {4 * A}"]
    lines += [f"i{a}_{j} = min(max(b{a} + {j - 1}, 0), {I} - 1)" for j in range(4)]
    return lines, [(f"i{a}_{j}", f"w{a}_{j}") for j in range(4)]


def match(g: OpGraph, name: str) -> Emitted | None:
    nodes = work(g)
    ins = g.tensor_inputs
    if len(nodes) != 1 or nodes[0].op not in KNOWN or len(ins) != 1 or g.scalar_inputs or g.mutated:
        return None
    n, x = nodes[0], ins[0]
    if ref(n.args[0]) != x.name or x.dtype not in FLOAT_DTYPES or not returns(g, n) or n.shape is None:
        return None
    mode = n.kwargs.get("mode", n.module.get("mode", "nearest"))
    corners = bool(n.kwargs.get("align_corners", n.module.get("align_corners")) or False)
    size, scale = n.kwargs.get("size", n.module.get("size")), n.kwargs.get("scale_factor", n.module.get("scale_factor"))
    d = len(x.shape) - 2
    if mode not in MODES or n.kwargs.get("antialias") or n.kwargs.get("recompute_scale_factor") or not 1 <= d <= 3 \
            or mode == "bicubic" and d != 2 or mode == "nearest" and corners:
        return None
    if size is not None:
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
    k_col = MODES[mode]
    host = [f"I{a} = x.shape[{2 + a}]" for a in range(d)] + [f"O{a} = {outs[a]}" for a in range(d)]
    host += [f"rows = x.shape[0] * x.shape[1]" + "".join(f" * O{a}" for a in range(last)),
             f"assert (4 * {k_col} + 8) * O{last} + ({MODES[mode] ** last} * x.dtype.size + 12) * I{last} < "
             "hw.ub_bytes - 4096, \"one row of the input and of the output fit the UB\"",
             "nb = max(1, min(hw.vector_cores, rows))"]
    fields = ["block_dim=nb", "rows=rows"] + [f"I{a}=I{a}, O{a}=O{a}" for a in range(d)]
    if corners:
        fields += [f"M{a}=(I{a} - 1 if O{a} > 1 else 0), E{a}=max(O{a} - 1, 1)" for a in range(d)]
    host.append("return A.Tiling(" + ", ".join(fields) + ")")
    W, OW = f"t.I{last}", f"t.O{last}"
    col_lines, col_taps = _taps(last, "ox", mode, corners)
    row_taps: list[list[tuple[str, str]]] = []
    per_row = ["plane = r // t.P", "q = r % t.P"]
    for a in range(last):
        inner = "".join(f" * t.O{b}" for b in range(a + 1, last))
        per_row.append(f"o{a} = q // (1{inner}) % t.O{a}")
        lines, taps = _taps(a, f"o{a}", mode, corners)
        per_row += lines
        row_taps.append(taps)
    fields_p = " * ".join(f"O{a}" for a in range(last)) or "1"
    host[-1] = host[-1][:-1] + f", P={fields_p})"
    combos = list(itertools.product(*row_taps)) if row_taps else [()]
    decls = [f"s{k} = A.ub(x.dtype, {W})" for k in range(len(combos))]
    decls += ["sf = A.ub(A.f32, " + W + ")", "bl = A.ub(A.f32, " + W + ")"]
    decls += [f"cx{j} = A.ub(A.i32, {OW})" for j in range(k_col)] + [f"cw{j} = A.ub(A.f32, {OW})" for j in range(k_col)]
    decls += [f"gt = A.ub(A.f32, {OW})", f"acc = A.ub(A.f32, {OW})", f"out = A.ub(y.dtype, {OW})"]
    table = [f"for ox in A.range(0, {OW}):"] + ["    " + line for line in col_lines]
    table += [f"    A.set(cx{j}, ox, {i})" for j, (i, _) in enumerate(col_taps)]
    table += [f"    A.set(cw{j}, ox, {w})" for j, (_, w) in enumerate(col_taps)]
    body = list(per_row)
    for k, combo in enumerate(combos):
        src = "plane"
        for a, (i, _) in enumerate(combo):
            src = f"({src} * t.I{a} + {i})"
        weight = " * ".join(w for _, w in combo) or "1.0"
        body += [f"A.load(s{k}, x[{src} * {W}:], {W})", f'A.Cast(sf, s{k}, "none", {W})' if k else
                 f'A.Cast(bl, s{k}, "none", {W})']
        if k:
            body += [f"A.Muls(sf, sf, {weight}, {W})", f"A.Add(bl, bl, sf, {W})"]
        elif combo:
            body.append(f"A.Muls(bl, bl, {weight}, {W})")
    for j in range(k_col):
        if j == 0:
            body += [f"A.gather(acc, bl, cx0, {OW}, {W})", f"A.Mul(acc, acc, cw0, {OW})"]
        else:
            body += [f"A.gather(gt, bl, cx{j}, {OW}, {W})", f"A.Mul(gt, gt, cw{j}, {OW})", f"A.Add(acc, acc, gt, {OW})"]
    body += [f'A.Cast(out, acc, "auto", {OW})', f"A.store(y[r * {OW}:], out, {OW})"]
    out_shape = "(x.shape[0], x.shape[1], " + "".join(f"{outs[a]}, " for a in range(d)) + ")"
    how = f"{mode}, align_corners={corners}, " + (f"size {size}" if size is not None else f"scale factor {scale}")
    X = ident(x.name, set(LOCALS))
    code = f"""@A.tiling
def tiling(x, hw):
{indent(host, 1)}


@A.shapes
def shapes(x):
    return {{"y": {out_shape}}}


@A.kernel(inputs={{"x": {FLOATS}}}, outputs={{"y": "x"}})
def {kernel_name(name)}(x, y, t):
{indent(decls + table, 1)}
    lo, hi = A.block_span(t.rows)
    for r in A.range(lo, hi):
{indent(body, 2)}
"""
    source = (doc(f"{name}: F.interpolate ({how}) of a {x.shape} tensor to {n.shape}: row taps on the scalar unit, "
                  "column taps gathered from the blended row, fp32 weights (written by the builtin writer).") + "\n\n"
              + re.sub(r"\bx\b", X, code))
    return Emitted("resize", f"F.interpolate ({how}) from {x.shape} to {n.shape}", source)
