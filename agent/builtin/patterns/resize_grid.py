"""F.grid_sample(x, grid) on NCHW x (bilinear, zeros padding, align_corners either way), the grid an input
(N, Ho, Wo, 2) or F.affine_grid(theta, x.size()) computed in the kernel from theta's six numbers. Per output row
(plane, oh), all on the vector unit in fp32 over the row's Wo pixels:
  - the sampling positions ix, iy (the grid unnormalised), their floors x0, y0 and the four bilinear weights; a
    column tap outside [0, W) weighs 0 (it is clamped into the image, and |clamped - tap| turned into a 0/1 factor);
  - the source rows the row reads, [min y0, max y0 + 1] (reduce min/max), are loaded `cap` rows at a time (as many
    as the UB holds): a band; each row tap is clamped into the band the same way (a tap outside it weighs 0, so
    every tap counts in exactly one band), and the four taps are gathered from the band (vector Gather) and
    blended into the row's accumulator.
The vector work per output pixel is fixed (times the bands a row crosses); no scalar work per pixel."""
from __future__ import annotations

from kernelwright.agent.builtin.dslgen import FLOATS, doc, ident, kernel_name
from kernelwright.agent.builtin.graphview import FLOAT_DTYPES, OpGraph, ref
from kernelwright.agent.builtin.patterns import Emitted
from kernelwright.agent.builtin.patterns.common import work

KNOWN = {"grid_sample", "affine_grid"}
LOCALS = {"y", "gx", "gy", "x0", "y0", "wx0", "wx1", "wy0", "wy1", "xc0", "xc1", "yd", "yc", "wt", "ix", "ii", "v",
          "vf", "acc", "out", "xs", "th", "g2", "ev", "od", "k", "r", "p", "oh", "n_", "lo", "hi", "ly", "hy", "r0", "r1",
          "b0", "nr", "t00", "t01", "t02", "t10", "t11", "t12", "yn", "cx", "cy", "band"}


def match(g: OpGraph, name: str) -> Emitted | None:
    ops = work(g)
    out = g.single_output()
    gs = ops[-1] if ops else None
    if gs is None or gs.op != "grid_sample" or out is None or out.name != gs.name or g.mutated:
        return None
    if gs.kwargs.get("mode", "bilinear") != "bilinear" or gs.kwargs.get("padding_mode", "zeros") != "zeros" \
            or len(gs.args) != 2:
        return None
    x, grid = (g.node(ref(a)) if ref(a) else None for a in gs.args)
    if x is None or grid is None or x.kind != "placeholder" or x.dtype not in FLOAT_DTYPES or len(x.shape or []) != 4:
        return None
    corners = bool(gs.kwargs.get("align_corners", False))
    if grid.kind == "placeholder" and len(ops) == 1:
        if grid.dtype not in FLOAT_DTYPES or len(grid.shape or []) != 4 or grid.shape[3] != 2 \
                or grid.shape[0] != x.shape[0]:
            return None
        return _emit(x.name, grid.name, None, corners, name)
    if grid.op != "affine_grid" or len(ops) != 2 or len(grid.args) != 2:
        return None
    theta, size = (g.node(ref(a)) if ref(a) else None for a in grid.args)
    if theta is None or size is None or theta.kind != "placeholder" or theta.shape != [x.shape[0], 2, 3] \
            or theta.dtype not in FLOAT_DTYPES or size.op != "size" or ref(size.args[0]) != x.name or len(size.args) != 1:
        return None
    return _emit(x.name, theta.name, bool(grid.kwargs.get("align_corners", False)), corners, name)


def _unnormalise(corners: bool, n: str) -> tuple[str, str]:
    """(a, b) with index = g * a + b for a grid coordinate g in [-1, 1] over `n` pixels."""
    return (f"float({n} - 1) / 2.0", f"float({n} - 1) / 2.0") if corners else (f"float({n}) / 2.0",
                                                                                f"float({n} - 1) / 2.0")


def _taps(c: str) -> list[str]:
    """Kernel lines: the column taps x0 + c, clamped into the image, and their weights zeroed outside it."""
    return [f"A.Adds(yd, x0, {c}.0, t.Wo)", f"A.Maxs(xc{c}, yd, 0.0, t.Wo)", f"A.Mins(xc{c}, xc{c}, t.wmax, t.Wo)",
            *_inside(f"xc{c}"), f"A.Mul(wx{c}, wx{c}, wt, t.Wo)"]


