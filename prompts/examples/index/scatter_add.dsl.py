"""x.scatter_add(1, idx, src) on 2-D tensors: y = x, then y[r, idx[r, j]] += src[r, j] for every j in order.
A row of y is built in the UB (a copy of x's row), the indices and sources come in chunks, and the adds run
on the scalar unit (A2/A3 have no vector scatter), each index checked against the row length."""
import adsl as A


@A.tiling
def tiling(x, idx, src, hw):
    R, W = x.shape
    J = idx.shape[1]
    nb = max(1, min(hw.vector_cores, R))
    chunk = min(J, 1024)
    return A.Tiling(block_dim=nb, R=R, W=W, J=J, chunk=chunk)


@A.kernel(inputs={"x": (A.f32,), "idx": (A.i64,), "src": (A.f32,)}, outputs={"y": "x"})
def scatter_add_rows(x, idx, src, y, t):
    xin = A.ub(x.dtype, t.W)
    yout = A.ub(y.dtype, t.W)
    ids = A.ub(A.i64, t.chunk)
    vals = A.ub(src.dtype, t.chunk)
    r0, r1 = A.block_span(t.R)
    for r in A.range(r0, r1):
        A.load(xin, x[r * t.W:], t.W)
        A.copy(yout, xin, t.W)
        for j, n in A.tiles(0, t.J, t.chunk):
            A.load(ids, idx[r * t.J + j:], n)
            A.load(vals, src[r * t.J + j:], n)
            A.scatter_add(yout, ids, vals, n, t.W)
        A.store(y[r * t.W:], yout, t.W)
