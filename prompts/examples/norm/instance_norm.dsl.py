"""InstanceNorm (nn.InstanceNorm2d, no affine): every (n, c) plane of S elements is normalised by its
own mean and (biased) variance: y = (x - mean) / sqrt(var + eps).

Each element is read from GM once when a plane fits in the Unified Buffer (t.fits): a block of B
planes is loaded with one copy, each plane's sum lands in its own 8-lane slot of a statistics tile
(one ReduceSum per plane, no scalar read), the per-plane mean is broadcast back over the block by a
gather, then the same for the centred sum of squares (the exact two-pass variance), and the block
is scaled and stored with one copy. A plane too large for the buffer is walked in chunks twice:
the sum and sum of squares of x - x[0] in one pass (shifted by the plane's first element so the
variance does not cancel), then the normalised output."""
import adsl as A


@A.tiling
def tiling(x, hw, eps):
    S = x.numel // (x.shape[0] * x.shape[1])
    rows = x.shape[0] * x.shape[1]
    nb = max(1, min(hw.vector_cores, rows))
    # per element: xin, yout (2 slots each) + w, t1, t2 (fp32) + bidx and the gather's byte offsets (i32);
    # per plane: two 8-lane statistics slots
    per_elem = 4 * x.dtype.size + 20
    budget = (hw.ub_bytes - 16384) // per_elem
    B = min(A.ceil_div(rows, nb), (hw.ub_bytes - 16384) // (per_elem * S + 64))
    if S % 8 == 0 and B >= 1:
        fits = 1
        chunk = B * S
    else:
        fits = 0
        B = 1
        chunk = min(A.align_down(budget, 64), A.align_up(S, 64))
    return A.Tiling(block_dim=nb, rows=rows, S=S, B=B, fits=fits, chunk=chunk, lanes=min(chunk, S),
                    inv_n=1.0 / S, eps=eps)


@A.kernel(inputs={"x": (A.f32, A.f16)}, outputs={"y": "x"}, attrs={"eps": 1e-5})
def instance_norm(x, y, t):
    xin = A.ub(x.dtype, t.chunk)
    yout = A.ub(y.dtype, t.chunk)
    w = A.ub(A.f32, t.chunk)
    t1 = A.ub(A.f32, t.chunk)
    t2 = A.ub(A.f32, t.chunk)
    bidx = A.ub(A.i32, t.chunk)
    s1 = A.ub(A.f32, t.B * 8)
    s2 = A.ub(A.f32, t.B * 8)
    r0, r1 = A.block_span(t.rows)
    if t.fits == 1:
        A.Duplicate(s1, 0.0, t.B * 8)                      # lanes 1..7 of each slot: never read as results
        A.Duplicate(s2, 0.0, t.B * 8)
        for b in A.range(t.B):
            A.Duplicate(bidx[b * t.S:], b * 8, t.S)        # element -> its plane's statistics slot
        for r, m in A.tiles(r0, r1, t.B, stages=2):
            A.load(xin, x[r * t.S:], m * t.S)
            A.Cast(w, xin, "auto", m * t.S)
            for b in A.range(m):
                A.ReduceSum(s1[b * 8:], w[b * t.S:], t.S)
            A.Muls(s1, s1, t.inv_n, m * 8)
            A.gather(t1, s1, bidx, m * t.S, m * 8)
            A.Sub(w, w, t1, m * t.S)
            A.Mul(t2, w, w, m * t.S)
            for b in A.range(m):
                A.ReduceSum(s2[b * 8:], t2[b * t.S:], t.S)
            A.Muls(s2, s2, t.inv_n, m * 8)
            A.Adds(s2, s2, t.eps, m * 8)
            A.Sqrt(s2, s2, m * 8)
            A.Duplicate(s1, 1.0, m * 8)
            A.Div(s2, s1, s2, m * 8)
            A.gather(t1, s2, bidx, m * t.S, m * 8)
            A.Mul(w, w, t1, m * t.S)
            A.Cast(yout, w, "auto", m * t.S)
            A.store(y[r * t.S:], yout, m * t.S)
    else:
        for r in A.range(r0, r1):
            base = r * t.S
            A.Duplicate(t1, 0.0, t.chunk)
            A.Duplicate(t2, 0.0, t.chunk)
            k = 0.0
            for c, n in A.tiles(0, t.S, t.chunk, stages=2):
                A.load(xin, x[base + c:], n)
                A.Cast(w, xin, "auto", n)
                if c == 0:
                    k = A.get(w, 0)
                A.Adds(w, w, -k, n)
                A.Add(t1, t1, w, n)
                A.Mul(w, w, w, n)
                A.Add(t2, t2, w, n)
            s_1 = A.reduce_sum(t1, t.lanes)
            s_2 = A.reduce_sum(t2, t.lanes)
            d = s_1 * t.inv_n
            var = max(s_2 * t.inv_n - d * d, 0.0)
            sd = A.sqrt(var + t.eps)
            rstd = 1.0 / sd
            shift = -(k + d) * rstd
            for c, n in A.tiles(0, t.S, t.chunk, stages=2):
                A.load(xin, x[base + c:], n)
                A.Cast(w, xin, "auto", n)
                A.Muls(w, w, rstd, n)
                A.Adds(w, w, shift, n)
                A.Cast(yout, w, "auto", n)
                A.store(y[base + c:], yout, n)
