"""torch.index_select(x, 0, idx): for every index, its row of x. The
indices come in chunks; each one is read on the scalar unit, checked against the table's rows, and its
row copied GM -> UB -> GM."""
import adsl as A


@A.tiling
def tiling(x, idx, hw):
    n = idx.numel
    V, D = x.shape
    nb = max(1, min(hw.vector_cores, n))
    chunk = min(n, 1024)
    cols = min(D, 8192 // x.dtype.size)
    return A.Tiling(block_dim=nb, n=n, V=V, D=D, chunk=chunk, cols=cols)


@A.shapes
def shapes(x, idx):
    return {"y": idx.shape + x.shape[1:]}


@A.kernel(inputs={"x": (A.f32, A.f16), "idx": (A.i64, A.i64)}, outputs={"y": "x"})
def index_select_rows(x, idx, y, t):
    ids = A.ub(A.i64, t.chunk)
    rin = A.ub(x.dtype, t.cols)
    rout = A.ub(y.dtype, t.cols)
    lo, hi = A.block_span(t.n)
    for i0, m in A.tiles(lo, hi, t.chunk):
        A.load(ids, idx[i0:], m)
        for i in A.range(0, m):
            r = A.get(ids, i, bound=t.V)
            for c, w in A.tiles(0, t.D, t.cols, stages=2):
                A.load(rin, x[r * t.D + c:], w)
                A.copy(rout, rin, w)
                A.store(y[(i0 + i) * t.D + c:], rout, w)
