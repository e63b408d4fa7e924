"""nn.Conv2d (stride, padding, dilation; groups 1; bias) by im2col + GEMM, a MIX kernel in three phases.
Phase 0: one block writes a row of zeros to a workspace (the only vector instruction before the GEMM). Phase 1:
the im2col matrices col[n] (Cin*KH*KW rows x OH*OW columns) go to a workspace by the copy engines alone (A.move,
GM -> UB -> GM): per (input row, kernel column) the taps inside the image as one strided copy (every S-th element:
rows of one element), the padding on either side copied from the zero row. Phase 2, after a barrier:
y[n] = weight (Cout x Cin*KH*KW) @ col[n] on the cube, block by block into the UB, plus each output channel's bias
on the vector unit, stored as NCHW. No vector instruction count grows with Cin * KH * KW: the reduction is the
cube's, the data movement the MTEs'."""
import adsl as A


@A.tiling
def tiling(x, weight, bias, hw, stride, padding, dilation):
    N, C, H, W = x.shape
    CO, CI, KH, KW = weight.shape
    OH = (H + 2 * padding - dilation * (KH - 1) - 1) // stride + 1
    OW = (W + 2 * padding - dilation * (KW - 1) - 1) // stride + 1
    ohw = OH * OW
    bm = min(64, CO)
    bn = min(128, ohw)
    tn = A.ceil_div(ohw, bn)
    mt = A.ceil_div(CO, bm)
    nb = max(1, min(hw.vector_cores, N * C * KH * OH))
    return A.Tiling(block_dim=nb, C=C, H=H, W=W, CO=CO, KH=KH, KW=KW, OH=OH, OW=OW, OWA=A.align_up(OW, 8),
                    CKK=C * KH * KW, ohw=ohw, S=stride, P=padding, D=dilation, bm=bm, bn=bn, tn=tn, mt=mt,
                    tiles=N * mt * tn, rows=N * C * KH * OH, lanes=bm * A.align_up(bn, 8), cols=N * C * KH * KW * ohw)


@A.shapes
def shapes(x, weight, bias, stride, padding, dilation):
    OH = (x.shape[2] + 2 * padding - dilation * (weight.shape[2] - 1) - 1) // stride + 1
    OW = (x.shape[3] + 2 * padding - dilation * (weight.shape[3] - 1) - 1) // stride + 1
    return {"y": (x.shape[0], weight.shape[0], OH, OW)}


@A.kernel(inputs={"x": (A.f32,), "weight": (A.f32,), "bias": (A.f32,)}, outputs={"y": (A.f32,)},
          attrs={"stride": 1, "padding": 0, "dilation": 1})
def conv2d(x, weight, bias, y, t):
    col = A.workspace(A.f32, t.cols)
    zw = A.workspace(A.f32, t.OWA)             # a row of zeros: the padding of col is copied from it
    zt = A.ub(A.f32, t.OWA)
    via = A.ub(A.f32, t.OW * 8)                # A.move's staging: up to OW rows of one f32 (32 bytes each)
    acc = A.ub(A.f32, t.lanes)
    bvec = A.ub(A.f32, t.bm)
    yout = A.ub(A.f32, t.lanes)
    mm = A.cube(weight, col, acc, tile=(t.bm, t.bn, t.CKK), shape=(t.CO, t.ohw, t.CKK))
    lo0, hi0 = A.block_span(1)
    for z in A.range(lo0, hi0):
        A.Duplicate(zt, 0.0, t.OWA)
        A.store(zw, zt, t.OWA)
    A.sync_all()
    lo, hi = A.block_span(t.rows)
    for r in A.range(lo, hi):                  # r = ((n * C + c) * KH + kh) * OH + oh
        oh = r % t.OH
        kh = r // t.OH % t.KH
        nc = r // (t.OH * t.KH)
        ih = oh * t.S + kh * t.D - t.P
        crow = ((nc // t.C * t.CKK + nc % t.C * t.KH * t.KW + kh * t.KW) * t.OH + oh) * t.OW
        for kw in A.range(0, t.KW):
            c0 = crow + kw * t.ohw
            lead = t.P - kw * t.D              # output columns ow < ceil(lead / S) read left of the image
            tail = t.W - 1 + lead              # ... and ow > tail // S right of it
            o0 = min(t.OW, (max(lead, 0) + t.S - 1) // t.S) if ih >= 0 and ih < t.H else t.OW
            o1 = max(o0, min(t.OW, tail // t.S + 1)) if tail >= 0 else o0
            if o0 > 0:
                A.move(col[c0:], zw, o0, via=via)
            if o1 > o0:
                A.move(col[c0 + o0:], x[(nc * t.H + ih) * t.W + o0 * t.S - lead:], 1, via=via, rows=o1 - o0,
                       src_stride=t.S, dst_stride=1)
            if t.OW > o1:
                A.move(col[c0 + o1:], zw, t.OW - o1, via=via)
    A.sync_all()
    lo2, hi2 = A.block_span(t.tiles)
    for i in A.range(lo2, hi2):                # i = (n * mt + mi) * tn + ni
        n = i // (t.mt * t.tn)
        m0 = i // t.tn % t.mt * t.bm
        n0 = i % t.tn * t.bn
        mn = min(t.bm, t.CO - m0)
        nn = min(t.bn, t.ohw - n0)
        ld = A.align_up(nn, 8)
        A.matmul(mm, acc, weight[m0 * t.CKK:], col[n * t.CKK * t.ohw + n0:], mn, nn, t.CKK)
        A.load(bvec, bias[m0:], mn)
        for rr in A.range(0, mn):
            b = A.get(bvec, rr)
            A.Adds(yout[rr * ld:], acc[rr * ld:], b, nn)
        A.store(y[(n * t.CO + m0) * t.ohw + n0:], yout, nn, rows=mn, src_stride=ld, dst_stride=t.ohw)
