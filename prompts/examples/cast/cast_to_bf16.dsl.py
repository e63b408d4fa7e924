"""Cast to bfloat16 from float32 or float16: through fp32 (there is no f16 -> bf16 Cast), then
f32 -> bf16 with round to nearest even (CAST_RINT; bf16 has no CAST_NONE)."""
import adsl as A


@A.tiling
def tiling(x, hw):
    nb = max(1, min(hw.vector_cores, A.ceil_div(x.numel, 2048)))
    per_elem = 2 * x.dtype.size + 2 * 2 + 4
    tile = A.align_down((hw.ub_bytes - 1024) // per_elem, 64)
    tile = max(64, min(tile, A.align_up(A.ceil_div(x.numel, 4 * nb), 64)))
    return A.Tiling(block_dim=nb, total=x.numel, tile=tile)


@A.kernel(inputs={"x": (A.f32, A.f16)}, outputs={"y": (A.bf16, A.bf16)})
def cast_to_bf16(x, y, t):
    xin = A.ub(x.dtype, t.tile)
    yout = A.ub(A.bf16, t.tile)
    w = A.ub(A.f32, t.tile)
    lo, hi = A.block_span(t.total, 16)
    for off, n in A.tiles(lo, hi, t.tile, stages=2):
        A.load(xin, x[off:], n)
        A.Cast(w, xin, "auto", n)
        A.Cast(yout, w, "rint", n)
        A.store(y[off:], yout, n)
