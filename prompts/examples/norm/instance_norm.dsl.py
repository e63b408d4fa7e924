"""InstanceNorm (nn.InstanceNorm2d, no affine): every (n, c) plane of S elements is normalised by its
own mean and (biased) variance: y = (x - mean) / sqrt(var + eps)."""
import adsl as A


@A.tiling
def tiling(x, hw, eps):
    S = x.numel // (x.shape[0] * x.shape[1])
    rows = x.shape[0] * x.shape[1]
    nb = max(1, min(hw.vector_cores, rows))
    per_elem = 4 * x.dtype.size + 8
    chunk = A.align_down((hw.ub_bytes - 16384) // per_elem, 64)
    chunk = min(chunk, A.align_up(S, 64))
    return A.Tiling(block_dim=nb, rows=rows, S=S, chunk=chunk, lanes=min(chunk, S), inv_n=1.0 / S, eps=eps)


@A.kernel(inputs={"x": (A.f32, A.f16)}, outputs={"y": "x"}, attrs={"eps": 1e-5})
def instance_norm(x, y, t):
    xin = A.ub(x.dtype, t.chunk)
    yout = A.ub(y.dtype, t.chunk)
    w = A.ub(A.f32, t.chunk)
    acc = A.ub(A.f32, t.chunk)
    r0, r1 = A.block_span(t.rows)
    for r in A.range(r0, r1):
        base = r * t.S
        A.Duplicate(acc, 0.0, t.chunk)
        for c, n in A.tiles(0, t.S, t.chunk, stages=2):
            A.load(xin, x[base + c:], n)
            A.Cast(w, xin, "auto", n)
            A.Add(acc, acc, w, n)
        total = A.reduce_sum(acc, t.lanes)
        mean = total * t.inv_n
        A.Duplicate(acc, 0.0, t.chunk)
        for c, n in A.tiles(0, t.S, t.chunk, stages=2):
            A.load(xin, x[base + c:], n)
            A.Cast(w, xin, "auto", n)
            A.Adds(w, w, -mean, n)
            A.Mul(w, w, w, n)
            A.Add(acc, acc, w, n)
        sq = A.reduce_sum(acc, t.lanes)
        sd = A.sqrt(sq * t.inv_n + t.eps)
        rstd = 1.0 / sd
        shift = -mean * rstd
        for c, n in A.tiles(0, t.S, t.chunk, stages=2):
            A.load(xin, x[base + c:], n)
            A.Cast(w, xin, "auto", n)
            A.Muls(w, w, rstd, n)
            A.Adds(w, w, shift, n)
            A.Cast(yout, w, "auto", n)
            A.store(y[base + c:], yout, n)
