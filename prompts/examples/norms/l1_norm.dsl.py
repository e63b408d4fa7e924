"""L1 normalisation: y = x / sum(|x|) along the last axis, row by row (pass 1 folds |x| into an fp32
accumulator; pass 2 scales the row by the reciprocal)."""
import adsl as A


@A.tiling
def tiling(x, hw):
    cols = x.shape[-1]
    rows = x.numel // cols
    nb = max(1, min(hw.vector_cores, rows))
    per_elem = 4 * x.dtype.size + 8
    chunk = A.align_down((hw.ub_bytes - 16384) // per_elem, 64)
    chunk = min(chunk, A.align_up(cols, 64))
    return A.Tiling(block_dim=nb, rows=rows, cols=cols, chunk=chunk, lanes=min(chunk, cols))


@A.kernel(inputs={"x": (A.f32, A.f16)}, outputs={"y": "x"})
def l1_norm(x, y, t):
    xin = A.ub(x.dtype, t.chunk)
    yout = A.ub(y.dtype, t.chunk)
    w = A.ub(A.f32, t.chunk)
    acc = A.ub(A.f32, t.chunk)
    r0, r1 = A.block_span(t.rows)
    for r in A.range(r0, r1):
        base = r * t.cols
        A.Duplicate(acc, 0.0, t.chunk)
        for c, n in A.tiles(0, t.cols, t.chunk, stages=2):
            A.load(xin, x[base + c:], n)
            A.Cast(w, xin, "auto", n)
            A.Abs(w, w, n)
            A.Add(acc, acc, w, n)
        total = A.reduce_sum(acc, t.lanes)
        inv = 1.0 / total
        for c, n in A.tiles(0, t.cols, t.chunk, stages=2):
            A.load(xin, x[base + c:], n)
            A.Cast(w, xin, "auto", n)
            A.Muls(w, w, inv, n)
            A.Cast(yout, w, "auto", n)
            A.store(y[base + c:], yout, n)
