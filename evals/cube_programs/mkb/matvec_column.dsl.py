"""y = A @ B with B a K x 1 column (torch.matmul(A, B) with B of shape (K, 1)): an N = 1 GEMM over row blocks."""
import adsl as A


@A.tiling
def tiling(a, b, hw):
    M, K = a.shape
    bm = min(128, max(16, A.align_up(A.ceil_div(M, hw.cube_cores), 16)), M)
    rows = A.ceil_div(M, bm)
    return A.Tiling(block_dim=max(1, min(hw.cube_cores, rows)), M=M, K=K, bm=bm, rows=rows)


@A.shapes
def shapes(a, b):
    return {"c": (a.shape[0], 1)}


@A.kernel(inputs={"a": (A.f32,), "b": (A.f32,)}, outputs={"c": (A.f32,)})
def matvec_column(a, b, c, t):
    mm = A.cube(a, b, c, tile=(t.bm, 1, t.K), shape=(t.M, 1, t.K))
    lo, hi = A.block_span(t.rows)
    for i in A.range(lo, hi):
        m0 = i * t.bm
        A.matmul(mm, c[m0:], a[m0 * t.K:], b, min(t.bm, t.M - m0), 1, t.K)
