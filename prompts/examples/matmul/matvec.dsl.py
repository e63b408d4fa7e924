"""y = A @ v (torch.mv): a matrix-vector product on the cube unit, v as a K x 1 matrix. Blocks take row blocks
of A over the whole K (the cube pads N = 1 to a fractal: fine for a long K, where the GM traffic of A is the
cost either way)."""
import adsl as A


@A.tiling
def tiling(a, v, hw):
    M, K = a.shape
    bm = min(128, max(16, A.align_up(A.ceil_div(M, hw.cube_cores), 16)), M)
    rows = A.ceil_div(M, bm)
    return A.Tiling(block_dim=max(1, min(hw.cube_cores, rows)), M=M, K=K, bm=bm, rows=rows)


@A.shapes
def shapes(a, v):
    return {"y": (a.shape[0],)}


@A.kernel(inputs={"a": (A.f32,), "v": (A.f32,)}, outputs={"y": "a"})
def matvec(a, v, y, t):
    mm = A.cube(a, v, y, tile=(t.bm, 1, t.K), shape=(t.M, 1, t.K))
    lo, hi = A.block_span(t.rows)
    for i in A.range(lo, hi):
        m0 = i * t.bm
        A.matmul(mm, y[m0:], a[m0 * t.K:], v, min(t.bm, t.M - m0), 1, t.K)
