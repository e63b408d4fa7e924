"""Max pooling over 1, 2 or 3 spatial dimensions (inputs (N, C, L), (N, C, H, W) or (N, C, D, H, W)),
with kernel_size, stride, padding and dilation applied to every spatial dimension.

Row program: every input byte comes in with whole-row copies and the windows are reduced in the UB.
Output rows are taken G at a time (G consecutive rows oh of one plane; a 1-D input is one plane of N*C
rows); a unit of work is G output rows x one chunk of OWc output columns:
1. Window over D and H: the band of input rows the G outputs need comes in with one strided copy per
   depth tap and is folded into G accumulator rows (V) with whole-row Max (aligned: rows are Wv apart).
   A 2-D window of stride 1 folds H by doubling (log2 of the taps in maxima of whole rows).
   A 3-D unit walks its volume's depth planes once instead (each plane's H taps folded into a ring slot,
   an output plane's D taps folded from the ring), so a plane shared by two output planes is read once.
   A 1-D whole chunk inside the rows skips V: the gather reads the loaded rows.
2. Window over W: a UB view at an odd element offset is no vector operand, so one Gather moves V into
   a lane-major layout (slot s, lane g at s*G + g; a slot is an input column). A tap is then a whole
   aligned span: stride 1 shifts by DW slots, a larger stride gathers tap-major (tap kw at kw*OWc*G).
   Taps in the padding read the -inf margin of V (columns beyond W and left of A0).
3. A second Gather puts the G rows back in order, and one strided copy stores them.
A 3-D pool of H stride 2 (no dilation) whose rows fit the UB whole (MultiKernelBench's max_pooling_3d) reads each
input byte once: its band comes in as even and odd rows (each H tap is then one max over all G rows), the D taps
fold into one ring slot in place, and W gathers only residue r = column mod stride (tap kw is residue kw % s
shifted by kw // s slots, so stride 2 gathers two slots per output instead of three)."""
import adsl as A


