"""nn.Linear: y = x @ weight^T + bias, cube-only (the bias row is added by the cube unit, no vector work)."""
import adsl as A


@A.tiling
def tiling(x, weight, bias, hw):
    M, K = x.shape
    N = weight.shape[0]
    bm = min(128, M)
    bn = min(256, N)
    tn = A.ceil_div(N, bn)
    tiles = A.ceil_div(M, bm) * tn
    return A.Tiling(block_dim=max(1, min(hw.cube_cores, tiles)), M=M, N=N, K=K, bm=bm, bn=bn, tn=tn, tiles=tiles)


@A.shapes
def shapes(x, weight, bias):
    return {"y": (x.shape[0], weight.shape[0])}


@A.kernel(inputs={"x": (A.f32,), "weight": (A.f32,), "bias": (A.f32,)}, outputs={"y": (A.f32,)})
def linear(x, weight, bias, y, t):
    mm = A.cube(x, weight, y, tile=(t.bm, t.bn, t.K), shape=(t.M, t.N, t.K), trans_b=True, bias=bias)
    lo, hi = A.block_span(t.tiles)
    for i in A.range(lo, hi):
        m0 = i // t.tn * t.bm
        n0 = i % t.tn * t.bn
        A.matmul(mm, y[m0 * t.N + n0:], x[m0 * t.K:], weight[n0 * t.K:], min(t.bm, t.M - m0), min(t.bn, t.N - n0),
                 t.K, bias=bias[n0:])
