"""torch.bmm / batched matmul: C[b] = A[b] @ B[b] for 3-D A (batch, M, K) and B (batch, K, N). The work is the
batch x row-block x column-block grid of C; one cube unit serves every batch (the offsets move by a matrix)."""
import adsl as A


@A.tiling
def tiling(a, b, hw):
    batch, M, K = a.shape
    N = b.shape[2]
    bm = min(128, M)
    bn = min(256, N)
    tn = A.ceil_div(N, bn)
    per = A.ceil_div(M, bm) * tn
    tiles = batch * per
    return A.Tiling(block_dim=max(1, min(hw.cube_cores, tiles)), M=M, N=N, K=K, bm=bm, bn=bn, tn=tn, per=per,
                    tiles=tiles)


@A.shapes
def shapes(a, b):
    return {"c": (a.shape[0], a.shape[1], b.shape[2])}


@A.kernel(inputs={"a": (A.f32, A.f16), "b": (A.f32, A.f16)}, outputs={"c": "a"})
def batched_matmul(a, b, c, t):
    mm = A.cube(a, b, c, tile=(t.bm, t.bn, t.K), shape=(t.M, t.N, t.K))
    lo, hi = A.block_span(t.tiles)
    for i in A.range(lo, hi):
        bi = i // t.per
        m0 = i % t.per // t.tn * t.bm
        n0 = i % t.tn * t.bn
        A.matmul(mm, c[(bi * t.M + m0) * t.N + n0:], a[(bi * t.M + m0) * t.K:], b[bi * t.K * t.N + n0:],
                 min(t.bm, t.M - m0), min(t.bn, t.N - n0), t.K)
