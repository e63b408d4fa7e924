"""Cumulative product along one axis `dim`.

The tiling views x as [outer, R, inner] around `dim`; the scan walks r = 0..R-1 keeping a running
fp32 accumulator. With inner > 1 the accumulator is a chunk of `inner` lanes (one slice per r).
With inner == 1 (scan along the last axis) it runs across a group of rows at once: column r of the
group is loaded one element per 32-byte block (rows=, src_stride=R) so every row sits at its own
aligned lane, folded into the accumulator, and stored back the same way (rows=, dst_stride=R)."""
import adsl as A


@A.tiling
def tiling(x, hw, dim):
    d = dim % x.ndim
    R = x.shape[d]
    inner = A.prod(x.shape[d + 1:])
    outer = x.numel // (R * inner)
    epb = A.elems_per_block(x.dtype)
    per_elem = 4 * x.dtype.size + 8                  # xin, yout (2 slots each) + w, acc (fp32)
    chunk = A.align_down((hw.ub_bytes - 4096) // per_elem, 64)
    if inner == 1:
        chunk = min(chunk, A.align_up(outer * epb, 64))
        group = chunk // epb                         # rows scanned together, one per 32-byte block
        units = A.ceil_div(outer, group)
    else:
        chunk = min(chunk, A.align_up(inner, 64))
        group = 1
        units = outer * A.ceil_div(inner, chunk)
    nb = max(1, min(hw.vector_cores, units))
    return A.Tiling(block_dim=nb, outer=outer, R=R, inner=inner, chunk=chunk, group=group,
                    pieces=A.ceil_div(inner, chunk))


@A.kernel(inputs={"x": (A.f32, A.f16)}, outputs={"y": "x"}, attrs={"dim": -1})
def cumprod(x, y, t):
    xin = A.ub(x.dtype, t.chunk)
    yout = A.ub(y.dtype, t.chunk)
    w = A.ub(A.f32, t.chunk)
    acc = A.ub(A.f32, t.chunk)
    epb = A.elems_per_block(x.dtype)
    if t.inner == 1:
        g0, g1 = A.block_span(t.outer, t.group)
        for row, gn in A.tiles(g0, g1, t.group):
            A.Duplicate(acc, 1.0, gn * epb)
            for k in A.range(t.R, stages=2):
                r = k
                A.load(xin, x[row * t.R + r:], 1, rows=gn, src_stride=t.R, dst_stride=epb, pad=0.0)
                A.Cast(w, xin, "auto", gn * epb)
                A.Mul(acc, acc, w, gn * epb)
                A.Cast(yout, acc, "auto", gn * epb)
                A.store(y[row * t.R + r:], yout, 1, rows=gn, src_stride=epb, dst_stride=t.R)
    else:
        u0, u1 = A.block_span(t.outer * t.pieces)
        for u in A.range(u0, u1):
            o = u // t.pieces
            c = u % t.pieces * t.chunk
            n = min(t.chunk, t.inner - c)
            A.Duplicate(acc, 1.0, n)
            for k in A.range(t.R, stages=2):
                r = k
                A.load(xin, x[(o * t.R + r) * t.inner + c:], n)
                A.Cast(w, xin, "auto", n)
                A.Mul(acc, acc, w, n)
                A.Cast(yout, acc, "auto", n)
                A.store(y[(o * t.R + r) * t.inner + c:], yout, n)
