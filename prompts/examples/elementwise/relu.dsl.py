"""ReLU: y = max(x, 0)."""
import adsl as A


@A.tiling
def tiling(x, hw):
    nb = max(1, min(hw.vector_cores, A.ceil_div(x.numel, 2048)))     # at least 2048 elements per block
    # UB bytes per tile element: xin and yout (two slots each) + 1 fp32 scratch tile(s)
    per_elem = 4 * x.dtype.size + 4
    tile = A.align_down((hw.ub_bytes - 1024) // per_elem, 64)
    tile = max(64, min(tile, A.align_up(A.ceil_div(x.numel, 4 * nb), 64)))   # >= 4 tiles per block
    return A.Tiling(block_dim=nb, total=x.numel, tile=tile)


@A.kernel(inputs={"x": (A.f32, A.f16, A.bf16)}, outputs={"y": "x"})
def relu(x, y, t):
    xin = A.ub(x.dtype, t.tile)
    yout = A.ub(y.dtype, t.tile)
    v = A.ub(A.f32, t.tile)
    lo, hi = A.block_span(t.total, A.elems_per_block(x.dtype))
    for off, n in A.tiles(lo, hi, t.tile, stages=2):
        A.load(xin, x[off:], n)
        A.Cast(v, xin, "auto", n)                  # compute in fp32 for every input dtype
        A.Relu(v, v, n)
        A.Cast(yout, v, "auto", n)
        A.store(y[off:], yout, n)
