"""x.masked_fill(mask, 0.0) with a bool mask of x's shape: y = where(mask, 0, x), elementwise in tiles."""
import adsl as A


@A.tiling
def tiling(x, mask, hw):
    total = x.numel
    nb = max(1, min(hw.vector_cores, A.ceil_div(total, 2048)))
    return A.Tiling(block_dim=nb, total=total, tile=4096)


@A.kernel(inputs={"x": (A.f32, A.f16), "mask": (A.bool, A.bool)}, outputs={"y": "x"})
def masked_fill_zero(x, mask, y, t):
    xin = A.ub(x.dtype, t.tile)
    cond = A.ub(A.bool, t.tile)
    yout = A.ub(y.dtype, t.tile)
    lo, hi = A.block_span(t.total, 32)
    for off, n in A.tiles(lo, hi, t.tile, stages=2):
        A.load(xin, x[off:], n)
        A.load(cond, mask[off:], n)
        A.where(yout, cond, 0.0, xin, n)
        A.store(y[off:], yout, n)
