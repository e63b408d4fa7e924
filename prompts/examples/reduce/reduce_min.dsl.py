"""Min over one axis `dim` (keepdim optional), for any rank.

The tiling views x as [outer, R, inner] around `dim`. When the reduced axis is the last one
(inner == 1) each row of R elements is folded chunk by chunk into an fp32 accumulator tile and
reduced to one value; results of up to t.group rows are collected in a tile and stored
together. Otherwise whole rows of `inner` outputs are produced at once: chunk by chunk, the R
slices of a chunk are folded elementwise into the accumulator (double-buffered over r)."""
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
    pieces = A.ceil_div(inner, chunk)
    units = outer if inner == 1 else outer * pieces
    nb = max(1, min(hw.vector_cores, units))
    group = min(1024, A.align_up(A.ceil_div(outer, nb), 64))
    # a middle axis: rb slices of the axis come in with one strided copy (rows=), not one copy per slice
    rb = 1
    if inner > 1:
        rb = max(1, min(R, (hw.ub_bytes - 16384 - (chunk + group) * (4 + 2 * x.dtype.size))
                        // (chunk * (2 * x.dtype.size + 4))))
    return A.Tiling(block_dim=nb, outer=outer, R=R, inner=inner, chunk=chunk, pieces=pieces, rb=rb, xcap=chunk * rb,
                    lanes=min(chunk, R), group=group, out_cap=max(group, chunk))


@A.shapes
def shapes(x, dim, keepdim):
    d = dim % x.ndim
    return {"y": x.shape[:d] + ((1,) if keepdim else ()) + x.shape[d + 1:]}


@A.kernel(inputs={"x": (A.f32, A.f16)}, outputs={"y": "x"}, attrs={"dim": -1, "keepdim": False})
def reduce_min(x, y, t):
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
                A.Duplicate(acc, A.inf, t.chunk)
                for c, n in A.tiles(0, t.R, t.chunk, stages=2):
                    A.load(xin, x[base + c:], n)
                    A.Cast(w, xin, "auto", n)
                    A.Min(acc, acc, w, n)
                A.ReduceMin(res[i:], acc, t.lanes)
            A.Cast(yout, res, "auto", gn)
            A.store(y[g:], yout, gn)
    else:
        u0, u1 = A.block_span(t.outer * t.pieces)
        for u in A.range(u0, u1):
            o = u // t.pieces
            c = u % t.pieces * t.chunk
            n = min(t.chunk, t.inner - c)
            A.Duplicate(acc, A.inf, n)
            for r, rb in A.tiles(0, t.R, t.rb, stages=2):
                A.load(xin, x[(o * t.R + r) * t.inner + c:], n, rows=rb, src_stride=t.inner, dst_stride=t.chunk, pad=0.0)
                for j in A.range(rb):
                    A.Cast(w[j * t.chunk:], xin[j * t.chunk:], "auto", n)
                    A.Min(acc, acc, w[j * t.chunk:], n)
            A.Cast(yout, acc, "auto", n)
            A.store(y[o * t.inner + c:], yout, n)
