"""Cumulative product along one axis `dim`.

The tiling views x as [outer, R, inner] around `dim`; the scan walks r = 0..R-1 keeping a running
fp32 accumulator. With inner > 1 the accumulator is a chunk of `inner` lanes (one slice per r).
With inner == 1 (scan along the last axis) it is blocked so each element is read and written once:
a block of G rows x K columns comes in with one strided copy, a gather transposes it in the Unified
Buffer so column k of the block is G contiguous lanes, the columns are multiplied in order (the carry
from the block's previous K columns first), a second gather transposes it back and one strided copy
stores it."""
import adsl as A


@A.tiling
def tiling(x, hw, dim):
    d = dim % x.ndim
    R = x.shape[d]
    inner = A.prod(x.shape[d + 1:])
    outer = x.numel // (R * inner)
    epb = A.elems_per_block(x.dtype)
    if inner == 1:
        # per block element: xin, yout (2 slots each) + w, tt (fp32) + idx1, idx2, the gather's byte offsets (i32)
        per_elem = 4 * x.dtype.size + 20
        # rows per block (lanes of one column; 8 apart): the fewest cycles on the busiest core, counting ~0.45
        # cycles per element (two gathers) and one vector instruction per column (3 cycles up to 64 fp32 lanes)
        G = 8
        best = -1
        for i in range(5):
            g = 8 * 2 ** i
            cost = A.ceil_div(A.ceil_div(outer, g), hw.vector_cores) * (9 * g + 20 * max(3, 2 * A.ceil_div(g, 64)))
            fits = ((hw.ub_bytes - 8192) // g - 8) // (per_elem + 4) >= 16
            if g <= A.align_up(A.ceil_div(outer, hw.vector_cores), 8) and fits and (best < 0 or cost < best):
                G = g
                best = cost
        K = min(A.align_up(R, epb), A.align_down(((hw.ub_bytes - 8192) // G - 8) // (per_elem + 4), 16))
        chunk = G * K
        group = G
        units = A.ceil_div(outer, G)
        pieces = A.ceil_div(R, K)
        ichunk = chunk
    else:
        per_elem = 4 * x.dtype.size + 8              # xin, yout (2 slots each) + w, acc (fp32)
        chunk = A.align_down((hw.ub_bytes - 4096) // per_elem, 64)
        chunk = min(chunk, A.align_up(inner, 64))
        group = 1
        K = 8
        units = outer * A.ceil_div(inner, chunk)
        pieces = A.ceil_div(inner, chunk)
        ichunk = 8
    nb = max(1, min(hw.vector_cores, units))
    return A.Tiling(block_dim=nb, outer=outer, R=R, inner=inner, chunk=chunk, ichunk=ichunk, group=group, K=K,
                    pieces=pieces)


@A.kernel(inputs={"x": (A.f32, A.f16)}, outputs={"y": "x"}, attrs={"dim": -1})
def cumprod(x, y, t):
    xin = A.ub(x.dtype, t.chunk)
    yout = A.ub(y.dtype, t.chunk)
    w = A.ub(A.f32, t.chunk)
    acc = A.ub(A.f32, t.chunk)
    idx1 = A.ub(A.i32, t.ichunk)
    idx2 = A.ub(A.i32, t.ichunk)
    bg = A.ub(A.i32, t.group)
    bk = A.ub(A.i32, t.K)
    carry = A.ub(A.f32, t.group)
    epb = A.elems_per_block(x.dtype)
    if t.inner == 1:
        # idx1 moves row g, column k of a block to lane k * G + g (transpose); idx2 moves it back. Built once.
        for g in A.range(t.group):
            A.set(bg, g, g * t.K)
        for k in A.range(t.K):
            A.Adds(idx1[k * t.group:], bg, k, t.group)
        for q in A.range(8):
            A.set(bk, q, q * t.group)
        for q in A.range(1, t.K // 8):
            A.Adds(bk[q * 8:], bk, q * 8 * t.group, 8)
        for g in A.range(t.group):
            A.Adds(idx2[g * t.K:], bk, g, t.K)
        A.Duplicate(w, 0.0, t.chunk)                 # rows past a ragged group are transposed too, never stored
        g0, g1 = A.block_span(t.outer, t.group)
        for row, m in A.tiles(g0, g1, t.group):
            A.Duplicate(carry, 1.0, t.group)
            for j in A.range(t.pieces, stages=2):
                c0 = j * t.K
                kn = min(t.K, t.R - c0)
                A.load(xin, x[row * t.R + c0:], kn, rows=m, src_stride=t.R, dst_stride=t.K, pad=0.0)
                if kn == t.K:                        # whole rows: one instruction (a row each costs a repeat's start)
                    A.Cast(w, xin, "auto", m * t.K)
                else:
                    for g in A.range(m):
                        A.Cast(w[g * t.K:], xin[g * t.K:], "auto", A.align_up(kn, epb))
                A.gather(acc, w, idx1, t.chunk, t.chunk)
                A.Mul(acc, acc, carry, t.group)
                for k in A.range(1, kn):
                    A.Mul(acc[k * t.group:], acc[k * t.group:], acc[(k - 1) * t.group:], t.group)
                A.copy(carry, acc[(kn - 1) * t.group:], t.group)
                A.gather(w, acc, idx2, m * t.K, t.chunk)
                A.Cast(yout, w, "auto", m * t.K)
                A.store(y[row * t.R + c0:], yout, kn, rows=m, src_stride=t.K, dst_stride=t.R)
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
