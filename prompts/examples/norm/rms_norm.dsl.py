"""RMSNorm over the last axis with a weight: y = x / sqrt(mean(x^2) + eps) * weight.

Rows of N elements; pass 1 sums the squares in fp32, pass 2 scales by the reciprocal root and
the weight."""
import adsl as A


@A.tiling
def tiling(x, weight, hw, eps):
    N = x.shape[-1]
    assert weight.numel == N, "one weight per element of the last axis"
    rows = x.numel // N
    nb = max(1, min(hw.vector_cores, rows))
    per_elem = 6 * x.dtype.size + 8                  # xin, gin, yout (2 slots each) + w, acc in fp32
    chunk = A.align_down((hw.ub_bytes - 16384) // per_elem, 64)
    chunk = min(chunk, A.align_up(N, 64))
    return A.Tiling(block_dim=nb, rows=rows, N=N, chunk=chunk, lanes=min(chunk, N), inv_n=1.0 / N, eps=eps)


@A.kernel(inputs={"x": (A.f32, A.f16), "weight": (A.f32, A.f16)}, outputs={"y": "x"}, attrs={"eps": 1e-6})
def rms_norm(x, weight, y, t):
    xin = A.ub(x.dtype, t.chunk)
    gin = A.ub(weight.dtype, t.chunk)
    yout = A.ub(y.dtype, t.chunk)
    w = A.ub(A.f32, t.chunk)
    acc = A.ub(A.f32, t.chunk)
    r0, r1 = A.block_span(t.rows)
    for r in A.range(r0, r1):
        base = r * t.N
        A.Duplicate(acc, 0.0, t.chunk)
        for c, n in A.tiles(0, t.N, t.chunk, stages=2):
            A.load(xin, x[base + c:], n)
            A.Cast(w, xin, "auto", n)
            A.Mul(w, w, w, n)
            A.Add(acc, acc, w, n)
        sq = A.reduce_sum(acc, t.lanes)
        rms = A.sqrt(sq * t.inv_n + t.eps)
        inv = 1.0 / rms
        for c, n in A.tiles(0, t.N, t.chunk, stages=2):
            A.load(xin, x[base + c:], n)
            A.load(gin, weight[c:], n)
            A.Cast(w, xin, "auto", n)
            A.Muls(w, w, inv, n)
            A.Cast(acc, gin, "auto", n)
            A.Mul(w, w, acc, n)
            A.Cast(yout, w, "auto", n)
            A.store(y[base + c:], yout, n)
