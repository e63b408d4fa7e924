"""relu(a @ b) for fp16 a, b: the cube accumulates each block in fp32 into the UB, the vector unit applies ReLU
and casts to fp16 (a MIX kernel)."""
import adsl as A


@A.tiling
def tiling(a, b, hw):
    M, K = a.shape
    N = b.shape[1]
    bm = min(64, M)
    bn = min(128, N)
    tn = A.ceil_div(N, bn)
    tiles = A.ceil_div(M, bm) * tn
    return A.Tiling(block_dim=max(1, min(hw.vector_cores, tiles)), M=M, N=N, K=K, bm=bm, bn=bn, tn=tn, tiles=tiles,
                    lanes=bm * A.align_up(bn, 16))


@A.shapes
def shapes(a, b):
    return {"c": (a.shape[0], b.shape[1])}


@A.kernel(inputs={"a": (A.f16,), "b": (A.f16,)}, outputs={"c": (A.f16,)})
def matmul_relu(a, b, c, t):
    acc = A.ub(A.f32, t.lanes)
    cout = A.ub(A.f16, t.lanes)
    mm = A.cube(a, b, acc, tile=(t.bm, t.bn, t.K), shape=(t.M, t.N, t.K))
    lo, hi = A.block_span(t.tiles)
    for i in A.range(lo, hi):
        m0 = i // t.tn * t.bm
        n0 = i % t.tn * t.bn
        mn = min(t.bm, t.M - m0)
        nn = min(t.bn, t.N - n0)
        ld = A.align_up(nn, 8)                     # the fp32 block's rows: 32-byte aligned
        lh = A.align_up(nn, 16)                    # the fp16 rows
        A.Duplicate(acc, 0.0, mn * ld)
        A.matmul(mm, acc, a[m0 * t.K:], b[n0:], mn, nn, t.K)
        A.Relu(acc, acc, mn * ld)
        for r in A.range(0, mn):
            A.Cast(cout[r * lh:], acc[r * ld:], "rint", nn)
        A.store(c[m0 * t.N + n0:], cout, nn, rows=mn, src_stride=lh, dst_stride=t.N)
