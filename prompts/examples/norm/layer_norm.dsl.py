"""LayerNorm over the trailing dimensions covered by `weight` (nn.LayerNorm(normalized_shape)):
y = (x - mean) / sqrt(var + eps) * weight + bias, per row of N = weight.numel elements, in fp32.

When a row fits in the Unified Buffer next to weight and bias (t.fits == 1), weight and bias are
loaded once per block and every row is read from GM once: its sum, then the sum of squared
deviations (the exact two-pass variance, as PyTorch computes it) and the affine output all come from
the row held in UB, stored with one copy. A longer row is read twice, the fewest a UB-bounded kernel
can: the statistics in one pass, then the output. With few rows or very long ones (t.fits == 2) every
block takes one column slice of each row, so the blocks stay even when there are fewer rows than cores,
and the rows go a few at a time (t.R a round) over all blocks: the slice's sum and sum of squares of
x - x[slice start] (shifted so the variance does not cancel) give its mean and M2; the blocks trade them
through 32-byte workspace slots (a SyncAll a round) and each merges a row's (count, mean, M2) with Chan's
formula; then each weight and bias chunk is loaded once a round and applied to that chunk of the round's
rows. Between the two reads of a slice, and between a round's weight reads and the next's, all blocks
together move about 3 R + 2 rows, kept within L2 (on the chip the re-reads come from L2; the order that
read every row's statistics first moved the whole tensor in between: 1 GB for 64 rows of 16 MB).
With many rows of short slices (t.fits == 0) each row is streamed on one block: the shifted sum and
sum of squares in one pass, then the output."""
import adsl as A


