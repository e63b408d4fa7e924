"""GroupNorm (nn.GroupNorm(num_groups, C)) on (N, C, *spatial): each (n, group) is a contiguous
segment of C/G channels x S spatial elements; it is normalised with its own mean and variance, then
every channel c gets its affine pair: y = (x - mean) * rstd * weight[c] + bias[c].

When a whole sample (C x S elements) fits in the Unified Buffer (t.fits), every element is read
from GM once: a block of whole samples (B rows = (n, group) segments) is loaded with one copy; each
segment's sum lands in its own 8-lane slot (one ReduceSum per segment, no scalar read); gathers
broadcast each segment's mean (for the exact two-pass variance) and then its rstd back over the
block; weight[c] and bias[c] broadcast over a block are built once per kernel; the block is stored
with one copy. Otherwise each segment is walked in chunks twice: sum and sum of squares of x - x[0]
in one pass, then the output channel by channel. On one block (t.fits == 0) when the second pass
re-reads bytes recent enough for L2; else (t.fits == 2: 8 MB segments, whose two reads on 48 cores
are 16 MB apart each, or too few segments for the cores) k blocks share a segment, cpg / k channels
each, vector_cores // k segments a round: each block's slice mean and M2 go to 32-byte workspace
slots, a SyncAll, each block merges its segment's k slices (Chan's formula) and normalises its
channels, re-reading what it read a round earlier (1 MB apart: L2 on the chip)."""
import adsl as A


