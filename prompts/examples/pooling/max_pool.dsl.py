"""Max pooling over 1, 2 or 3 spatial dimensions (inputs (N, C, L), (N, C, H, W) or (N, C, D, H, W)),
with kernel_size, stride, padding and dilation applied to every spatial dimension.

The tiling pads the spatial shape to (D, H, W) with unit dimensions. Each output row (n, c, od, oh)
is produced in chunks of T outputs. Outputs are kept one per 32-byte block (lane j * epb), so every
window tap can be DMA-gathered with a GM stride (rows=, src_stride=stride) into an aligned view, for
any stride and dilation; taps that fall into the padding are skipped (the accumulator starts at
-inf). The store compacts the blocks back into a contiguous row (rows=, src_stride=epb)."""
import adsl as A


@A.tiling
def tiling(x, hw, kernel_size, stride, padding, dilation):
    nd = x.ndim - 2
    assert nd >= 1 and nd <= 3, "1-D, 2-D or 3-D pooling"
    D = x.shape[-3] if nd == 3 else 1
    H = x.shape[-2] if nd >= 2 else 1
    W = x.shape[-1]
    dil = dilation
    kd, sd, pd, dd = (kernel_size, stride, padding, dil) if nd == 3 else (1, 1, 0, 1)
    kh, sh, ph, dh = (kernel_size, stride, padding, dil) if nd >= 2 else (1, 1, 0, 1)
    OD = (D + 2 * pd - dd * (kd - 1) - 1) // sd + 1
    OH = (H + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    OW = (W + 2 * padding - dil * (kernel_size - 1) - 1) // stride + 1
    rows = x.shape[0] * x.shape[1] * OD * OH
    epb = A.elems_per_block(x.dtype)
    nb = max(1, min(hw.vector_cores, rows))
    per_lane = 4 * x.dtype.size
    lanes = A.align_down((hw.ub_bytes - 4096) // per_lane, 64)
    T = max(1, min(OW, lanes // epb))                # outputs per chunk
    return A.Tiling(block_dim=nb, rows=rows, D=D, H=H, W=W, OD=OD, OH=OH, OW=OW, T=T, lanes=T * epb,
                    KD=kd, KH=kh, KW=kernel_size, SD=sd, SH=sh, SW=stride, PD=pd, PH=ph, PW=padding,
                    DD=dd, DH=dh, DW=dil)


@A.shapes
def shapes(x, kernel_size, stride, padding, dilation):
    nd = x.ndim - 2
    dil = dilation
    OW = (x.shape[-1] + 2 * padding - dil * (kernel_size - 1) - 1) // stride + 1
    OH = (x.shape[-2] + 2 * padding - dil * (kernel_size - 1) - 1) // stride + 1 if nd >= 2 else 1
    OD = (x.shape[-3] + 2 * padding - dil * (kernel_size - 1) - 1) // stride + 1 if nd == 3 else 1
    return {"y": x.shape[:2] + ((OD,) if nd == 3 else ()) + ((OH,) if nd >= 2 else ()) + (OW,)}


@A.kernel(inputs={"x": (A.f32, A.f16)}, outputs={"y": "x"}, attrs={"kernel_size": 2, "stride": 2, "padding": 0, "dilation": 1})
def max_pool(x, y, t):
    tap = A.ub(x.dtype, t.lanes)
    yout = A.ub(y.dtype, t.lanes)
    epb = A.elems_per_block(x.dtype)
    r0, r1 = A.block_span(t.rows)
    for r in A.range(r0, r1):
        nc = r // (t.OD * t.OH)
        od = r // t.OH % t.OD
        oh = r % t.OH
        for ow0, m in A.tiles(0, t.OW, t.T):
            A.Duplicate(yout, -A.inf, m * epb)
            for kd in A.range(t.KD):
                iz = od * t.SD - t.PD + kd * t.DD
                if iz >= 0 and iz < t.D:
                    for kh in A.range(t.KH):
                        iy = oh * t.SH - t.PH + kh * t.DH
                        if iy >= 0 and iy < t.H:
                            row_base = ((nc * t.D + iz) * t.H + iy) * t.W
                            for kw in A.range(t.KW):
                                # outputs whose tap kw lands inside the row: ow*SW - PW + kw*DW in [0, W)
                                first = A.ceil_div(max(0, t.PW - kw * t.DW), t.SW)
                                top = t.W - 1 + t.PW - kw * t.DW
                                last = top // t.SW + 1 if top >= 0 else 0
                                lo = max(ow0, first)
                                hi = min(ow0 + m, last)
                                if lo < hi:
                                    A.load(tap[(lo - ow0) * epb:], x[row_base + lo * t.SW - t.PW + kw * t.DW:], 1,
                                           rows=hi - lo, src_stride=t.SW, dst_stride=epb, pad=0.0)
                                    A.Max(yout[(lo - ow0) * epb:], yout[(lo - ow0) * epb:], tap[(lo - ow0) * epb:],
                                          (hi - lo) * epb)
            A.store(y[r * t.OW + ow0:], yout, 1, rows=m, src_stride=epb, dst_stride=1)
