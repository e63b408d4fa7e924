"""torch.where(cond, a, b) with a bool condition and two tensors of one shape, elementwise in tiles."""
import adsl as A


@A.tiling
def tiling(cond, a, b, hw):
    total = a.numel
    nb = max(1, min(hw.vector_cores, A.ceil_div(total, 2048)))
    return A.Tiling(block_dim=nb, total=total, tile=4096)


@A.shapes
def shapes(cond, a, b):
    return {"y": a.shape}


@A.kernel(inputs={"cond": (A.bool,), "a": (A.f32,), "b": (A.f32,)}, outputs={"y": "a"})
def where(cond, a, b, y, t):
    cin = A.ub(A.bool, t.tile)
    ain = A.ub(a.dtype, t.tile)
    bin = A.ub(b.dtype, t.tile)
    yout = A.ub(y.dtype, t.tile)
    lo, hi = A.block_span(t.total, 32)
    for off, n in A.tiles(lo, hi, t.tile, stages=2):
        A.load(cin, cond[off:], n)
        A.load(ain, a[off:], n)
        A.load(bin, b[off:], n)
        A.where(yout, cin, ain, bin, n)
        A.store(y[off:], yout, n)