@A.tiling
def tiling(x, weight, bias, hw, eps):
    N = weight.numel
    rows = x.numel // N
    nb = max(1, min(hw.vector_cores, rows))
    # row in UB, per element: xin, yout, gin, bin (2 slots each: the streaming path double-buffers them)
    # + w, t1, gw, gb (fp32)
    whole = 4 * x.dtype.size + 4 * weight.dtype.size + 16
    # column slices: per row, every block's mean and M2 read back by all, with the merge's vectors (five of
    # one 32-byte slot per block, fp32), and four 8-lane vectors
    stats = 5 * 32 * hw.vector_cores + 128
    schunk = 8
    wchunk = 8
    if N * whole + 16384 <= hw.ub_bytes:
        fits = 1
        chunk = A.align_up(N, 64)
        wchunk = chunk
    elif rows < hw.vector_cores or N >= 2048 * hw.vector_cores:
        # (a slice of 2048+ elements a block, or idle cores otherwise: short slices of many rows cost more
        # in per-row copies and reductions than the streamed rows they replace)
        fits = 2
        nb = A.ceil_div(N, A.align_up(A.ceil_div(N, hw.vector_cores), 64))
        # per chunk element: xin, yout, gin, bin (2 slots each) + w, gw, gb (fp32; gw and gb are the statistics
        # pass's accumulators), and 4 KB for the hidden scratch: the longer the chunk, the faster each copy
        per_elem = 4 * x.dtype.size + 4 * weight.dtype.size + 12
        chunk = min(A.align_down((hw.ub_bytes - 4096 - stats) // per_elem, 64), A.align_up(A.ceil_div(N, nb), 64))
        wchunk = chunk
    else:
        fits = 0
        # per chunk element: xin, gin, bin, yout (2 slots each) + w, t1, acc (fp32)
        per_elem = 8 * x.dtype.size + 12
        chunk = min(A.align_down((hw.ub_bytes - 16384) // per_elem, 64), A.align_up(N, 64))
        schunk = chunk
    # rows a round (t.fits == 2): the more, the fewer weight and bias reads; a round moves 3 R + 2 slices a block,
    # kept within three quarters of the 910B2's L2 (192 MiB) so a slice's re-read and the next round's weight hit it
    R = max(1, min(8, rows, (150994944 // (x.dtype.size * A.align_up(A.ceil_div(N, nb), 64) * nb) - 2) // 3))
    return A.Tiling(block_dim=nb, rows=rows, N=N, fits=fits, chunk=chunk, wchunk=wchunk, schunk=schunk, R=R,
                    tchunk=8 if fits == 2 else chunk,
                    rounds=A.ceil_div(rows, R),
                    lanes=min(chunk, N), inv_n=1.0 / N, eps=eps, slice=A.align_up(A.ceil_div(N, nb), 64),
                    lanes8=8 * nb if fits == 2 else 8, slots=32 * nb * R if fits == 2 else 8)


@A.kernel(inputs={"x": (A.f32, A.f16), "weight": (A.f32, A.f16), "bias": (A.f32, A.f16)}, outputs={"y": "x"},
          attrs={"eps": 1e-5})
def layer_norm(x, weight, bias, y, t):
    xin = A.ub(x.dtype, t.chunk)
    gin = A.ub(weight.dtype, t.chunk)               # weight and bias (chunks, or whole when a row fits)
    bin = A.ub(bias.dtype, t.chunk)
    yout = A.ub(y.dtype, t.chunk)
    w = A.ub(A.f32, t.chunk)
    t1 = A.ub(A.f32, t.tchunk)
    gw = A.ub(A.f32, t.wchunk)
    gb = A.ub(A.f32, t.wchunk)
    acc = A.ub(A.f32, t.schunk)                     # the streaming pass's second accumulator
    wstat = A.workspace(A.f32, t.slots)             # column slices: each block's mean, then M2, of round q % 2's rows
    pm = A.ub(A.f32, 8)                             # this block's slice mean and M2, stored to its slots
    pv = A.ub(A.f32, 8)
    am = A.ub(A.f32, t.lanes8)                      # per row: block p's mean, M2, n_p / N at lane 8p
    a2 = A.ub(A.f32, t.lanes8)
    wn = A.ub(A.f32, t.lanes8)
    dev = A.ub(A.f32, t.lanes8)
    t2 = A.ub(A.f32, t.lanes8)
    rrstd = A.ub(A.f32, 8)                          # per row of a round: its rstd and -mean * rstd
    rshift = A.ub(A.f32, 8)
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
        nb = A.block_num()
        A.Duplicate(wn, 0.0, 8 * nb)
        for p in A.range(nb):                       # block p's share of a row, n_p / N, at lane 8p
            A.set(wn, p * 8, max(0, min(t.slice, t.N - p * t.slice)) * t.inv_n)
        for q in A.range(t.rounds):                 # t.R rows at a time over all blocks: a slice is re-read soon
            ra = q * t.R
            nr = min(t.R, t.rows - ra)
            for i in A.range(nr):
                base = (ra + i) * t.N + c0
                A.Duplicate(gw, 0.0, t.chunk)
                A.Duplicate(gb, 0.0, t.chunk)
                k = 0.0
                for c, n in A.tiles(0, L, t.chunk, stages=2):
                    A.load(xin, x[base + c:], n)
                    A.Cast(w, xin, "auto", n)
                    if c == 0:
                        k = A.get(xin, 0)           # the shift: read from the loaded tile, not a vector result
                    A.Adds(w, w, -k, n)
                    A.Add(gw, gw, w, n)
                    A.Mul(w, w, w, n)
                    A.Add(gb, gb, w, n)
                s_1 = A.reduce_sum(gw, min(t.chunk, max(L, 1)))
                s_2 = A.reduce_sum(gb, min(t.chunk, max(L, 1)))
                slot = ((q % 2 * t.R + i) * 2 * nb + A.block_idx()) * 8
                A.Duplicate(pm, k + s_1 * inv_l, 1)    # the slice's mean and M2 = sum (x - mean)^2
                A.Duplicate(pv, max(s_2 - s_1 * s_1 * inv_l, 0.0), 1)
                A.store(wstat[slot:], pm, 1)
                A.store(wstat[slot + 8 * nb:], pv, 1)
            A.sync_all()
            for i in A.range(nr):
                row = (q % 2 * t.R + i) * 2 * nb * 8
                A.load(am, wstat[row:], 1, rows=nb, src_stride=8, dst_stride=8, pad=0.0)
                A.load(a2, wstat[row + 8 * nb:], 1, rows=nb, src_stride=8, dst_stride=8, pad=0.0)
                m0 = A.get(am, 0)                   # Chan's merge, shifted by block 0's mean: d_p = mean_p - m0
                A.Adds(dev, am, -m0, 8 * nb)
                A.Mul(t2, dev, wn, 8 * nb)
                dm = A.reduce_sum(t2, 8 * nb)       # mean = m0 + sum n_p d_p / N
                A.Adds(dev, dev, -dm, 8 * nb)       # M2 / N = sum M2_p / N + sum n_p / N (mean_p - mean)^2
                A.Mul(dev, dev, dev, 8 * nb)
                A.Mul(dev, dev, wn, 8 * nb)
                A.Muls(t2, a2, t.inv_n, 8 * nb)
                A.Add(dev, dev, t2, 8 * nb)
                var = A.reduce_sum(dev, 8 * nb)
                sd = A.sqrt(var + t.eps)
                rstd = 1.0 / sd
                A.set(rrstd, i, rstd)
                A.set(rshift, i, -(m0 + dm) * rstd)
            for c, n in A.tiles(0, L, t.chunk, stages=2):    # weight and bias once a round, then the rows' chunks
                A.load(gin, weight[c0 + c:], n)
                A.load(bin, bias[c0 + c:], n)
                A.Cast(gw, gin, "auto", n)
                A.Cast(gb, bin, "auto", n)
                for i in A.range(nr, stages=2):
                    A.load(xin, x[(ra + i) * t.N + c0 + c:], n)
                    A.Cast(w, xin, "auto", n)
                    a = A.get(rrstd, i)
                    sh = A.get(rshift, i)
                    A.Muls(w, w, a, n)
                    A.Adds(w, w, sh, n)
                    A.Mul(w, w, gw, n)
                    A.Add(w, w, gb, n)
                    A.Cast(yout, w, "auto", n)
                    A.store(y[(ra + i) * t.N + c0 + c:], yout, n)
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
