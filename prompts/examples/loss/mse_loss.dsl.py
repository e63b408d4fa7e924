"""Mean squared error reduced to one scalar across all blocks: y = mean((p - q)^2).

Each block folds (p - q)^2 over its share into an fp32 accumulator and writes its partial sum into
its own 32-byte slot of a GM workspace; after A.sync_all block 0 gathers the partials (one per
32-byte row, the rest padded with zeros), adds them, divides by the element count and stores the
0-d result."""
import adsl as A


@A.tiling
def tiling(predictions, targets, hw):
    n = predictions.numel
    assert targets.numel == n, "predictions and targets have the same number of elements"
    nb = max(1, min(hw.vector_cores, A.ceil_div(n, 4096)))
    per_elem = 4 * predictions.dtype.size + 8
    tile = A.align_down((hw.ub_bytes - 16384) // per_elem, 64)
    tile = max(64, min(tile, A.align_up(A.ceil_div(n, 4 * nb), 64)))
    return A.Tiling(block_dim=nb, total=n, tile=tile, lanes=min(tile, n), slots=8 * nb, inv_n=1.0 / n)


@A.shapes
def shapes(predictions, targets):
    return {"y": ()}


@A.kernel(inputs={"predictions": (A.f32, A.f16), "targets": (A.f32, A.f16)}, outputs={"y": "predictions"})
def mse_loss(predictions, targets, y, t):
    partials = A.workspace(A.f32, t.slots)
    pin = A.ub(predictions.dtype, t.tile)
    qin = A.ub(targets.dtype, t.tile)
    w = A.ub(A.f32, t.tile)
    v = A.ub(A.f32, t.tile)
    acc = A.ub(A.f32, t.tile)
    part = A.ub(A.f32, 8)
    allp = A.ub(A.f32, t.slots)
    yout = A.ub(y.dtype, 16)
    lo, hi = A.block_span(t.total, 16)
    A.Duplicate(acc, 0.0, t.tile)
    for off, n in A.tiles(lo, hi, t.tile, stages=2):
        A.load(pin, predictions[off:], n)
        A.load(qin, targets[off:], n)
        A.Cast(w, pin, "auto", n)
        A.Cast(v, qin, "auto", n)
        A.Sub(w, w, v, n)
        A.Mul(w, w, w, n)
        A.Add(acc, acc, w, n)
    mine = A.reduce_sum(acc, t.lanes)
    A.Duplicate(part, mine, 1)
    A.store(partials[A.block_idx() * 8:], part, 1)
    A.sync_all()
    if A.block_idx() == 0:
        nb = A.block_num()
        A.load(allp, partials, 1, rows=nb, src_stride=8, dst_stride=8, pad=0.0)
        total = A.reduce_sum(allp, 8 * nb)
        A.Duplicate(w, total * t.inv_n, 1)
        A.Cast(yout, w, "auto", 1)
        A.store(y, yout, 1)
