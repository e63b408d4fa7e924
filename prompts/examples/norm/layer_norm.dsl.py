"""LayerNorm over the trailing dimensions covered by `weight` (nn.LayerNorm(normalized_shape)):
y = (x - mean) / sqrt(var + eps) * weight + bias, per row of N = weight.numel elements.

Three passes over each row in column chunks, all in fp32: the sum (mean), the sum of squared
deviations (variance, as PyTorch computes it), then the normalised and affine-transformed output."""
import adsl as A


@A.tiling
def tiling(x, weight, bias, hw, eps):
    N = weight.numel
    rows = x.numel // N
    nb = max(1, min(hw.vector_cores, rows))
    # per chunk element: xin, gin, bin, yout (2 slots each) + w, acc (fp32)
    per_elem = 8 * x.dtype.size + 8
    chunk = A.align_down((hw.ub_bytes - 16384) // per_elem, 64)
    chunk = min(chunk, A.align_up(N, 64))
    return A.Tiling(block_dim=nb, rows=rows, N=N, chunk=chunk, lanes=min(chunk, N), inv_n=1.0 / N, eps=eps)


@A.kernel(inputs={"x": (A.f32, A.f16), "weight": (A.f32, A.f16), "bias": (A.f32, A.f16)}, outputs={"y": "x"},
          attrs={"eps": 1e-5})
def layer_norm(x, weight, bias, y, t):
    xin = A.ub(x.dtype, t.chunk)
    gin = A.ub(weight.dtype, t.chunk)
    bin = A.ub(bias.dtype, t.chunk)
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
            A.Add(acc, acc, w, n)
        total = A.reduce_sum(acc, t.lanes)
        mean = total * t.inv_n
        A.Duplicate(acc, 0.0, t.chunk)
        for c, n in A.tiles(0, t.N, t.chunk, stages=2):
            A.load(xin, x[base + c:], n)
            A.Cast(w, xin, "auto", n)
            A.Adds(w, w, -mean, n)
            A.Mul(w, w, w, n)
            A.Add(acc, acc, w, n)
        sq = A.reduce_sum(acc, t.lanes)
        sd = A.sqrt(sq * t.inv_n + t.eps)
        rstd = 1.0 / sd
        for c, n in A.tiles(0, t.N, t.chunk, stages=2):
            A.load(xin, x[base + c:], n)
            A.load(gin, weight[c:], n)
            A.load(bin, bias[c:], n)
            A.Cast(w, xin, "auto", n)
            A.Adds(w, w, -mean, n)
            A.Muls(w, w, rstd, n)
            A.Cast(acc, gin, "auto", n)
            A.Mul(w, w, acc, n)
            A.Cast(acc, bin, "auto", n)
            A.Add(w, w, acc, n)
            A.Cast(yout, w, "auto", n)
            A.store(y[base + c:], yout, n)
