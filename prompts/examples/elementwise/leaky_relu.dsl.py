"""LeakyReLU: y = x if x >= 0 else negative_slope * x, elementwise over any shape."""
import adsl as A


@A.tiling
def tiling(x, hw, negative_slope):
    epb = A.elems_per_block(x.dtype)                  # elements per 32-byte block
    nb = max(1, min(hw.vector_cores, A.ceil_div(x.numel, 4 * epb)))
    per_elem = 2 * x.dtype.size + 2 * x.dtype.size    # xin and yout, two slots each
    tile = A.align_down((hw.ub_bytes - 8192) // per_elem, 256)
    share = A.align_up(A.ceil_div(x.numel, nb), epb)
    tile = max(epb, min(tile, A.align_up(A.ceil_div(share, 4), epb)))   # >= 4 tiles per block to overlap
    return A.Tiling(block_dim=nb, total=x.numel, tile=tile, slope=negative_slope)


@A.kernel(inputs={"x": (A.f32, A.f16)}, outputs={"y": "x"}, attrs={"negative_slope": 0.01})
def leaky_relu(x, y, t):
    xin = A.ub(x.dtype, t.tile)
    yout = A.ub(y.dtype, t.tile)
    lo, hi = A.block_span(t.total, A.elems_per_block(x.dtype))
    for off, n in A.tiles(lo, hi, t.tile, stages=2):
        A.load(xin, x[off:], n)
        A.LeakyRelu(yout, xin, t.slope, n)
        A.store(y[off:], yout, n)
