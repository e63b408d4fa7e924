"""C = A @ B on the cube unit: each block computes whole bm x bn tiles of C over the full K."""
import adsl as A


@A.tiling
def tiling(a, b, hw):
    M, K = a.shape
    N = b.shape[1]
    bm = min(128, M)
    bn = min(256, N)
    tn = A.ceil_div(N, bn)
    tiles = A.ceil_div(M, bm) * tn
    return A.Tiling(block_dim=max(1, min(hw.cube_cores, tiles)), M=M, N=N, K=K, bm=bm, bn=bn, tn=tn, tiles=tiles)


@A.shapes
def shapes(a, b):
    return {"c": (a.shape[0], b.shape[1])}


@A.kernel(inputs={"a": (A.f32, A.f16), "b": (A.f32, A.f16)}, outputs={"c": "a"})
def cube_matmul(a, b, c, t):
    mm = A.cube(a, b, c, tile=(t.bm, t.bn, t.K), shape=(t.M, t.N, t.K))
    lo, hi = A.block_span(t.tiles)
    for i in A.range(lo, hi):
        m0 = i // t.tn * t.bm
        n0 = i % t.tn * t.bn
        A.matmul(mm, c[m0 * t.N + n0:], a[m0 * t.K:], b[n0:], min(t.bm, t.M - m0), min(t.bn, t.N - n0), t.K)
