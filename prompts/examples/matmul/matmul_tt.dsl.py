"""C = A^T @ B^T from A stored as K x M and B stored as N x K (torch.matmul(A.T, B.T)): the cube unit reads
both operands transposed (trans_a, trans_b: the lowering picks the transposing loads), so nothing is copied."""
import adsl as A


@A.tiling
def tiling(a, b, hw):
    K, M = a.shape
    N = b.shape[0]
    bm = min(128, M)
    bn = min(256, N)
    tn = A.ceil_div(N, bn)
    tiles = A.ceil_div(M, bm) * tn
    return A.Tiling(block_dim=max(1, min(hw.cube_cores, tiles)), M=M, N=N, K=K, bm=bm, bn=bn, tn=tn, tiles=tiles)


@A.shapes
def shapes(a, b):
    return {"c": (a.shape[1], b.shape[0])}


@A.kernel(inputs={"a": (A.f32,), "b": (A.f32,)}, outputs={"c": "a"})
def matmul_tt(a, b, c, t):
    mm = A.cube(a, b, c, tile=(t.bm, t.bn, t.K), shape=(t.M, t.N, t.K), trans_a=True, trans_b=True)
    lo, hi = A.block_span(t.tiles)
    for i in A.range(lo, hi):
        m0 = i // t.tn * t.bm
        n0 = i % t.tn * t.bn
        A.matmul(mm, c[m0 * t.N + n0:], a[m0:], b[n0 * t.K:], min(t.bm, t.M - m0), min(t.bn, t.N - n0), t.K)
