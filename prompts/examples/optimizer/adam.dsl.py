"""One Adam step. The moments m and v are updated in place (written back to their input buffers);
the new parameter is the output:
    m <- beta1 * m + (1 - beta1) * g
    v <- beta2 * v + (1 - beta2) * g^2
    y  = param - lr * (m / (1 - beta1^step)) / (sqrt(v / (1 - beta2^step)) + eps)
The bias corrections are computed once on the host, in the tiling function."""
import adsl as A


@A.tiling
def tiling(param, grad, m, v, hw, lr, beta1, beta2, eps, step):
    n = param.numel
    nb = max(1, min(hw.vector_cores, A.ceil_div(n, 2048)))
    per_elem = 2 * 4 * 7 + 4 * 2                     # 7 queues of fp32 (2 slots each) + 2 fp32 scratch tiles
    tile = A.align_down((hw.ub_bytes - 1024) // per_elem, 64)
    tile = max(64, min(tile, A.align_up(A.ceil_div(n, 4 * nb), 64)))
    return A.Tiling(block_dim=nb, total=n, tile=tile, lr=lr, b1=beta1, b2=beta2, eps=eps,
                    c1=1.0 / (1.0 - beta1 ** step), c2=1.0 / (1.0 - beta2 ** step))


@A.kernel(inputs={"param": (A.f32,), "grad": (A.f32,), "m": (A.f32,), "v": (A.f32,)}, outputs={"y": (A.f32,)},
          attrs={"lr": 0.001, "beta1": 0.9, "beta2": 0.999, "eps": 1e-8, "step": 1})
def adam(param, grad, m, v, y, t):
    pin = A.ub(A.f32, t.tile)
    gin = A.ub(A.f32, t.tile)
    mprev = A.ub(A.f32, t.tile)
    vprev = A.ub(A.f32, t.tile)
    mout = A.ub(A.f32, t.tile)
    vout = A.ub(A.f32, t.tile)
    yout = A.ub(A.f32, t.tile)
    a = A.ub(A.f32, t.tile)
    b = A.ub(A.f32, t.tile)
    lo, hi = A.block_span(t.total, 8)
    for off, n in A.tiles(lo, hi, t.tile, stages=2):
        A.load(pin, param[off:], n)
        A.load(gin, grad[off:], n)
        A.load(mprev, m[off:], n)
        A.load(vprev, v[off:], n)
        A.Muls(mout, mprev, t.b1, n)
        A.Muls(a, gin, 1.0 - t.b1, n)
        A.Add(mout, mout, a, n)              # new m
        A.Muls(vout, vprev, t.b2, n)
        A.Mul(a, gin, gin, n)
        A.Muls(a, a, 1.0 - t.b2, n)
        A.Add(vout, vout, a, n)              # new v
        A.Muls(a, vout, t.c2, n)
        A.Sqrt(a, a, n)
        A.Adds(a, a, t.eps, n)               # sqrt(v_hat) + eps
        A.Muls(b, mout, t.c1, n)             # m_hat
        A.Div(b, b, a, n)
        A.Muls(b, b, -t.lr, n)
        A.Add(yout, pin, b, n)
        A.store(m[off:], mout, n)            # in place: each block writes back only what it read
        A.store(v[off:], vout, n)
        A.store(y[off:], yout, n)
