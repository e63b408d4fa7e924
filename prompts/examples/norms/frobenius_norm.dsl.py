"""Frobenius normalisation: y = x / ||x||_F, the norm taken over the whole tensor.

Every block sums the squares of its share (fp32) and parks the partial in its own 32-byte slot of
a GM workspace; after A.sync_all every block reads all the partials, takes the square root, and
scales its share. With A.sync_all the launch must fit the vector cores (checked)."""
import adsl as A


@A.tiling
def tiling(x, hw):
    nb = max(1, min(hw.vector_cores, A.ceil_div(x.numel, 4096)))
    per_elem = 4 * x.dtype.size + 8
    tile = A.align_down((hw.ub_bytes - 16384) // per_elem, 64)
    tile = max(64, min(tile, A.align_up(A.ceil_div(x.numel, 4 * nb), 64)))
    return A.Tiling(block_dim=nb, total=x.numel, tile=tile, lanes=min(tile, x.numel), slots=8 * nb)


@A.kernel(inputs={"x": (A.f32, A.f16)}, outputs={"y": "x"})
def frobenius_norm(x, y, t):
    partials = A.workspace(A.f32, t.slots)        # one 32-byte slot (8 floats) per block
    xin = A.ub(x.dtype, t.tile)
    yout = A.ub(y.dtype, t.tile)
    w = A.ub(A.f32, t.tile)
    acc = A.ub(A.f32, t.tile)
    part = A.ub(A.f32, 8)
    allp = A.ub(A.f32, t.slots)
    lo, hi = A.block_span(t.total, 16)
    A.Duplicate(acc, 0.0, t.tile)
    for off, n in A.tiles(lo, hi, t.tile, stages=2):
        A.load(xin, x[off:], n)
        A.Cast(w, xin, "auto", n)
        A.Mul(w, w, w, n)
        A.Add(acc, acc, w, n)
    mine = A.reduce_sum(acc, t.lanes)
    A.Duplicate(part, mine, 1)
    A.store(partials[A.block_idx() * 8:], part, 1)
    A.sync_all()
    nb = A.block_num()
    A.load(allp, partials, 1, rows=nb, src_stride=8, dst_stride=8, pad=0.0)   # partial b at lane 8*b, zeros between
    total = A.reduce_sum(allp, 8 * nb)
    norm = A.sqrt(total)
    inv = 1.0 / norm
    for off, n in A.tiles(lo, hi, t.tile, stages=2):
        A.load(xin, x[off:], n)
        A.Cast(w, xin, "auto", n)
        A.Muls(w, w, inv, n)
        A.Cast(yout, w, "auto", n)
        A.store(y[off:], yout, n)
