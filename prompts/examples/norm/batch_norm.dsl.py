"""BatchNorm in inference (nn.BatchNorm2d after .eval()): with the running statistics every channel
is an affine map, y = (x - running_mean[c]) / sqrt(running_var[c] + eps) * weight[c] + bias[c].

The four per-channel vectors are loaded once per block; each (n, c) plane is scaled and shifted
with two scalars."""
import adsl as A


@A.tiling
def tiling(x, weight, bias, running_mean, running_var, hw, eps):
    C = x.shape[1]
    S = x.numel // (x.shape[0] * C)
    rows = x.shape[0] * C
    nb = max(1, min(hw.vector_cores, rows))
    chunk = A.align_down((hw.ub_bytes - 16 * C - 4096) // (4 * x.dtype.size + 4), 64)
    chunk = min(chunk, A.align_up(S, 64))
    return A.Tiling(block_dim=nb, rows=rows, C=C, S=S, chunk=chunk, eps=eps)


@A.kernel(inputs={"x": (A.f32, A.f16), "weight": (A.f32, A.f16), "bias": (A.f32, A.f16),
                  "running_mean": (A.f32, A.f16), "running_var": (A.f32, A.f16)},
          outputs={"y": "x"}, attrs={"eps": 1e-5})
def batch_norm(x, weight, bias, running_mean, running_var, y, t):
    wvec = A.ub(weight.dtype, t.C)
    bvec = A.ub(bias.dtype, t.C)
    mvec = A.ub(running_mean.dtype, t.C)
    vvec = A.ub(running_var.dtype, t.C)
    xin = A.ub(x.dtype, t.chunk)
    yout = A.ub(y.dtype, t.chunk)
    w = A.ub(A.f32, t.chunk)
    A.load(wvec, weight, t.C)
    A.load(bvec, bias, t.C)
    A.load(mvec, running_mean, t.C)
    A.load(vvec, running_var, t.C)
    r0, r1 = A.block_span(t.rows)
    for r in A.range(r0, r1):
        ch = r % t.C
        var = A.get(vvec, ch)
        sd = A.sqrt(var + t.eps)
        gamma = A.get(wvec, ch)
        scale = gamma / sd
        beta = A.get(bvec, ch)
        mu = A.get(mvec, ch)
        shift = beta - mu * scale
        for c, n in A.tiles(0, t.S, t.chunk, stages=2):
            A.load(xin, x[r * t.S + c:], n)
            A.Cast(w, xin, "auto", n)
            A.Muls(w, w, scale, n)
            A.Adds(w, w, shift, n)
            A.Cast(yout, w, "auto", n)
            A.store(y[r * t.S + c:], yout, n)
