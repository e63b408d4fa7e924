"""GroupNorm (nn.GroupNorm(num_groups, C)) on (N, C, *spatial): each (n, group) is a contiguous
segment of C/G channels x S spatial elements; it is normalised with its own mean and variance, then
every channel c gets its affine pair: y = (x - mean) * rstd * weight[c] + bias[c].

Weight and bias are loaded once per block (C values each) and read as scalars; pass 3 applies
scale = rstd * weight[c] and shift = bias[c] - mean * scale channel by channel."""
import adsl as A


@A.tiling
def tiling(x, weight, bias, hw, num_groups, eps):
    C = x.shape[1]
    S = x.numel // (x.shape[0] * C)                  # spatial elements per channel
    G = num_groups
    assert C % G == 0, "channels must divide into groups"
    seg = C // G * S
    rows = x.shape[0] * G
    nb = max(1, min(hw.vector_cores, rows))
    per_elem = 4 * x.dtype.size + 8
    chunk = A.align_down((hw.ub_bytes - 8 * C - 16384) // per_elem, 64)
    chunk = min(chunk, A.align_up(seg, 64))
    return A.Tiling(block_dim=nb, rows=rows, G=G, C=C, S=S, seg=seg, cpg=C // G, chunk=chunk,
                    lanes=min(chunk, seg), inv_n=1.0 / seg, eps=eps)


@A.kernel(inputs={"x": (A.f32, A.f16), "weight": (A.f32, A.f16), "bias": (A.f32, A.f16)}, outputs={"y": "x"},
          attrs={"num_groups": 1, "eps": 1e-5})
def group_norm(x, weight, bias, y, t):
    wvec = A.ub(weight.dtype, t.C)
    bvec = A.ub(bias.dtype, t.C)
    xin = A.ub(x.dtype, t.chunk)
    yout = A.ub(y.dtype, t.chunk)
    w = A.ub(A.f32, t.chunk)
    acc = A.ub(A.f32, t.chunk)
    A.load(wvec, weight, t.C)
    A.load(bvec, bias, t.C)
    r0, r1 = A.block_span(t.rows)
    for r in A.range(r0, r1):
        base = r * t.seg
        A.Duplicate(acc, 0.0, t.chunk)
        for c, n in A.tiles(0, t.seg, t.chunk, stages=2):
            A.load(xin, x[base + c:], n)
            A.Cast(w, xin, "auto", n)
            A.Add(acc, acc, w, n)
        total = A.reduce_sum(acc, t.lanes)
        mean = total * t.inv_n
        A.Duplicate(acc, 0.0, t.chunk)
        for c, n in A.tiles(0, t.seg, t.chunk, stages=2):
            A.load(xin, x[base + c:], n)
            A.Cast(w, xin, "auto", n)
            A.Adds(w, w, -mean, n)
            A.Mul(w, w, w, n)
            A.Add(acc, acc, w, n)
        sq = A.reduce_sum(acc, t.lanes)
        sd = A.sqrt(sq * t.inv_n + t.eps)
        rstd = 1.0 / sd
        for k in A.range(t.cpg):
            ch = r % t.G * t.cpg + k
            gamma = A.get(wvec, ch)
            beta = A.get(bvec, ch)
            scale = rstd * gamma
            shift = beta - mean * scale
            for c, n in A.tiles(0, t.S, t.chunk, stages=2):
                A.load(xin, x[base + k * t.S + c:], n)
                A.Cast(w, xin, "auto", n)
                A.Muls(w, w, scale, n)
                A.Adds(w, w, shift, n)
                A.Cast(yout, w, "auto", n)
                A.store(y[base + k * t.S + c:], yout, n)
