"""x + bias broadcast along one axis: y[o, c, i] = x[o, c, i] + bias[c] (e.g. NCHW + a per-channel bias).

The tiling views x as [outer, C, inner] around `axis`. With inner > 1 every (o, c) row adds one
scalar (read from the bias tile, which is loaded once per block); with inner == 1 (the bias runs
along the last axis) rows add the bias vector itself, chunk by chunk."""
import adsl as A


@A.tiling
def tiling(x, bias, hw, axis):
    ax = axis % x.ndim
    C = x.shape[ax]
    assert bias.numel == C, "bias must have one value per index of the broadcast axis"
    inner = A.prod(x.shape[ax + 1:])
    rows = x.numel // inner                          # (outer, c) rows of `inner` elements
    units = rows if inner > 1 else rows // C         # inner == 1: whole [C] rows go to one block
    nb = max(1, min(hw.vector_cores, units))
    per_elem = 4 * x.dtype.size                      # xin and yout, two slots each
    chunk = A.align_down((hw.ub_bytes - 4 * C - 4096) // per_elem, 64)
    chunk = max(64, min(chunk, A.align_up(max(inner, C), 64)))
    return A.Tiling(block_dim=nb, rows=rows, C=C, inner=inner, chunk=chunk)


@A.kernel(inputs={"x": (A.f32, A.f16), "bias": (A.f32, A.f16)}, outputs={"y": "x"}, attrs={"axis": 1})
def add_bias_channel(x, bias, y, t):
    bvec = A.ub(bias.dtype, t.C)                     # the whole bias, loaded once per block
    xin = A.ub(x.dtype, t.chunk)
    bin = A.ub(bias.dtype, t.chunk)
    yout = A.ub(y.dtype, t.chunk)
    if t.inner > 1:
        r0, r1 = A.block_span(t.rows)
        A.load(bvec, bias, t.C)
        for r in A.range(r0, r1):
            b = A.get(bvec, r % t.C)
            for c, n in A.tiles(0, t.inner, t.chunk, stages=2):
                A.load(xin, x[r * t.inner + c:], n)
                A.Adds(yout, xin, b, n)
                A.store(y[r * t.inner + c:], yout, n)
    else:
        o0, o1 = A.block_span(t.rows // t.C)
        for c, n in A.tiles(0, t.C, t.chunk):
            A.load(bin, bias[c:], n)                 # one chunk of the bias, reused by every row
            for r in A.range(o0, o1):
                A.load(xin, x[r * t.C + c:], n)
                A.Add(yout, xin, bin, n)
                A.store(y[r * t.C + c:], yout, n)
