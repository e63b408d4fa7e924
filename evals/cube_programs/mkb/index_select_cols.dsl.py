"""torch.index_select(x, 1, indices) on 2-D x: y[r, j] = x[r, indices[j]]. The indices are loaded once per chunk
and cast to int32; each row of x sits in the UB and is gathered through them."""
import adsl as A


@A.tiling
def tiling(x, indices, hw):
    R, W = x.shape
    J = indices.numel
    nb = max(1, min(hw.vector_cores, R))
    chunk = min(J, 2048)
    return A.Tiling(block_dim=nb, R=R, W=W, J=J, chunk=chunk)


@A.shapes
def shapes(x, indices):
    return {"y": (x.shape[0], indices.shape[0])}


@A.kernel(inputs={"x": (A.f32,), "indices": (A.i64,)}, outputs={"y": (A.f32,)})
def index_select_cols(x, indices, y, t):
    row = A.ub(A.f32, t.W)
    ids = A.ub(A.i64, t.chunk)
    ids32 = A.ub(A.i32, t.chunk)
    out = A.ub(A.f32, t.chunk)
    r0, r1 = A.block_span(t.R)
    for r in A.range(r0, r1):
        A.load(row, x[r * t.W:], t.W)
        for j, n in A.tiles(0, t.J, t.chunk):
            A.load(ids, indices[j:], n)
            A.Cast(ids32, ids, "none", n)
            A.gather(out, row, ids32, n, t.W)
            A.store(y[r * t.J + j:], out, n)
