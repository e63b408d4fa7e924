"""a * b with NumPy broadcasting, up to rank 4 (e.g. (4, 1, 2048) * (1, 4, 2048) -> (4, 4, 2048)).

Shapes are right-aligned and padded to rank 4 in the tiling; each output row (the last axis) reads
a row of a and a row of b, or a single element of either when its last dimension is 1. Strides of
broadcast dimensions are 0, so repeated rows are read, never copied."""
import adsl as A


@A.tiling
def tiling(a, b, hw):
    a0 = a.shape[-4] if a.ndim >= 4 else 1
    a1 = a.shape[-3] if a.ndim >= 3 else 1
    a2 = a.shape[-2] if a.ndim >= 2 else 1
    a3 = a.shape[-1]
    b0 = b.shape[-4] if b.ndim >= 4 else 1
    b1 = b.shape[-3] if b.ndim >= 3 else 1
    b2 = b.shape[-2] if b.ndim >= 2 else 1
    b3 = b.shape[-1]
    assert a.ndim <= 4 and b.ndim <= 4, "rank 4 at most"
    y1, y2, L = max(a1, b1), max(a2, b2), max(a3, b3)
    rows = max(a0, b0) * y1 * y2
    nb = max(1, min(hw.vector_cores, rows))
    chunk = A.align_down((hw.ub_bytes - 4096) // (6 * a.dtype.size), 64)
    chunk = max(64, min(chunk, A.align_up(L, 64)))
    return A.Tiling(block_dim=nb, rows=rows, y1=y1, y2=y2, L=L, chunk=chunk,
                    sa0=(a1 * a2 * a3 if a0 > 1 else 0), sa1=(a2 * a3 if a1 > 1 else 0), sa2=(a3 if a2 > 1 else 0),
                    sb0=(b1 * b2 * b3 if b0 > 1 else 0), sb1=(b2 * b3 if b1 > 1 else 0), sb2=(b3 if b2 > 1 else 0),
                    a_row=(1 if a3 > 1 or L == 1 else 0), b_row=(1 if b3 > 1 or L == 1 else 0))


@A.shapes
def shapes(a, b):
    a0 = a.shape[-4] if a.ndim >= 4 else 1
    a1 = a.shape[-3] if a.ndim >= 3 else 1
    a2 = a.shape[-2] if a.ndim >= 2 else 1
    b0 = b.shape[-4] if b.ndim >= 4 else 1
    b1 = b.shape[-3] if b.ndim >= 3 else 1
    b2 = b.shape[-2] if b.ndim >= 2 else 1
    full = (max(a0, b0), max(a1, b1), max(a2, b2), max(a.shape[-1], b.shape[-1]))
    rank = max(a.ndim, b.ndim)
    return {"y": full[4 - rank:]}


@A.kernel(inputs={"a": (A.f32, A.f16), "b": (A.f32, A.f16)}, outputs={"y": "a"})
def mul_broadcast(a, b, y, t):
    ain = A.ub(a.dtype, t.chunk)
    bin = A.ub(b.dtype, t.chunk)
    yout = A.ub(y.dtype, t.chunk)
    one = A.ub(a.dtype, A.elems_per_block(a.dtype))    # a single broadcast element
    r0, r1 = A.block_span(t.rows)
    for r in A.range(r0, r1):
        i0 = r // (t.y1 * t.y2)
        i1 = r // t.y2 % t.y1
        i2 = r % t.y2
        aoff = i0 * t.sa0 + i1 * t.sa1 + i2 * t.sa2
        boff = i0 * t.sb0 + i1 * t.sb1 + i2 * t.sb2
        if t.a_row == 1 and t.b_row == 1:
            for c, n in A.tiles(0, t.L, t.chunk, stages=2):
                A.load(ain, a[aoff + c:], n)
                A.load(bin, b[boff + c:], n)
                A.Mul(yout, ain, bin, n)
                A.store(y[r * t.L + c:], yout, n)
        elif t.a_row == 1:
            A.load(one, b[boff:], 1)
            s = A.get(one, 0)
            for c, n in A.tiles(0, t.L, t.chunk, stages=2):
                A.load(ain, a[aoff + c:], n)
                A.Muls(yout, ain, s, n)
                A.store(y[r * t.L + c:], yout, n)
        else:
            A.load(one, a[aoff:], 1)
            s = A.get(one, 0)
            for c, n in A.tiles(0, t.L, t.chunk, stages=2):
                A.load(bin, b[boff + c:], n)
                A.Muls(yout, bin, s, n)
                A.store(y[r * t.L + c:], yout, n)
