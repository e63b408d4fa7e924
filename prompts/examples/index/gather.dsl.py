"""torch.gather(x, 1, idx) = torch.take_along_dim(x, idx, 1) on 2-D x: y[r, j] = x[r, idx[r, j]]. A row of
x sits in the UB; each chunk of its int64 indices is cast to int32 and gathered with the vector Gather."""
import adsl as A


@A.tiling
def tiling(x, idx, hw):
    R, W = x.shape
    J = idx.shape[1]
    nb = max(1, min(hw.vector_cores, R))
    chunk = min(J, 2048)
    return A.Tiling(block_dim=nb, R=R, W=W, J=J, chunk=chunk)


@A.shapes
def shapes(x, idx):
    return {"y": idx.shape}


@A.kernel(inputs={"x": (A.f32, A.f16), "idx": (A.i64, A.i64)}, outputs={"y": "x"})
def gather_rows(x, idx, y, t):
    row = A.ub(x.dtype, t.W)
    ids = A.ub(A.i64, t.chunk)
    ids32 = A.ub(A.i32, t.chunk)
    out = A.ub(y.dtype, t.chunk)
    r0, r1 = A.block_span(t.R)
    for r in A.range(r0, r1):
        A.load(row, x[r * t.W:], t.W)
        for j, n in A.tiles(0, t.J, t.chunk, stages=2):
            A.load(ids, idx[r * t.J + j:], n)
            A.Cast(ids32, ids, "none", n)
            A.gather(out, row, ids32, n, t.W)
            A.store(y[r * t.J + j:], out, n)