@A.tiling
def tiling(x, weight, bias, hw, num_groups, eps):
    C = x.shape[1]
    S = x.numel // (x.shape[0] * C)                  # spatial elements per channel
    G = num_groups
    assert C % G == 0, "channels must divide into groups"
    L = C // G * S
    rows = x.shape[0] * G
    nb = max(1, min(hw.vector_cores, rows))
    # per element: xin, yout (2 slots each) + w, t1, weight and bias broadcasts (fp32) + ridx and the
    # gather's byte offsets (i32); per segment: two 8-lane statistics slots; weight and bias: up to 4 + 4 bytes each
    per_elem = 4 * x.dtype.size + 24
    room = hw.ub_bytes - 16384 - 16 * C
    k = min(A.ceil_div(A.ceil_div(rows, nb), G), room // (C * S * per_elem + G * 64))
    # column split (t.fits == 2): k blocks share each (n, group) segment, cpg / k channels each, and the
    # blocks take vector_cores // k segments per round with a SyncAll to merge the statistics: when a
    # segment's two reads on one block would be too far apart for L2 (2 x L bytes per core over all cores
    # past l2_budget: 96 MiB, the smallest 910B L2) or when whole segments would leave half the cores idle
    l2_budget = 100663296
    ksplit = 1
    if rows < hw.vector_cores // 2 or 2 * L * x.dtype.size * min(rows, hw.vector_cores) > l2_budget:
        for d in range(1, C // G + 1):      # the most blocks per segment whose channel slices keep 1024+ elements
            if (C // G) % d == 0 and (C // G) // d * S >= 1024 and d <= hw.vector_cores:
                ksplit = d
    if S % 8 == 0 and k >= 1:
        fits = 1
        B = k * G
        chunk = B * L
        acc = 8
        full = chunk
    elif ksplit > 1:
        fits = 2
        B = 1
        nb = hw.vector_cores // ksplit * ksplit
        # per element: xin, yout (2 slots each) + w, t1, acc (fp32); the merge's five vectors of one
        # 32-byte slot per block sharing a segment, and two of 8 lanes
        chunk = min(A.align_down((room - 160 * ksplit - 64) // (4 * x.dtype.size + 12), 64), A.align_up(S, 64))
        acc = chunk
        full = 8
    else:
        fits = 0
        B = 1
        chunk = min(A.align_down((room - 64) // (4 * x.dtype.size + 12), 64), A.align_up(L, 64))
        acc = chunk
        full = 8
    gpr = max(1, nb // ksplit)
    return A.Tiling(block_dim=nb, rows=rows, G=G, C=C, S=S, L=L, cpg=C // G, B=B, fits=fits, acc=acc, full=full,
                    chunk=chunk, lanes=min(chunk, L), slanes=min(chunk, S), inv_n=1.0 / L, eps=eps, k=ksplit,
                    cpk=C // G // ksplit, gpr=gpr, rounds=A.ceil_div(rows, gpr), inv_ls=1.0 / (C // G // ksplit * S),
                    slots=32 * nb if fits == 2 else 8, lanes8=8 * ksplit if fits == 2 else 8)


@A.kernel(inputs={"x": (A.f32, A.f16), "weight": (A.f32, A.f16), "bias": (A.f32, A.f16)}, outputs={"y": "x"},
          attrs={"num_groups": 1, "eps": 1e-5})
def group_norm(x, weight, bias, y, t):
    xin = A.ub(x.dtype, t.chunk)
    yout = A.ub(y.dtype, t.chunk)
    w = A.ub(A.f32, t.chunk)
    t1 = A.ub(A.f32, t.chunk)
    ridx = A.ub(A.i32, t.full)
    gfull = A.ub(A.f32, t.full)
    bfull = A.ub(A.f32, t.full)
    acc = A.ub(A.f32, t.acc)                                # the streaming path's second accumulator
    gin = A.ub(weight.dtype, t.C)
    bin = A.ub(bias.dtype, t.C)
    gvec = A.ub(A.f32, t.C)
    bvec = A.ub(A.f32, t.C)
    s1 = A.ub(A.f32, t.B * 8)
    s2 = A.ub(A.f32, t.B * 8)
    wstat = A.workspace(A.f32, t.slots)             # column split: each block's mean, then M2, of rounds q % 2
    pm = A.ub(A.f32, 8)                             # this block's slice mean and M2, stored to its slots
    pv = A.ub(A.f32, 8)
    am = A.ub(A.f32, t.lanes8)                      # per round: the segment's blocks' means, M2s, 1 / k at lane 8i
    a2 = A.ub(A.f32, t.lanes8)
    wn = A.ub(A.f32, t.lanes8)
    dev = A.ub(A.f32, t.lanes8)
    t2 = A.ub(A.f32, t.lanes8)
    A.load(gin, weight, t.C)
    A.Cast(gvec, gin, "auto", t.C)
    A.load(bin, bias, t.C)
    A.Cast(bvec, bin, "auto", t.C)
    r0, r1 = A.block_span(t.rows, t.G)
    if t.fits == 1:
        A.Duplicate(s1, 0.0, t.B * 8)                      # lanes 1..7 of each slot: never read as results
        A.Duplicate(s2, 0.0, t.B * 8)
        for p in A.range(t.B * t.cpg):                     # plane p of a block holds channel p % C
            A.Duplicate(ridx[p * t.S:], p % t.C, t.S)
        A.gather(gfull, gvec, ridx, t.chunk, t.C)          # weight and bias over a block, built once
        A.gather(bfull, bvec, ridx, t.chunk, t.C)
        for b in A.range(t.B):
            A.Duplicate(ridx[b * t.L:], b * 8, t.L)        # element -> its segment's statistics slot
        for r, m in A.tiles(r0, r1, t.B, stages=2):
            A.load(xin, x[r * t.L:], m * t.L)
            A.Cast(w, xin, "auto", m * t.L)
            for b in A.range(m):
                A.ReduceSum(s1[b * 8:], w[b * t.L:], t.L)
            A.Muls(s1, s1, t.inv_n, m * 8)
            A.gather(t1, s1, ridx, m * t.L, m * 8)
            A.Sub(w, w, t1, m * t.L)
            A.Mul(t1, w, w, m * t.L)
            for b in A.range(m):
                A.ReduceSum(s2[b * 8:], t1[b * t.L:], t.L)
            A.Muls(s2, s2, t.inv_n, m * 8)
            A.Adds(s2, s2, t.eps, m * 8)
            A.Sqrt(s2, s2, m * 8)
            A.Duplicate(s1, 1.0, m * 8)
            A.Div(s2, s1, s2, m * 8)                       # rstd per segment
            A.gather(t1, s2, ridx, m * t.L, m * 8)
            A.Mul(w, w, t1, m * t.L)
            A.Mul(w, w, gfull, m * t.L)
            A.Add(w, w, bfull, m * t.L)
            A.Cast(yout, w, "auto", m * t.L)
            A.store(y[r * t.L:], yout, m * t.L)
    elif t.fits == 2:
        nb = A.block_num()
        j = A.block_idx() // t.k                           # the block's segment in a round, and its channels
        part = A.block_idx() % t.k
        A.Duplicate(wn, 0.0, 8 * t.k)
        for i in A.range(t.k):
            A.set(wn, i * 8, 1.0 / t.k)
        for q in A.range(t.rounds):
            s = q * t.gpr + j
            on = max(0, min(1, t.rows - s, t.gpr - j))      # 0: no segment for this block this round
            base = s * t.L + part * t.cpk * t.S
            A.Duplicate(t1, 0.0, t.chunk)
            A.Duplicate(acc, 0.0, t.chunk)
            k = 0.0
            for jj in A.range(t.cpk):                       # channel by channel, as the output pass re-reads them
                for c, n in A.tiles(0, on * t.S, t.chunk, stages=2):
                    A.load(xin, x[base + jj * t.S + c:], n)
                    A.Cast(w, xin, "auto", n)
                    if jj == 0 and c == 0:
                        k = A.get(xin, 0)                   # the shift: read from the loaded tile
                    A.Adds(w, w, -k, n)
                    A.Add(t1, t1, w, n)
                    A.Mul(w, w, w, n)
                    A.Add(acc, acc, w, n)
            s_1 = A.reduce_sum(t1, t.slanes)
            s_2 = A.reduce_sum(acc, t.slanes)
            A.Duplicate(pm, k + s_1 * t.inv_ls, 1)        # the slice's mean and M2 = sum (x - mean)^2
            A.Duplicate(pv, max(s_2 - s_1 * s_1 * t.inv_ls, 0.0), 1)
            A.store(wstat[(q % 2 * 2 * nb + A.block_idx()) * 8:], pm, 1)
            A.store(wstat[((q % 2 * 2 + 1) * nb + A.block_idx()) * 8:], pv, 1)
            A.sync_all()
            first = j * t.k
            A.load(am, wstat[(q % 2 * 2 * nb + first) * 8:], 1, rows=t.k, src_stride=8, dst_stride=8, pad=0.0)
            A.load(a2, wstat[((q % 2 * 2 + 1) * nb + first) * 8:], 1, rows=t.k, src_stride=8, dst_stride=8, pad=0.0)
            m0 = A.get(am, 0)                               # Chan's merge of k equal slices, shifted by the first mean
            A.Adds(dev, am, -m0, 8 * t.k)
            A.Mul(t2, dev, wn, 8 * t.k)
            dm = A.reduce_sum(t2, 8 * t.k)
            A.Adds(dev, dev, -dm, 8 * t.k)                 # var = sum M2_p / L + sum (mean_p - mean)^2 / k
            A.Mul(dev, dev, dev, 8 * t.k)
            A.Mul(dev, dev, wn, 8 * t.k)
            A.Muls(t2, a2, t.inv_n, 8 * t.k)
            A.Add(dev, dev, t2, 8 * t.k)
            var = A.reduce_sum(dev, 8 * t.k)
            sd = A.sqrt(var + t.eps)
            rstd = 1.0 / sd
            mean = m0 + dm
            for jj in A.range(t.cpk):
                ch = s % t.G * t.cpg + part * t.cpk + jj
                gamma = A.get(gvec, ch)
                beta = A.get(bvec, ch)
                scale = rstd * gamma
                shift = beta - mean * scale
                for c, n in A.tiles(0, on * t.S, t.chunk, stages=2):
                    A.load(xin, x[base + jj * t.S + c:], n)
                    A.Cast(w, xin, "auto", n)
                    A.Muls(w, w, scale, n)
                    A.Adds(w, w, shift, n)
                    A.Cast(yout, w, "auto", n)
                    A.store(y[base + jj * t.S + c:], yout, n)
    else:
        for r in A.range(r0, r1):
            base = r * t.L
            A.Duplicate(t1, 0.0, t.chunk)
            A.Duplicate(acc, 0.0, t.chunk)
            k = 0.0
            for c, n in A.tiles(0, t.L, t.chunk, stages=2):
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
            mean = k + d
            for j in A.range(t.cpg):
                ch = r % t.G * t.cpg + j
                gamma = A.get(gvec, ch)
                beta = A.get(bvec, ch)
                scale = rstd * gamma
                shift = beta - mean * scale
                for c, n in A.tiles(0, t.S, t.chunk, stages=2):
                    A.load(xin, x[base + j * t.S + c:], n)
                    A.Cast(w, xin, "auto", n)
                    A.Muls(w, w, scale, n)
                    A.Adds(w, w, shift, n)
                    A.Cast(yout, w, "auto", n)
                    A.store(y[base + j * t.S + c:], yout, n)
