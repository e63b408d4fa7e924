"""GroupNorm (nn.GroupNorm(num_groups, C)) on (N, C, *spatial): each (n, group) is a contiguous
segment of C/G channels x S spatial elements; it is normalised with its own mean and variance, then
every channel c gets its affine pair: y = (x - mean) * rstd * weight[c] + bias[c].

When a whole sample (C x S elements) fits in the Unified Buffer (t.fits), every element is read
from GM once: a block of whole samples (B rows = (n, group) segments) is loaded with one copy; each
segment's sum lands in its own 8-lane slot (one ReduceSum per segment, no scalar read); gathers
broadcast each segment's mean (for the exact two-pass variance) and then its rstd back over the
block; weight[c] and bias[c] broadcast over a block are built once per kernel; the block is stored
with one copy. Otherwise each segment is walked in chunks twice: sum and sum of squares of x - x[0]
in one pass, then the output channel by channel."""
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
    if S % 8 == 0 and k >= 1:
        fits = 1
        B = k * G
        chunk = B * L
        acc = 8
        full = chunk
    else:
        fits = 0
        B = 1
        chunk = min(A.align_down((room - 64) // (4 * x.dtype.size + 12), 64), A.align_up(L, 64))
        acc = chunk
        full = 8
    return A.Tiling(block_dim=nb, rows=rows, G=G, C=C, S=S, L=L, cpg=C // G, B=B, fits=fits, acc=acc, full=full,
                    chunk=chunk, lanes=min(chunk, L), inv_n=1.0 / L, eps=eps)


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
