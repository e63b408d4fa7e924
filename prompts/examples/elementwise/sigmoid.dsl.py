"""Sigmoid: y = 1 / (1 + exp(-x))."""
import adsl as A


@A.tiling
def tiling(x, hw):
    nb = max(1, min(hw.vector_cores, A.ceil_div(x.numel, 2048)))     # at least 2048 elements per block
    # UB bytes per tile element: xin and yout (two slots each) + 2 fp32 scratch tile(s) + the advanced API's temporary (two fp32 tiles)
    per_elem = 4 * x.dtype.size + 8 + 8
    tile = A.align_down((hw.ub_bytes - 1024) // per_elem, 64)
    tile = max(64, min(tile, A.align_up(A.ceil_div(x.numel, 4 * nb), 64)))   # >= 4 tiles per block
    return A.Tiling(block_dim=nb, total=x.numel, tile=tile)


@A.kernel(inputs={"x": (A.f32, A.f16, A.bf16)}, outputs={"y": "x"})
def sigmoid(x, y, t):
    xin = A.ub(x.dtype, t.tile)
    yout = A.ub(y.dtype, t.tile)
    v = A.ub(A.f32, t.tile)
    u = A.ub(A.f32, t.tile)
    lo, hi = A.block_span(t.total, A.elems_per_block(x.dtype))
    for off, n in A.tiles(lo, hi, t.tile, stages=2):
        A.load(xin, x[off:], n)
        A.Cast(v, xin, "auto", n)                  # compute in fp32 for every input dtype
        A.Sigmoid(u, v, n)
        A.Cast(yout, u, "auto", n)
        A.store(y[off:], yout, n)