@A.tiling
def tiling(x, hw, kernel_size, stride, padding, dilation):
    nd = x.ndim - 2
    assert nd >= 1 and nd <= 3, "1-D, 2-D or 3-D pooling"
    k, s, p, dl = kernel_size, stride, padding, dilation
    W = x.shape[-1]
    OW = (W + 2 * p - dl * (k - 1) - 1) // s + 1
    if nd == 1:                                       # one plane of N*C rows, a 1-wide window over them
        D, H, OD, OH, NP = 1, x.shape[0] * x.shape[1], 1, x.shape[0] * x.shape[1], 1
        kd, sd, pd, dd, kh, sh, ph, dh = 1, 1, 0, 1, 1, 1, 0, 1
    else:
        D = x.shape[-3] if nd == 3 else 1
        H = x.shape[-2]
        kd, sd, pd, dd = (k, s, p, dl) if nd == 3 else (1, 1, 0, 1)
        kh, sh, ph, dh = k, s, p, dl
        OD = (D + 2 * pd - dd * (kd - 1) - 1) // sd + 1
        OH = (H + 2 * ph - dh * (kh - 1) - 1) // sh + 1
        NP = x.shape[0] * x.shape[1] * OD
    epb = A.elems_per_block(x.dtype)
    sz = x.dtype.size
    # output rows per unit (whole 32-byte lanes): the most lanes with the fewest rows on the busiest core.
    # Planes of fewer than 2 * epb output rows are flat: a unit's lanes run on over planes and one copy
    # brings every input plane they read; otherwise a unit's lanes stay in one plane, one copy per depth tap.
    c1 = A.ceil_div(NP * A.ceil_div(OH, epb), hw.vector_cores) * epb
    c2 = A.ceil_div(NP * A.ceil_div(OH, 2 * epb), hw.vector_cores) * 2 * epb
    c4 = A.ceil_div(NP * A.ceil_div(OH, 4 * epb), hw.vector_cores) * 4 * epb
    Gp = min(4 * epb if c4 <= min(c1, c2) else 2 * epb if c2 <= c1 else epb, A.align_up(OH, epb))
    f1 = A.ceil_div(A.ceil_div(NP * OH, epb), hw.vector_cores) * epb
    f2 = A.ceil_div(A.ceil_div(NP * OH, 2 * epb), hw.vector_cores) * 2 * epb
    f4 = A.ceil_div(A.ceil_div(NP * OH, 4 * epb), hw.vector_cores) * 4 * epb
    Gf = 4 * epb if f4 <= min(f1, f2) else 2 * epb if f2 <= f1 else epb
    NQ = A.ceil_div(Gf - 1, OH) + 1                   # planes a flat unit's lanes touch
    NPL = min((NQ - 1) * sd + (kd - 1) * dd + 1 + (D if NQ > 1 else 0), x.numel // (H * W))
    flat = nd >= 2 and OH < 2 * epb and 6 * NPL * H * (W + 2 * p + 2 * epb) * sz <= hw.ub_bytes
    G = Gf if flat else Gp
    NB = NPL * H if flat else min((G - 1) * sh + (kh - 1) * dh + 1, H + 2 * ph)     # band rows
    A0 = A.align_up(p, epb)                           # left margin of a V row (the padding reads it)
    dr = 1 if nd == 3 and not flat else 0            # the depth planes walked once (the kernel's first loop)
    RING = (kd - 1) * dd + 1                          # ring slots: the planes one output plane reads
    NR = RING * G if dr == 1 else 1
    # a 2-D window of stride 1 over H: band row i is input row oh0 - ph + i (rows in the padding -inf); the
    # maxima of h = 2^LH rows come by doubling, and a window of kh rows is the max of two of them (h >= kh / 2)
    hf = 1 if not flat and kd == 1 and sh == 1 and dh == 1 and kh >= 2 else 0
    LH = 0 if kh <= 2 else 1 if kh <= 4 else 2 if kh <= 8 else 3 if kh <= 16 else 0
    hf = hf if kh <= 16 else 0
    NB = G + kh - 1 if hf == 1 else NB
    nhb = NB if hf == 1 and LH >= 1 else 0            # a second band of rows for the doubling
    slots_per_col = 1 if s == 1 else k
    fixed_cols = A0 + epb + (k - 1) * dl + 1          # V columns beside OWc * s
    # band and oo take two queue slots (the unit loop is double-buffered)
    per_col = (2 * NB + NR + nhb + G) * s * sz + G * slots_per_col * (2 * sz + 8) + G * (2 * sz + 4) + 4 * G
    fixed = (2 * NB + NR + nhb + G) * fixed_cols * sz + G * ((k - 1) * dl + epb) * (2 * sz + 8) + 8192
    OWc = max(1, min(OW, A.align_down((hw.ub_bytes - fixed) // per_col, epb)))
    span = (OWc - 1) * s + (k - 1) * dl + 1
    Wv = A.align_up(A0 + span, epb)
    NROW = OWc + (k - 1) * dl if s == 1 else OWc    # slots of tap 0 (stride 1: every tap's)
    NS = NROW if s == 1 else k * OWc
    # stride 1 with 2, 4, 8 or 16 taps: the window is built by doubling (log2 k ops instead of k - 1)
    LV = (1 if k == 2 else 2 if k == 4 else 3 if k == 8 else 4 if k == 16 else 0) if s == 1 else 0
    OHB = A.ceil_div(OH, G)
    NCH = A.ceil_div(OW, OWc)                         # column chunks: a unit is G rows x one chunk
    units = 0 if dr == 1 else (A.ceil_div(NP * OH, G) if flat else NP * OHB) * NCH
    dunits = x.shape[0] * x.shape[1] * OHB * NCH if dr == 1 else 0
    NZ = min(D, (OD - 1) * sd - pd + (kd - 1) * dd + 1)      # input planes the depth walk reads
    # 3-D with whole rows (wr): a unit is G output rows of one volume, every column, walking the depth planes.
    # H stride 2: the band comes in as its even and its odd rows (phases), so each H tap is one max over all G
    # rows; the D taps fold in place into the slot of the output plane's first plane (no later output plane
    # reads it when pd < sd); W: the gather takes residue r (columns j*s + r) of each lane, tap kw is
    # residue kw % s shifted by kw // s slots; padding slots read a -inf kept at the end of each ring slot.
    OWw = A.align_up(OW, epb)
    RW = min(s, k)
    RSW = OW + A.ceil_div(k, s) - 1                   # slots of one residue
    WvW = A.align_up(W, epb)
    GW = 0
    wunits = 0
    for i in range(3):
        gw = (4 if i == 0 else 2 if i == 1 else 1) * epb
        nbp = gw + (kh - 1) // 2
        slot = A.align_up(max(gw * WvW, OWw * gw), epb) + epb
        need = (4 * nbp * WvW + WvW + RING * slot + RW * RSW * gw + 2 * gw * OWw) * sz + (2 * RW * RSW * gw + gw * OWw + gw) * 4
        # the most lanes that fit (longer band copies, fewer halo rows); past Gp only with 4 units a core left
        ug = NP // OD * A.ceil_div(OH, gw)
        if GW == 0 and gw <= A.align_up(OH, epb) and need + 1024 <= hw.ub_bytes and (gw <= Gp or ug >= 4 * hw.vector_cores):
            GW = gw
    wr = 1 if nd == 3 and not flat and dl == 1 and sh == 2 and ph <= kh - 2 and H >= 2 and pd < sd and GW > 0 else 0
    if wr == 1:
        G = GW
        OHB = A.ceil_div(OH, G)
        wunits = x.shape[0] * x.shape[1] * OHB
        units = 0
        dunits = 0
        A0 = 0
        Wv = WvW
        OWc = OW
        NCH = 1
        NROW = RSW
        NS = RW * RSW
        NB = 2 * (G + (kh - 1) // 2)
        LV = 0
    SLOT = A.align_up(max(G * Wv, OWw * G), epb) + epb
    return A.Tiling(block_dim=max(1, min(hw.vector_cores, units + dunits + wunits)), units=units, dunits=dunits,
                    wunits=wunits, NCH=NCH,
                    NBP=G + (kh - 1) // 2, SLOT=SLOT, ZI=SLOT - epb, RNE=RING * SLOT if wr == 1 else NR * Wv,
                    VN=epb if wr == 1 else G * Wv, RRN=epb if wr == 1 else max(NS, A.align_up(OWc, epb)) * G,
                    WRR=RW if wr == 1 else 0, SHIFT=-p if wr == 1 else 0,
                    NZ=NZ, RING=RING, NR=NR, ROWS=1 if nd == 1 else 0, SPAN=span, OHB=OHB, flat=flat, NP=NP, KG=1 if flat else kd, D=D, H=H, W=W,
                    OD=OD, OH=OH, OW=OW, G=G, NB=NB, A0=A0, OWc=OWc, OWa=A.align_up(OWc, epb), Wv=Wv, NROW=NROW,
                    NS=NS, TAP=(dl if s == 1 else OWc) * G, KWX=1 if s == 1 else RW if wr == 1 else k, LV=LV, NT=max(NS, A.align_up(OWc, epb)),
                    HF=hf, LH=LH, HS=2 ** LH, NHB=max(nhb, 1), KD=kd, KH=kh, KW=k, SD=sd, SH=sh, SW=s, PD=pd, PH=ph, PW=p, DD=dd, DH=dh, DW=dl)


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
    band = A.ub(x.dtype, t.NB * t.Wv)
    hb = A.ub(x.dtype, t.NHB * t.Wv)
    v = A.ub(x.dtype, t.VN)
    ring = A.ub(x.dtype, t.RNE)
    tt = A.ub(x.dtype, t.NT * t.G)
    rr = A.ub(x.dtype, t.RRN)
    oo = A.ub(y.dtype, t.G * t.OWa)
    idx_in = A.ub(A.i32, t.NS * t.G)
    idx_out = A.ub(A.i32, t.G * t.OWa)
    gcol = A.ub(A.i32, t.G)
    epb = A.elems_per_block(x.dtype)
    # idx_in: slot n, lane g -> V's element g*Wv + A0 + column; idx_out: lane g, column j -> rr[j*G + g]. Built once.
    for g in A.range(t.G):
        A.set(gcol, g, g * t.Wv + t.A0 + t.SHIFT)
    for n in A.range(min(8, t.NROW)):
        A.Adds(idx_in[n * t.G:], gcol, n * t.SW, t.G)
    for q in A.range(1, A.ceil_div(t.NROW, 8)):
        A.Adds(idx_in[q * 8 * t.G:], idx_in, q * 8 * t.SW, min(8, t.NROW - q * 8) * t.G)
    for kw in A.range(1, t.KWX):
        A.Adds(idx_in[kw * t.NROW * t.G:], idx_in, kw * t.DW, t.NROW * t.G)
    for r in A.range(t.WRR):                          # wr: a slot in the padding reads its ring slot's -inf
        for n in A.range(A.ceil_div(max(t.PW - r, 0), t.SW)):
            A.Duplicate(idx_in[(r * t.NROW + n) * t.G:], t.ZI, t.G)
        for n in A.range(A.ceil_div(max(t.W + t.PW - r, 0), t.SW), t.NROW):
            A.Duplicate(idx_in[(r * t.NROW + n) * t.G:], t.ZI, t.G)
    for j in A.range(8):
        A.set(idx_out, j, j * t.G)
    for q in A.range(1, t.OWa // 8):
        A.Adds(idx_out[q * 8:], idx_out, q * 8 * t.G, 8)
    for g in A.range(1, t.G):
        A.Adds(idx_out[g * t.OWa:], idx_out, g, t.OWa)
    A.Duplicate(rr, -A.inf, t.RRN)                    # columns past a ragged chunk are gathered, never stored
    if t.WRR > 0:
        A.Duplicate(ring, -A.inf, t.RNE)
    # 3-D, whole rows (wr): a unit is G output rows x every column of one volume, walking its input planes once
    w0, w1 = A.block_span(t.wunits)
    for u in A.range(w0, w1):
        vol = u // t.OHB
        oh0 = u % t.OHB * t.G
        gn = min(t.G, t.OH - oh0)
        ya = oh0 * 2 - t.PH                           # band rows: input rows ya + i, even i in phase 0, odd in 1
        l0 = A.ceil_div(max(-ya, 0), 2)               # each phase's rows in the top padding, rows held, rows loaded
        l1 = A.ceil_div(max(-ya - 1, 0), 2)
        n0 = gn + (t.KH - 1) // 2
        n1 = gn + (t.KH - 2) // 2
        e0 = min(n0, A.ceil_div(max(t.H - ya, 0), 2))
        e1 = min(n1, A.ceil_div(max(t.H - ya - 1, 0), 2))
        for iz in A.range(t.NZ, stages=2):
            A.load(band[l0 * t.Wv:], x[((vol * t.D + iz) * t.H + ya + 2 * l0) * t.W:], t.W, rows=e0 - l0,
                   src_stride=2 * t.W, dst_stride=t.Wv, pad=-A.inf)
            A.load(band[(t.NBP + l1) * t.Wv:], x[((vol * t.D + iz) * t.H + ya + 1 + 2 * l1) * t.W:], t.W,
                   rows=e1 - l1, src_stride=2 * t.W, dst_stride=t.Wv, pad=-A.inf)
            if l0 > 0:
                A.Duplicate(band, -A.inf, l0 * t.Wv)
            if e0 < n0:
                A.Duplicate(band[e0 * t.Wv:], -A.inf, (n0 - e0) * t.Wv)
            if l1 > 0:
                A.Duplicate(band[t.NBP * t.Wv:], -A.inf, l1 * t.Wv)
            if e1 < n1:
                A.Duplicate(band[(t.NBP + e1) * t.Wv:], -A.inf, (n1 - e1) * t.Wv)
            sl = iz % t.RING * t.SLOT                 # tap kh of lane g: phase kh % 2, row g + kh // 2
            A.Max(ring[sl:], band, band[t.NBP * t.Wv:], gn * t.Wv)
            for kh in A.range(2, t.KH):
                A.Max(ring[sl:], ring[sl:], band[(kh % 2 * t.NBP + kh // 2) * t.Wv:], gn * t.Wv)
            num = iz + t.PD - (t.KD - 1) * t.DD
            oa = A.ceil_div(max(num, 0), t.SD)
            ob = t.OD if iz == t.NZ - 1 else (oa + 1 if num >= 0 and num % t.SD == 0 else oa)
            for od in A.range(oa, ob):
                j0 = max(od * t.SD - t.PD, 0)         # the first plane: its slot takes the max, then W's
                tg = j0 % t.RING * t.SLOT
                for kd in A.range(t.KD):
                    jz = od * t.SD - t.PD + kd * t.DD
                    if jz > j0 and jz < t.D:
                        A.Max(ring[tg:], ring[tg:], ring[jz % t.RING * t.SLOT:], gn * t.Wv)
                A.gather(tt, ring[tg:], idx_in, t.NS * t.G, t.SLOT)
                if t.KW == 1:
                    A.copy(ring[tg:], tt, t.OW * t.G)
                else:
                    A.Max(ring[tg:], tt, tt[(1 % t.SW * t.NROW + 1 // t.SW) * t.G:], t.OW * t.G)
                    for kw in A.range(2, t.KW):
                        A.Max(ring[tg:], ring[tg:], tt[(kw % t.SW * t.NROW + kw // t.SW) * t.G:], t.OW * t.G)
                A.gather(oo, ring[tg:], idx_out, gn * t.OWa, t.SLOT)
                A.store(y[((vol * t.OD + od) * t.OH + oh0) * t.OW:], oo, t.OW, rows=gn, src_stride=t.OWa,
                        dst_stride=t.OW)
    # 3-D, not flat: a unit is G output rows x one chunk of columns of one (n, c) volume; it walks the input
    # planes once (each is read once, not once per depth tap), folds a plane's H taps into a ring slot and gives
    # the output planes whose last input plane it is (the last plane: every one left)
    d0, d1 = A.block_span(t.dunits)
    for u in A.range(d0, d1):
        vol = u // (t.OHB * t.NCH)
        oh0 = u // t.NCH % t.OHB * t.G
        gn = min(t.G, t.OH - oh0)
        ow0 = u % t.NCH * t.OWc
        m = min(t.OWc, t.OW - ow0)
        c0 = ow0 * t.SW - t.PW
        base = max(c0, 0)
        wn = min(c0 + (m - 1) * t.SW + (t.KW - 1) * t.DW + 1, t.W) - base
        ya = max(oh0 * t.SH - t.PH, 0)
        yb = min((oh0 + gn - 1) * t.SH - t.PH + (t.KH - 1) * t.DH + 1, t.H)
        ns = (m + (t.KW - 1) * t.DW if t.SW == 1 else t.NS) * t.G
        if c0 != base:                                # the chunk starts in the padding: shift the slots
            A.Adds(idx_in, idx_in, c0 - base, t.NS * t.G)
        for iz in A.range(t.NZ, stages=2):
            A.load(band[t.A0:], x[((vol * t.D + iz) * t.H + ya) * t.W + base:], wn, rows=yb - ya, src_stride=t.W,
                   dst_stride=t.Wv, pad=-A.inf)
            sl = iz % t.RING * t.G * t.Wv
            A.Duplicate(ring[sl:], -A.inf, t.G * t.Wv)
            for g in A.range(gn):
                for kh in A.range(t.KH):
                    iy = (oh0 + g) * t.SH - t.PH + kh * t.DH
                    if iy >= 0 and iy < t.H:
                        A.Max(ring[sl + g * t.Wv + t.A0:], ring[sl + g * t.Wv + t.A0:], band[(iy - ya) * t.Wv + t.A0:],
                              A.align_up(wn, epb))
            num = iz + t.PD - (t.KD - 1) * t.DD
            oa = A.ceil_div(max(num, 0), t.SD)
            ob = t.OD if iz == t.NZ - 1 else (oa + 1 if num >= 0 and num % t.SD == 0 else oa)
            for od in A.range(oa, ob):
                A.Duplicate(v, -A.inf, t.G * t.Wv)
                for kd in A.range(t.KD):
                    jz = od * t.SD - t.PD + kd * t.DD
                    if jz >= 0 and jz < t.D:
                        A.Max(v, v, ring[jz % t.RING * t.G * t.Wv:], gn * t.Wv)
                A.gather(tt, v, idx_in, ns, t.G * t.Wv)
                if t.LV > 0:
                    A.Max(rr, tt, tt[t.TAP:], ns - t.TAP)
                    if t.LV >= 2:
                        A.Max(tt, rr, rr[2 * t.TAP:], ns - 3 * t.TAP)
                    if t.LV >= 3:
                        A.Max(rr, tt, tt[4 * t.TAP:], ns - 7 * t.TAP)
                    if t.LV >= 4:
                        A.Max(tt, rr, rr[8 * t.TAP:], ns - 15 * t.TAP)
                    if t.LV % 2 == 0:
                        A.copy(rr, tt, m * t.G)
                elif t.KW == 1:
                    A.copy(rr, tt, m * t.G)
                else:
                    A.Max(rr, tt, tt[t.TAP:], m * t.G)
                    for kw in A.range(2, t.KW):
                        A.Max(rr, rr, tt[kw * t.TAP:], m * t.G)
                A.gather(oo, rr, idx_out, gn * t.OWa, t.NT * t.G)
                A.store(y[((vol * t.OD + od) * t.OH + oh0) * t.OW + ow0:], oo, m, rows=gn, src_stride=t.OWa,
                        dst_stride=t.OW)
        if c0 != base:
            A.Adds(idx_in, idx_in, base - c0, t.NS * t.G)
    u0, u1 = A.block_span(t.units)
    for u in A.range(u0, u1, stages=2):               # a unit: G output rows x one chunk of OWc columns
        ur = u // t.NCH
        ow0 = u % t.NCH * t.OWc
        m = min(t.OWc, t.OW - ow0)
        r0 = ur * t.G if t.flat else ur // t.OHB * t.OH + ur % t.OHB * t.G
        gn = min(t.G, t.NP * t.OH - r0) if t.flat else min(t.G, t.OH - ur % t.OHB * t.G)
        qa = r0 // t.OH                               # the first and the last lane's plane and row
        qb = (r0 + gn - 1) // t.OH
        c0 = ow0 * t.SW - t.PW
        base = max(c0, 0)
        wn = min(c0 + (m - 1) * t.SW + (t.KW - 1) * t.DW + 1, t.W) - base
        ns = (m + (t.KW - 1) * t.DW if t.SW == 1 else t.NS) * t.G
        if t.ROWS == 1 and c0 == base and m == t.OWc and gn == t.G and c0 + t.SPAN <= t.W:
            # 1-D, a whole chunk inside the rows: the band's rows are V's rows (no fold, no margin is read)
            A.load(band[t.A0:], x[r0 * t.W + base:], wn, rows=gn, src_stride=t.W, dst_stride=t.Wv, pad=-A.inf)
            A.gather(tt, band, idx_in, ns, t.G * t.Wv)
        else:
            A.Duplicate(v, -A.inf, t.G * t.Wv)
            if t.HF == 1:
                # band row i: input row oh0 - PH + i of the lanes' plane; rows in the padding are -inf
                oh0 = r0 % t.OH
                nr = gn + t.KH - 1
                lead = max(t.PH - oh0, 0)
                nl = min(oh0 - t.PH + nr, t.H) - (oh0 - t.PH + lead)
                A.load(band[lead * t.Wv + t.A0:], x[(qa * t.H + oh0 - t.PH + lead) * t.W + base:], wn, rows=nl,
                       src_stride=t.W, dst_stride=t.Wv, pad=-A.inf)
                if lead > 0:
                    A.Duplicate(band, -A.inf, lead * t.Wv)
                if lead + nl < nr:
                    A.Duplicate(band[(lead + nl) * t.Wv:], -A.inf, (nr - lead - nl) * t.Wv)
                wa = A.align_up(wn, epb)
                # doubling: the max of rows i .. i + 2w - 1 from two of rows i .. i + w - 1, ping-ponging band and hb
                if t.LH >= 1:
                    for i in A.range(nr - 1):
                        A.Max(hb[i * t.Wv + t.A0:], band[i * t.Wv + t.A0:], band[(i + 1) * t.Wv + t.A0:], wa)
                if t.LH >= 2:
                    for i in A.range(nr - 3):
                        A.Max(band[i * t.Wv + t.A0:], hb[i * t.Wv + t.A0:], hb[(i + 2) * t.Wv + t.A0:], wa)
                if t.LH >= 3:
                    for i in A.range(nr - 7):
                        A.Max(hb[i * t.Wv + t.A0:], band[i * t.Wv + t.A0:], band[(i + 4) * t.Wv + t.A0:], wa)
                for g in A.range(gn):                 # a window of KH rows: two windows of HS rows
                    if t.LH % 2 == 1:
                        A.Max(v[g * t.Wv + t.A0:], hb[g * t.Wv + t.A0:], hb[(g + t.KH - t.HS) * t.Wv + t.A0:], wa)
                    else:
                        A.Max(v[g * t.Wv + t.A0:], band[g * t.Wv + t.A0:], band[(g + t.KH - t.HS) * t.Wv + t.A0:], wa)
            for kg in A.range(0 if t.HF == 1 else t.KG):
                kd0 = 0 if t.flat else kg
                kd1 = t.KD if t.flat else kg + 1
                # input rows [b0, b1) hold every tap kd0 <= kd < kd1 of the lanes (flat: whole planes)
                iza = qa % t.OD * t.SD - t.PD + kd0 * t.DD
                izb = qb % t.OD * t.SD - t.PD + (kd1 - 1) * t.DD
                b0 = (qa // t.OD * t.D + max(iza, 0)) * t.H + (0 if t.flat else max(r0 % t.OH * t.SH - t.PH, 0))
                b1 = (qb // t.OD * t.D + min(izb, t.D - 1)) * t.H + (
                    t.H if t.flat else min((r0 + gn - 1) % t.OH * t.SH - t.PH + (t.KH - 1) * t.DH + 1, t.H))
                if b1 > b0:
                    A.load(band[t.A0:], x[b0 * t.W + base:], wn, rows=b1 - b0, src_stride=t.W, dst_stride=t.Wv,
                           pad=-A.inf)
                    for g in A.range(gn):
                        q = (r0 + g) // t.OH
                        oh = (r0 + g) % t.OH
                        for kd in A.range(kd0, kd1):
                            iz = q % t.OD * t.SD - t.PD + kd * t.DD
                            if iz >= 0 and iz < t.D:
                                for kh in A.range(t.KH):
                                    iy = oh * t.SH - t.PH + kh * t.DH
                                    if iy >= 0 and iy < t.H:
                                        row = (q // t.OD * t.D + iz) * t.H + iy - b0
                                        A.Max(v[g * t.Wv + t.A0:], v[g * t.Wv + t.A0:], band[row * t.Wv + t.A0:],
                                              A.align_up(wn, epb))
            if c0 != base:                            # the first chunk starts in the padding: shift the slots
                A.Adds(idx_in, idx_in, c0 - base, t.NS * t.G)
                A.gather(tt, v, idx_in, ns, t.G * t.Wv)
                A.Adds(idx_in, idx_in, base - c0, t.NS * t.G)
            else:
                A.gather(tt, v, idx_in, ns, t.G * t.Wv)
        if t.LV > 0:
            # width 2w from width w at a shift of w taps, ping-ponging between rr and tt
            A.Max(rr, tt, tt[t.TAP:], ns - t.TAP)
            if t.LV >= 2:
                A.Max(tt, rr, rr[2 * t.TAP:], ns - 3 * t.TAP)
            if t.LV >= 3:
                A.Max(rr, tt, tt[4 * t.TAP:], ns - 7 * t.TAP)
            if t.LV >= 4:
                A.Max(tt, rr, rr[8 * t.TAP:], ns - 15 * t.TAP)
            if t.LV % 2 == 0:
                A.copy(rr, tt, m * t.G)
        elif t.KW == 1:
            A.copy(rr, tt, m * t.G)
        else:
            A.Max(rr, tt, tt[t.TAP:], m * t.G)
            for kw in A.range(2, t.KW):
                A.Max(rr, rr, tt[kw * t.TAP:], m * t.G)
        A.gather(oo, rr, idx_out, gn * t.OWa, t.NT * t.G)
        A.store(y[r0 * t.OW + ow0:], oo, m, rows=gn, src_stride=t.OWa, dst_stride=t.OW)
