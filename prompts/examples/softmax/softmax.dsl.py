"""Softmax over the last axis: y = exp(x - max) / sum(exp(x - max)), row by row.

Rows are split across blocks; each row is walked in column chunks of t.chunk elements, three
times: running max, running sum of exp(x - max), then the normalised output. The math runs in
fp32 for every input dtype (f16/bf16 are cast up after loading and down before storing)."""
import adsl as A


@A.tiling
def tiling(x, hw):
    cols = x.shape[-1]
    rows = x.numel // cols
    nb = max(1, min(hw.vector_cores, rows))
    # UB per chunk element: xin and yout (2 slots each, x's dtype) + w and acc (fp32)
    per_elem = 4 * x.dtype.size + 4 + 4
    chunk = A.align_down((hw.ub_bytes - 16384) // per_elem, 64)       # 16 KiB left for the reduce scratch
    chunk = min(chunk, A.align_up(cols, 64))
    return A.Tiling(block_dim=nb, rows=rows, cols=cols, chunk=chunk, lanes=min(chunk, cols))


@A.kernel(inputs={"x": (A.f32, A.f16, A.bf16)}, outputs={"y": "x"})
def softmax(x, y, t):
    xin = A.ub(x.dtype, t.chunk)         # VECIN queue
    yout = A.ub(y.dtype, t.chunk)        # VECOUT queue
    w = A.ub(A.f32, t.chunk)             # fp32 working copy of a chunk
    acc = A.ub(A.f32, t.chunk)           # running max, then running sum, lane by lane
    r0, r1 = A.block_span(t.rows)
    for r in A.range(r0, r1):
        base = r * t.cols
        A.Duplicate(acc, -A.inf, t.chunk)
        for c, n in A.tiles(0, t.cols, t.chunk, stages=2):
            A.load(xin, x[base + c:], n)
            A.Cast(w, xin, "auto", n)
            A.Max(acc, acc, w, n)                   # lanes >= n keep their earlier values
        m = A.reduce_max(acc, t.lanes)              # lanes >= cols never held row data
        A.Duplicate(acc, 0.0, t.chunk)
        for c, n in A.tiles(0, t.cols, t.chunk, stages=2):
            A.load(xin, x[base + c:], n)
            A.Cast(w, xin, "auto", n)
            A.Adds(w, w, -m, n)
            A.Exp(w, w, n)
            A.Add(acc, acc, w, n)
        s = A.reduce_sum(acc, t.lanes)
        inv = 1.0 / s
        for c, n in A.tiles(0, t.cols, t.chunk, stages=2):
            A.load(xin, x[base + c:], n)
            A.Cast(w, xin, "auto", n)
            A.Adds(w, w, -m, n)
            A.Exp(w, w, n)
            A.Muls(w, w, inv, n)
            A.Cast(yout, w, "auto", n)
            A.store(y[base + c:], yout, n)
