"""Sum over one axis `dim` (keepdim optional), for any rank.

The tiling views x as [outer, R, inner] around `dim`. When the reduced axis is the last one
(inner == 1) each row of R elements is folded chunk by chunk into an fp32 accumulator tile and
reduced to one value; results of up to t.group rows are collected in a tile and stored
together. Otherwise whole rows of `inner` outputs are produced at once: chunk by chunk, the R
slices of a chunk come in rb at a time with one strided copy and are folded in halves (log2(rb)
whole-tile instructions) before they meet the accumulator; (chunk, r-tile) pairs run in one
double-buffered loop, and the blocks get equal numbers of chunks (HBM is shared by the busy cores)."""
import adsl as A


@A.tiling
def tiling(x, hw, dim, keepdim):
    d = dim % x.ndim
    R = x.shape[d]
    inner = A.prod(x.shape[d + 1:])
    outer = x.numel // (R * inner)
    # per chunk element: xin (2 slots) + w, acc (fp32) + yout (2 slots); plus the results tile
    per_elem = 2 * x.dtype.size + 8 + 2 * x.dtype.size
    chunk = A.align_down((hw.ub_bytes - 16384) // per_elem, 64)
    chunk = min(chunk, A.align_up(R if inner == 1 else inner, 64))
    if inner > 1:           # 16 units a block or more (>= 1 KiB a row), so no block does much more than the mean
        chunk = min(chunk, max(256, A.align_up(A.ceil_div(outer * inner, 16 * hw.vector_cores), 64)))
    pieces = A.ceil_div(inner, chunk)
    units = outer if inner == 1 else outer * pieces
    nb = max(1, min(hw.vector_cores, units))
    if inner > 1:           # as few blocks as give each the same number of units: HBM is shared by the busy cores
        nb = A.ceil_div(units, A.ceil_div(units, nb))
    group = min(1024, A.align_up(A.ceil_div(outer, nb), 64))
    # a middle axis: rb slices of the axis come in with one strided copy (rows=), not one copy per slice
    rb = 1
    if inner > 1:
        rb = max(1, min(R, (hw.ub_bytes - 16384 - (chunk + group) * (4 + 2 * x.dtype.size))
                        // (chunk * (2 * x.dtype.size + 4))))
    levels = 0                  # halvings that fold rb slices into one
    for i in range(24):
        if 2 ** levels < rb:
            levels += 1
    return A.Tiling(block_dim=nb, outer=outer, R=R, inner=inner, chunk=chunk, pieces=pieces, rb=rb, xcap=chunk * rb,
                    rtiles=A.ceil_div(R, rb), levels=levels,
                    lanes=min(chunk, R), group=group, out_cap=max(group, chunk))


@A.shapes
def shapes(x, dim, keepdim):
    d = dim % x.ndim
    return {"y": x.shape[:d] + ((1,) if keepdim else ()) + x.shape[d + 1:]}


@A.kernel(inputs={"x": (A.f32, A.f16)}, outputs={"y": "x"}, attrs={"dim": -1, "keepdim": False})
def reduce_sum(x, y, t):
    xin = A.ub(x.dtype, t.xcap)
    w = A.ub(A.f32, t.xcap)
    acc = A.ub(A.f32, t.chunk)
    res = A.ub(A.f32, t.group)
    yout = A.ub(y.dtype, t.out_cap)
    if t.inner == 1:
        o0, o1 = A.block_span(t.outer)
        for g, gn in A.tiles(o0, o1, t.group):
            for i in A.range(gn):
                base = (g + i) * t.R
                A.Duplicate(acc, 0.0, t.chunk)
                for c, n in A.tiles(0, t.R, t.chunk, stages=2):
                    A.load(xin, x[base + c:], n)
                    A.Cast(w, xin, "auto", n)
                    A.Add(acc, acc, w, n)
                A.ReduceSum(res[i:], acc, t.lanes)         # writes res[i]: a reduction's dst needs no 32-byte alignment
            A.Cast(yout, res, "auto", gn)
            A.store(y[g:], yout, gn)
    else:
        # (unit, r-tile) pairs in one double-buffered loop, so a unit's loads overlap the last one's folds;
        # the rb slices of a tile are folded in halves (whole-tile instructions, log2(rb) of them)
        epb = A.elems_per_block(x.dtype)
        A.Duplicate(w, 0.0, t.xcap)              # lanes past a ragged chunk are folded too, never stored
        u0, u1 = A.block_span(t.outer * t.pieces)
        for v in A.range(u0 * t.rtiles, u1 * t.rtiles, stages=2):
            u = v // t.rtiles
            r = v % t.rtiles * t.rb
            o = u // t.pieces
            c = u % t.pieces * t.chunk
            n = min(t.chunk, t.inner - c)
            rb = min(t.rb, t.R - r)
            A.load(xin, x[(o * t.R + r) * t.inner + c:], n, rows=rb, src_stride=t.inner, dst_stride=t.chunk, pad=0.0)
            if n == t.chunk:
                A.Cast(w, xin, "auto", rb * t.chunk)
            else:
                for j in A.range(rb):
                    A.Cast(w[j * t.chunk:], xin[j * t.chunk:], "auto", A.align_up(n, epb))
            k = rb
            for s in A.range(t.levels):
                if k > 1:
                    h = k // 2
                    A.Add(w, w, w[(k - h) * t.chunk:], h * t.chunk)
                    k = k - h
            if r == 0:
                A.copy(acc, w, t.chunk)
            else:
                A.Add(acc, acc, w, t.chunk)
            if r + rb == t.R:
                A.Cast(yout, acc, "auto", n)
                A.store(y[o * t.inner + c:], yout, n)
