"""nn.Embedding(num, dim)(idx) = index_select(weight, 0, idx): for every index, its row of the table. The
indices come in chunks; each one is read on the scalar unit, checked against the table's rows, and its
row copied GM -> UB -> GM."""
import adsl as A


@A.tiling
def tiling(idx, weight, hw):
    n = idx.numel
    V, D = weight.shape
    nb = max(1, min(hw.vector_cores, n))
    chunk = min(n, 1024)
    cols = min(D, 8192 // weight.dtype.size)
    return A.Tiling(block_dim=nb, n=n, V=V, D=D, chunk=chunk, cols=cols)


@A.shapes
def shapes(idx, weight):
    return {"y": idx.shape + weight.shape[1:]}


@A.kernel(inputs={"idx": (A.i64,), "weight": (A.f32,)}, outputs={"y": "weight"})
def embedding(idx, weight, y, t):
    ids = A.ub(A.i64, t.chunk)
    rin = A.ub(weight.dtype, t.cols)
    rout = A.ub(y.dtype, t.cols)
    lo, hi = A.block_span(t.n)
    for i0, m in A.tiles(lo, hi, t.chunk):
        A.load(ids, idx[i0:], m)
        for i in A.range(0, m):
            r = A.get(ids, i, bound=t.V)
            for c, w in A.tiles(0, t.D, t.cols, stages=2):
                A.load(rin, weight[r * t.D + c:], w)
                A.copy(rout, rin, w)
                A.store(y[(i0 + i) * t.D + c:], rout, w)
