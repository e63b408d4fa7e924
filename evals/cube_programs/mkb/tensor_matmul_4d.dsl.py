"""C[b, i, j, k] = sum_l A[b, i, j, l] * B[l, k] (einsum "bijl,lk->bijk"): one GEMM of (b*i*j) x l by l x k."""
import adsl as A


@A.tiling
def tiling(A_, B, hw):
    L = A_.shape[-1]
    M = A_.numel // L
    N = B.shape[1]
    bm = min(128, M)
    bn = min(256, N)
    tn = A.ceil_div(N, bn)
    tiles = A.ceil_div(M, bm) * tn
    return A.Tiling(block_dim=max(1, min(hw.cube_cores, tiles)), M=M, N=N, K=L, bm=bm, bn=bn, tn=tn, tiles=tiles)


@A.shapes
def shapes(A_, B):
    return {"C": A_.shape[:-1] + B.shape[1:]}


@A.kernel(inputs={"A_": (A.f32,), "B": (A.f32,)}, outputs={"C": (A.f32,)})
def tensor_matmul_4d(A_, B, C, t):
    mm = A.cube(A_, B, C, tile=(t.bm, t.bn, t.K), shape=(t.M, t.N, t.K))
    lo, hi = A.block_span(t.tiles)
    for i in A.range(lo, hi):
        m0 = i // t.tn * t.bm
        n0 = i % t.tn * t.bn
        A.matmul(mm, C[m0 * t.N + n0:], A_[m0 * t.K:], B[n0:], min(t.bm, t.M - m0), min(t.bn, t.N - n0), t.K)
