"""L1 normalisation: y = x / sum(|x|) along the last axis (x / mean(|x|) with mean=True), row by row (pass 1 folds |x| into an fp32
accumulator; pass 2 scales the row by the reciprocal).

Narrow rows (cols <= 32) go R rows at a time, so each copy moves R * cols elements instead of one short
row: a Gather puts the block lane-major (column c of row r at c * R + r), the row sums are cols - 1
whole-lane Adds, each column is scaled by the lanes' reciprocals, and a second Gather restores row order."""
import adsl as A


@A.tiling
def tiling(x, hw, mean):
    cols = x.shape[-1]
    rows = x.numel // cols
    narrow = cols <= 32 and rows >= 8
    # narrow: per element xin, yout (2 slots each) + w, acc (fp32) + idx1, idx2 and the gather's offsets (i32)
    per_elem = 4 * x.dtype.size + (20 if narrow else 8)
    R = max(8, min(A.align_up(A.ceil_div(rows, hw.vector_cores), 8),
                   A.align_down((hw.ub_bytes - 16384) // (per_elem * cols), 8)))
    chunk = min(A.align_down((hw.ub_bytes - 16384) // per_elem, 64), A.align_up(cols, 64))
    units = A.ceil_div(rows, R) if narrow else rows
    return A.Tiling(block_dim=max(1, min(hw.vector_cores, units)), rows=rows, cols=cols, narrow=narrow, R=R,
                    chunk=R * cols if narrow else chunk, ichunk=R * cols if narrow else 8, lanes=min(chunk, cols), units=units, num=float(cols) if mean else 1.0)


@A.kernel(inputs={"x": (A.f32, A.f16)}, outputs={"y": "x"}, attrs={"mean": False})
def l1_norm(x, y, t):
    xin = A.ub(x.dtype, t.chunk)
    yout = A.ub(y.dtype, t.chunk)
    w = A.ub(A.f32, t.chunk)
    acc = A.ub(A.f32, t.chunk)
    idx1 = A.ub(A.i32, t.ichunk)
    idx2 = A.ub(A.i32, t.ichunk)
    ones = A.ub(A.f32, t.R)
    if t.narrow:
        # idx1: lane-major slot c*R + r <- row-major r*cols + c; idx2 the reverse, 8 rows (8*cols slots) at a time
        for r in A.range(8):
            A.set(idx1, r, r * t.cols)
        for q in A.range(1, t.R // 8):
            A.Adds(idx1[q * 8:], idx1, q * 8 * t.cols, 8)
        for c in A.range(1, t.cols):
            A.Adds(idx1[c * t.R:], idx1, c, t.R)
        for i in A.range(8 * t.cols):
            A.set(idx2, i, i % t.cols * t.R + i // t.cols)
        for q in A.range(1, t.R // 8):
            A.Adds(idx2[q * 8 * t.cols:], idx2, q * 8, 8 * t.cols)
        A.Duplicate(w, 1.0, t.chunk)                  # rows past a ragged block are summed, never stored
        A.Duplicate(ones, t.num, t.R)               # the numerator: 1, or cols for the mean
        u0, u1 = A.block_span(t.units)
        for u in A.range(u0, u1, stages=2):
            m = min(t.R, t.rows - u * t.R)
            A.load(xin, x[u * t.R * t.cols:], m * t.cols)
            A.Cast(w, xin, "auto", m * t.cols)
            A.gather(acc, w, idx1, t.chunk, t.chunk)
            A.Abs(w, acc, t.chunk)
            for c in A.range(1, t.cols):
                A.Add(w, w, w[c * t.R:], t.R)
            A.Div(w, ones, w, t.R)
            for c in A.range(t.cols):
                A.Mul(acc[c * t.R:], acc[c * t.R:], w, t.R)
            A.gather(w, acc, idx2, t.chunk, t.chunk)
            A.Cast(yout, w, "auto", m * t.cols)
            A.store(y[u * t.R * t.cols:], yout, m * t.cols)
    else:
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
            inv = t.num / total
            for c, n in A.tiles(0, t.cols, t.chunk, stages=2):
                A.load(xin, x[base + c:], n)
                A.Cast(w, xin, "auto", n)
                A.Muls(w, w, inv, n)
                A.Cast(yout, w, "auto", n)
                A.store(y[base + c:], yout, n)
