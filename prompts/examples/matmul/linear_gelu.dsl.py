"""y = gelu(x @ weight^T + bias): nn.Linear then exact GELU, a MIX kernel. The cube computes each bm x bn block
of x @ weight^T + bias (weight is [out, in]: a transposed B) into a UB tile in fp32, m rows of align_up(n, 8)
lanes; the vector unit applies GELU and stores the rows. Two vector cores share each cube core."""
import adsl as A


@A.tiling
def tiling(x, weight, bias, hw):
    M, K = x.shape
    N = weight.shape[0]
    bm = min(64, M)
    bn = min(128, N)
    tn = A.ceil_div(N, bn)
    tiles = A.ceil_div(M, bm) * tn
    lanes = bm * A.align_up(bn, 8)
    return A.Tiling(block_dim=max(1, min(hw.vector_cores, tiles)), M=M, N=N, K=K, bm=bm, bn=bn, tn=tn, tiles=tiles,
                    lanes=lanes)


@A.shapes
def shapes(x, weight, bias):
    return {"y": (x.shape[0], weight.shape[0])}


@A.kernel(inputs={"x": (A.f32,), "weight": (A.f32,), "bias": (A.f32,)}, outputs={"y": (A.f32,)})
def linear_gelu(x, weight, bias, y, t):
    acc = A.ub(A.f32, t.lanes)
    u = A.ub(A.f32, t.lanes)
    yout = A.ub(A.f32, t.lanes)
    mm = A.cube(x, weight, acc, tile=(t.bm, t.bn, t.K), shape=(t.M, t.N, t.K), trans_b=True, bias=bias)
    lo, hi = A.block_span(t.tiles)
    for i in A.range(lo, hi):
        m0 = i // t.tn * t.bm
        n0 = i % t.tn * t.bn
        mn = min(t.bm, t.M - m0)
        nn = min(t.bn, t.N - n0)
        ld = A.align_up(nn, 8)
        A.Duplicate(acc, 0.0, mn * ld)             # the padding lanes of each row stay defined
        A.matmul(mm, acc, x[m0 * t.K:], weight[n0 * t.K:], mn, nn, t.K, bias=bias[n0:])
        A.Muls(u, acc, 0.7071067811865476, mn * ld)
        A.Erf(yout, u, mn * ld)
        A.Adds(yout, yout, 1.0, mn * ld)
        A.Mul(yout, yout, acc, mn * ld)
        A.Muls(yout, yout, 0.5, mn * ld)
        A.store(y[m0 * t.N + n0:], yout, nn, rows=mn, src_stride=ld, dst_stride=t.N)