def _inside(clamped: str) -> list[str]:
    """wt = 1 where the clamped tap equals the tap (yd), else 0 (both integers)."""
    return [f"A.Sub(wt, {clamped}, yd, t.Wo)", "A.Abs(wt, wt, t.Wo)", "A.Muls(wt, wt, -1.0, t.Wo)",
            "A.Adds(wt, wt, 1.0, t.Wo)", "A.Maxs(wt, wt, 0.0, t.Wo)"]


def _emit(xn: str, gn: str, affine_corners: bool | None, corners: bool, name: str) -> Emitted:
    taken = set(LOCALS)
    x, gin = ident(xn, taken), ident(gn, taken)
    affine = affine_corners is not None
    ax, bx = _unnormalise(corners, "W")
    ay, by = _unnormalise(corners, "H")
    if affine:        # affine_grid's base coordinates: x_w = w * sx + ox
        base = ("sx=2.0 / float(max(Wo - 1, 1)), ox=-1.0, sy=2.0 / float(max(Ho - 1, 1)), oy=-1.0" if affine_corners
                else "sx=2.0 / float(Wo), ox=1.0 / float(Wo) - 1.0, sy=2.0 / float(Ho), oy=1.0 / float(Ho) - 1.0")
        out_hw = "Ho = H\n    Wo = W"
        shape = f"{x}.shape"
        grid_decls = f"    xs = A.ub(A.f32, t.Wo)\n    th = A.ub({gin}.dtype, 8)\n    cx = A.ub(A.f32, 8)"
        setup = ("    for k in A.range(0, t.Wo):              # affine_grid's column coordinates\n"
                 "        A.set(xs, k, float(k) * t.sx + t.ox)")
        grid_lines = [f"A.load(th, {gin}[n_ * 6:], 6)", "A.Cast(cx, th, \"none\", 6)",
                      *(f"t{i}{j} = A.get(cx, {3 * i + j})" for i in range(2) for j in range(3)),
                      "yn = float(oh) * t.sy + t.oy", "cy = t01 * yn + t02", "A.Muls(gx, xs, t00, t.Wo)",
                      "A.Adds(gx, gx, cy, t.Wo)", "cy = t11 * yn + t12", "A.Muls(gy, xs, t10, t.Wo)",
                      "A.Adds(gy, gy, cy, t.Wo)"]
    else:
        base = ""
        out_hw = f"Ho = {gin}.shape[1]\n    Wo = {gin}.shape[2]"
        shape = f"({x}.shape[0], {x}.shape[1], {gin}.shape[1], {gin}.shape[2])"
        grid_decls = (f"    g2 = A.ub({gin}.dtype, 2 * t.Wo)\n    v2 = A.ub({gin}.dtype, t.Wo)\n"
                      "    ev = A.ub(A.i32, t.Wo)\n    od = A.ub(A.i32, t.Wo)")
        setup = ("    for k in A.range(0, t.Wo):              # the grid's interleaved (x, y) pairs\n"
                 "        A.set(ev, k, 2 * k)\n        A.set(od, k, 2 * k + 1)")
        grid_lines = [f"A.load(g2, {gin}[(n_ * t.Ho + oh) * 2 * t.Wo:], 2 * t.Wo)",
                      "A.gather(v2, g2, ev, t.Wo, 2 * t.Wo)", "A.Cast(gx, v2, \"none\", t.Wo)",
                      "A.gather(v2, g2, od, t.Wo, 2 * t.Wo)", "A.Cast(gy, v2, \"none\", t.Wo)"]
    body = grid_lines + [
        "A.Muls(gx, gx, t.ax, t.Wo)", "A.Adds(gx, gx, t.bx, t.Wo)",           # ix, iy: source positions
        "A.Muls(gy, gy, t.ay, t.Wo)", "A.Adds(gy, gy, t.by, t.Wo)",
        "A.Cast(ii, gx, \"floor\", t.Wo)", "A.Cast(x0, ii, \"none\", t.Wo)", "A.Sub(wx1, gx, x0, t.Wo)",
        "A.Muls(wx0, wx1, -1.0, t.Wo)", "A.Adds(wx0, wx0, 1.0, t.Wo)", *_taps("0"), *_taps("1"),
        "A.Cast(ii, gy, \"floor\", t.Wo)", "A.Cast(y0, ii, \"none\", t.Wo)", "A.Sub(wy1, gy, y0, t.Wo)",
        "A.Muls(wy0, wy1, -1.0, t.Wo)", "A.Adds(wy0, wy0, 1.0, t.Wo)",
        "ly = A.reduce_min(y0, t.Wo)", "hy = A.reduce_max(y0, t.Wo)",
        "r0 = int(min(max(ly, 0.0), t.hmax + 1.0))", "r1 = int(max(min(hy + 1.0, t.hmax), -1.0))",
        "A.Duplicate(acc, 0.0, t.Wo)"]
    band = ["nr = min(t.cap, r1 + 1 - b0)", f"A.load(band, {x}[(p * t.H + b0) * t.W:], nr * t.W)"]
    for c in "01":
        band += [f"A.Adds(yd, y0, {c}.0, t.Wo)", "A.Maxs(yc, yd, float(b0), t.Wo)",
                 "A.Mins(yc, yc, float(b0 + nr - 1), t.Wo)", *_inside("yc"), f"A.Mul(wt, wt, wy{c}, t.Wo)",
                 "A.Adds(yc, yc, float(0 - b0), t.Wo)", "A.Muls(yc, yc, float(t.W), t.Wo)"]
        for d in "01":
            band += [f"A.Add(ix, yc, xc{d}, t.Wo)", "A.Cast(ii, ix, \"round\", t.Wo)",
                     "A.gather(v, band, ii, t.Wo, nr * t.W)", "A.Cast(vf, v, \"none\", t.Wo)",
                     "A.Mul(vf, vf, wt, t.Wo)", f"A.Mul(vf, vf, wx{d}, t.Wo)", "A.Add(acc, acc, vf, t.Wo)"]
    kernel_body = "\n".join("        " + s for s in body) + "\n        for b0 in A.range(r0, r1 + 1, t.cap):   # bands\n" \
        + "\n".join("            " + s for s in band)
    fields = f"ax={ax}, bx={bx}, ay={ay}, by={by}" + (f", {base}" if base else "")
    what = ("affine_grid(theta, x.size()) in the kernel, then " if affine else "") + \
        f"grid_sample (bilinear, zeros padding, align_corners={corners})"
    source = doc(f"{name}: {what}: per output row the sampling positions and bilinear weights on the vector unit, "
                 "the source rows it reads loaded band by band and its four taps gathered (written by the builtin "
                 "writer).") + f'''

@A.tiling
def tiling({x}, {gin}, hw):
    N, C, H, W = {x}.shape
    {out_hw}
    rows = N * C * Ho
    nb = max(1, min(hw.vector_cores, rows))
    # UB: 22 row tiles of Wo (fp32 or narrower) and the band of source rows
    cap = min(H, (hw.ub_bytes - 16384 - 88 * A.align_up(Wo, 8) - 8 * A.align_up(2 * Wo, 8)) // (4 * W))
    assert cap >= 2, "an output row or a source row too wide for the UB"
    return A.Tiling(block_dim=nb, C=C, H=H, W=W, Ho=Ho, Wo=Wo, rows=rows, cap=cap, wmax=float(W - 1),
                    hmax=float(H - 1), {fields})


@A.shapes
def shapes({x}, {gin}):
    return {{"y": {shape}}}


@A.kernel(inputs={{"{x}": {FLOATS}, "{gin}": {FLOATS}}}, outputs={{"y": "{x}"}})
def {kernel_name(name)}({x}, {gin}, y, t):
    band = A.ub({x}.dtype, t.cap * t.W)         # source rows [b0, b0 + nr) of the plane
{grid_decls}
    gx = A.ub(A.f32, t.Wo)
    gy = A.ub(A.f32, t.Wo)
    x0 = A.ub(A.f32, t.Wo)
    y0 = A.ub(A.f32, t.Wo)
    wx0 = A.ub(A.f32, t.Wo)
    wx1 = A.ub(A.f32, t.Wo)
    wy0 = A.ub(A.f32, t.Wo)
    wy1 = A.ub(A.f32, t.Wo)
    xc0 = A.ub(A.f32, t.Wo)
    xc1 = A.ub(A.f32, t.Wo)
    yd = A.ub(A.f32, t.Wo)
    yc = A.ub(A.f32, t.Wo)
    wt = A.ub(A.f32, t.Wo)
    ix = A.ub(A.f32, t.Wo)
    ii = A.ub(A.i32, t.Wo)
    v = A.ub({x}.dtype, t.Wo)
    vf = A.ub(A.f32, t.Wo)
    acc = A.ub(A.f32, t.Wo)
    out = A.ub(y.dtype, t.Wo)
{setup}
    lo, hi = A.block_span(t.rows)
    for r in A.range(lo, hi):                   # r = plane * Ho + oh
        p = r // t.Ho
        oh = r % t.Ho
        n_ = p // t.C
{kernel_body}
        A.Cast(out, acc, "auto", t.Wo)
        A.store(y[r * t.Wo:], out, t.Wo)
'''
    return Emitted("resize", what, source)
