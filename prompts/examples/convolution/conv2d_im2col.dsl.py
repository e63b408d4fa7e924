"""nn.Conv2d (stride, padding, dilation; groups 1; bias) by im2col + GEMM, a MIX kernel in two phases.
Phase 1, vector cores: the im2col matrices col[n] (Cin*KH*KW rows x OH*OW columns) go to a workspace, one row
segment at a time: an input row is copied behind 8 zero lanes and gathered through a per-kernel-column index
table (a padding position reads a zero lane). Phase 2, after a barrier: y[n] = weight (Cout x Cin*KH*KW) @ col[n]
on the cube, block by block into the UB, plus each output channel's bias on the vector unit, stored as NCHW."""
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
    xin = A.ub(A.f32, t.W)
    xz = A.ub(A.f32, t.W + 8)                  # [8 zero lanes | an input row]
    pos = A.ub(A.i32, t.KW * t.OWA)            # pos[kw * OWA + ow]: where output column ow reads in xz
    seg = A.ub(A.f32, t.OWA)
    acc = A.ub(A.f32, t.lanes)
    bvec = A.ub(A.f32, t.bm)
    yout = A.ub(A.f32, t.lanes)
    mm = A.cube(weight, col, acc, tile=(t.bm, t.bn, t.CKK), shape=(t.CO, t.ohw, t.CKK))
    A.Duplicate(xz, 0.0, 8)
    for kw in A.range(0, t.KW):
        for ow in A.range(0, t.OW):
            iw = ow * t.S + kw * t.D - t.P
            A.set(pos, kw * t.OWA + ow, 8 + iw if iw >= 0 and iw < t.W else 0)
    lo, hi = A.block_span(t.rows)
    for r in A.range(lo, hi):                  # r = ((n * C + c) * KH + kh) * OH + oh
        oh = r % t.OH
        kh = r // t.OH % t.KH
        nc = r // (t.OH * t.KH)
        ih = oh * t.S + kh * t.D - t.P
        crow = ((nc // t.C * t.CKK + nc % t.C * t.KH * t.KW + kh * t.KW) * t.OH + oh) * t.OW
        if ih >= 0 and ih < t.H:
            A.load(xin, x[(nc * t.H + ih) * t.W:], t.W)
            A.copy(xz[8:], xin, t.W)
            for kw in A.range(0, t.KW):
                A.gather(seg, xz, pos[kw * t.OWA:], t.OW, t.W + 8)
                A.store(col[crow + kw * t.ohw:], seg, t.OW)
        else:
            for kw in A.range(0, t.KW):        # a padding row of the input: zeros
                A.Duplicate(seg, 0.0, t.OW)
                A.store(col[crow + kw * t.ohw:], seg, t.OW)
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
