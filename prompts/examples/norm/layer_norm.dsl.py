"""LayerNorm over the trailing dimensions covered by `weight` (nn.LayerNorm(normalized_shape)):
y = (x - mean) / sqrt(var + eps) * weight + bias, per row of N = weight.numel elements, in fp32.

When a row fits in the Unified Buffer next to weight and bias (t.fits == 1), weight and bias are
loaded once per block and every row is read from GM once: its sum, then the sum of squared
deviations (the exact two-pass variance, as PyTorch computes it) and the affine output all come from
the row held in UB, stored with one copy. A longer row is read twice, the fewest a UB-bounded kernel
can: the statistics in one pass, then the output. With few rows (t.fits == 2) every block takes one
column slice of all rows, so the blocks stay even when there are fewer rows than cores and weight and
bias are read once: per row the slice's sum and sum of squares of x - x[slice start] (shifted so the
variance does not cancel) give its mean and M2; the blocks trade them through a workspace (one
SyncAll) and each merges every row's (count, mean, M2) with Chan's formula; then each weight and bias
chunk is loaded once and applied to that chunk of every row. With many rows of short slices (t.fits ==
0) each row is streamed on one block: the shifted sum and sum of squares in one pass, then the output."""
import adsl as A


@A.tiling
def tiling(x, weight, bias, hw, eps):
    N = weight.numel
    rows = x.numel // N
    nb = max(1, min(hw.vector_cores, rows))
    # row in UB, per element: xin, yout, gin, bin (2 slots each: the streaming path double-buffers them)
    # + w, t1, gw, gb (fp32)
    whole = 4 * x.dtype.size + 4 * weight.dtype.size + 16
    # column slices: every block's mean and M2 of every row, read back by all, + 8 row vectors + 2 of
    # 8-lane slots (fp32)
    rp = A.align_up(rows, 8)
    stats = 4 * rp * (2 * hw.vector_cores + 24)
    schunk = 8
    wchunk = 8
    if N * whole + 16384 <= hw.ub_bytes:
        fits = 1
        chunk = A.align_up(N, 64)
        wchunk = chunk
    elif stats <= 65536 and (rows < hw.vector_cores or N >= 2048 * hw.vector_cores):
        # (a slice of 2048+ elements a block, or idle cores otherwise: short slices of many rows cost more
        # in per-row copies and reductions than the streamed rows they replace)
        fits = 2
        nb = A.ceil_div(N, A.align_up(A.ceil_div(N, hw.vector_cores), 64))
        # per chunk element: xin, yout, gin, bin (2 slots each) + w, t1, gw, gb (fp32; gw and gb are the
        # statistics pass's accumulators)
        per_elem = 4 * x.dtype.size + 4 * weight.dtype.size + 16
        chunk = min(A.align_down((hw.ub_bytes - 16384 - stats) // per_elem, 64), A.align_up(A.ceil_div(N, nb), 64))
        wchunk = chunk
    else:
        fits = 0
        # per chunk element: xin, gin, bin, yout (2 slots each) + w, t1, acc (fp32)
        per_elem = 8 * x.dtype.size + 12
        chunk = min(A.align_down((hw.ub_bytes - 16384) // per_elem, 64), A.align_up(N, 64))
        schunk = chunk
    return A.Tiling(block_dim=nb, rows=rows, N=N, fits=fits, chunk=chunk, wchunk=wchunk, schunk=schunk,
                    lanes=min(chunk, N), inv_n=1.0 / N, eps=eps, slice=A.align_up(A.ceil_div(N, nb), 64),
                    rp=rp if fits == 2 else 8, all=rp * nb if fits == 2 else 8)


@A.kernel(inputs={"x": (A.f32, A.f16), "weight": (A.f32, A.f16), "bias": (A.f32, A.f16)}, outputs={"y": "x"},
          attrs={"eps": 1e-5})
def layer_norm(x, weight, bias, y, t):
    xin = A.ub(x.dtype, t.chunk)
    gin = A.ub(weight.dtype, t.chunk)               # weight and bias (chunks, or whole when a row fits)
    bin = A.ub(bias.dtype, t.chunk)
    yout = A.ub(y.dtype, t.chunk)
    w = A.ub(A.f32, t.chunk)
    t1 = A.ub(A.f32, t.chunk)
    gw = A.ub(A.f32, t.wchunk)
    gb = A.ub(A.f32, t.wchunk)
    acc = A.ub(A.f32, t.schunk)                     # the streaming pass's second accumulator
    wstat = A.workspace(A.f32, 2 * t.all)           # column slices: each block's means, then M2s, of every row
    astat = A.ub(A.f32, 2 * t.all)
    smean = A.ub(A.f32, t.rp)
    kk = A.ub(A.f32, t.rp)
    q1 = A.ub(A.f32, t.rp * 8)                      # per row: the slice's shifted sum, sum of squares (lane 0)
    q2 = A.ub(A.f32, t.rp * 8)
    sm2 = A.ub(A.f32, t.rp)
    rmean = A.ub(A.f32, t.rp)
    m2 = A.ub(A.f32, t.rp)
    dev = A.ub(A.f32, t.rp)
    rrstd = A.ub(A.f32, t.rp)
    rshift = A.ub(A.f32, t.rp)
    r0, r1 = A.block_span(t.rows)
    if t.fits == 1:
        A.load(gin, weight, t.N)
        A.Cast(gw, gin, "auto", t.N)
        A.load(bin, bias, t.N)
        A.Cast(gb, bin, "auto", t.N)
        for r in A.range(r0, r1, stages=2):
            A.load(xin, x[r * t.N:], t.N)
            A.Cast(w, xin, "auto", t.N)
            total = A.reduce_sum(w, t.N)
            mean = total * t.inv_n
            A.Adds(w, w, -mean, t.N)
            A.Mul(t1, w, w, t.N)
            sq = A.reduce_sum(t1, t.N)
            sd = A.sqrt(sq * t.inv_n + t.eps)
            rstd = 1.0 / sd
            A.Muls(w, w, rstd, t.N)
            A.Mul(w, w, gw, t.N)
            A.Add(w, w, gb, t.N)
            A.Cast(yout, w, "auto", t.N)
            A.store(y[r * t.N:], yout, t.N)
    elif t.fits == 2:
        c0 = A.block_idx() * t.slice
        L = max(0, min(t.slice, t.N - c0))          # a block past the end (a turned block count) adds n = 0
        inv_l = 1.0 / max(L, 1)
        A.Duplicate(smean, 0.0, t.rp)
        A.Duplicate(sm2, 0.0, t.rp)
        A.Duplicate(kk, 0.0, t.rp)
        A.Duplicate(q1, 0.0, t.rp * 8)
        A.Duplicate(q2, 0.0, t.rp * 8)
        for r in A.range(t.rows):                   # no scalar waits on the vector unit: sums land in slots
            base = r * t.N + c0
            A.Duplicate(gw, 0.0, t.chunk)
            A.Duplicate(gb, 0.0, t.chunk)
            k = 0.0
            for c, n in A.tiles(0, L, t.chunk, stages=2):
                A.load(xin, x[base + c:], n)
                A.Cast(w, xin, "auto", n)
                if c == 0:
                    k = A.get(xin, 0)               # the shift: read from the loaded tile, not a vector result
                    A.set(kk, r, k)
                A.Adds(w, w, -k, n)
                A.Add(gw, gw, w, n)
                A.Mul(w, w, w, n)
                A.Add(gb, gb, w, n)
            if L > 0:
                A.ReduceSum(q1[r * 8:], gw, min(t.chunk, L))
                A.ReduceSum(q2[r * 8:], gb, min(t.chunk, L))
        for r in A.range(t.rows):                   # the slice's mean and M2 = sum (x - mean)^2
            s_1 = A.get(q1, r * 8)
            s_2 = A.get(q2, r * 8)
            k = A.get(kk, r)
            A.set(smean, r, k + s_1 * inv_l)
            A.set(sm2, r, max(s_2 - s_1 * s_1 * inv_l, 0.0))
        A.store(wstat[A.block_idx() * t.rp:], smean, t.rp)
        A.store(wstat[t.all + A.block_idx() * t.rp:], sm2, t.rp)
        A.sync_all()
        A.load(astat, wstat, 2 * t.all)
        A.Duplicate(rmean, 0.0, t.rp)
        A.Duplicate(m2, 0.0, t.rp)
        for p in A.range(A.block_num()):            # Chan's merge: mean = sum n_p mean_p / N ...
            n_p = max(0, min(t.slice, t.N - p * t.slice))
            A.Muls(dev, astat[p * t.rp:], n_p * t.inv_n, t.rp)
            A.Add(rmean, rmean, dev, t.rp)
        for p in A.range(A.block_num()):            # ... M2 = sum M2_p + n_p (mean_p - mean)^2
            n_p = max(0, min(t.slice, t.N - p * t.slice))
            A.Sub(dev, astat[p * t.rp:], rmean, t.rp)
            A.Mul(dev, dev, dev, t.rp)
            A.Muls(dev, dev, n_p * 1.0, t.rp)
            A.Add(m2, m2, dev, t.rp)
            A.Add(m2, m2, astat[t.all + p * t.rp:], t.rp)
        A.Muls(m2, m2, t.inv_n, t.rp)
        A.Adds(m2, m2, t.eps, t.rp)
        A.Sqrt(m2, m2, t.rp)
        A.Duplicate(rrstd, 1.0, t.rp)
        A.Div(rrstd, rrstd, m2, t.rp)
        A.Mul(rshift, rmean, rrstd, t.rp)
        A.Muls(rshift, rshift, -1.0, t.rp)
        for c, n in A.tiles(0, L, t.chunk, stages=2):    # weight and bias once, then that chunk of every row
            A.load(gin, weight[c0 + c:], n)
            A.load(bin, bias[c0 + c:], n)
            A.Cast(gw, gin, "auto", n)
            A.Cast(gb, bin, "auto", n)
            for r in A.range(t.rows, stages=2):
                A.load(xin, x[r * t.N + c0 + c:], n)
                A.Cast(w, xin, "auto", n)
                a = A.get(rrstd, r)
                sh = A.get(rshift, r)
                A.Muls(w, w, a, n)
                A.Adds(w, w, sh, n)
                A.Mul(w, w, gw, n)
                A.Add(w, w, gb, n)
                A.Cast(yout, w, "auto", n)
                A.store(y[r * t.N + c0 + c:], yout, n)
    else:
        for r in A.range(r0, r1):
            base = r * t.N
            A.Duplicate(t1, 0.0, t.chunk)
            A.Duplicate(acc, 0.0, t.chunk)
            k = 0.0
            for c, n in A.tiles(0, t.N, t.chunk, stages=2):
                A.load(xin, x[base + c:], n)
                A.Cast(w, xin, "auto", n)
                if c == 0:
                    k = A.get(w, 0)
                A.Adds(w, w, -k, n)
                A.Add(t1, t1, w, n)
                A.Mul(w, w, w, n)
                A.Add(acc, acc, w, n)
            s_1 = A.reduce_sum(t1, t.lanes)
            s_2 = A.reduce_sum(acc, t.lanes)
            d = s_1 * t.inv_n
            var = max(s_2 * t.inv_n - d * d, 0.0)
            sd = A.sqrt(var + t.eps)
            rstd = 1.0 / sd
            shift = -(k + d) * rstd
            for c, n in A.tiles(0, t.N, t.chunk, stages=2):
                A.load(xin, x[base + c:], n)
                A.load(gin, weight[c:], n)
                A.load(bin, bias[c:], n)
                A.Cast(w, xin, "auto", n)
                A.Muls(w, w, rstd, n)
                A.Adds(w, w, shift, n)
                A.Cast(t1, gin, "auto", n)
                A.Mul(w, w, t1, n)
                A.Cast(t1, bin, "auto", n)
                A.Add(w, w, t1, n)
                A.Cast(yout, w, "auto", n)
                A.store(y[base + c:], yout, n)
