"""The data phases of a convolution program (conv_dsl), by the copy engines alone: every element the GEMM reads
is moved GM -> UB -> GM with A.move, so no vector instruction count grows with the reduction length
C_in * kernel volume (the only vector instruction before the GEMM fills one row of zeros, once).
  zeros:     one block writes `bwa` zeros to the workspace zw; every padding run of col (and the gaps of an
             upsampled input) is copied from it;
  upsample:  (transposed, stride > 1) u = the input with stride - 1 zeros between samples, a segment of a row
             at a time: the segment zeroed from zw, then the samples written every stride-th element;
  weight:    (transposed) the weight (CI, CO/g, k) reordered to the GEMM's (CO, CI/g * k), cb rows per copy;
  phases:    (a stride S along W) each source row split once into its S phases, xp[row, p, j] = src[row, j*S + p];
  im2col:    per (image, channel, kd, kh, od) and kernel column kw: the OH x OW block of col as one 2-d copy (a
             row per output row) from the source or from the phase kw reads, its padding columns and the output
             rows reading outside the input copied from zw.
A pointwise convolution (1x1..., stride 1, no padding) has col == x and skips the im2col phase."""
from __future__ import annotations

from kernelwright.agent.builtin.patterns.conv_spec import ConvSpec

SEGMENT = 2048       # outputs of one copy: rows of one element take 32 bytes of UB each (64 KiB), below 4095 rows
LOCALS = {"u", "wt", "col", "zw", "zt", "via", "z_", "lz", "hz", "lo0", "hi0", "r", "th", "td", "nc", "u0", "un",
          "x0", "xn", "lo1", "hi1", "j", "ci", "c0", "cn", "lo2", "hi2", "oh", "od", "kh", "kd", "d_", "h_", "crow",
          "rb", "kw", "lead", "tail", "lo_o", "hi_o", "a_", "hl", "oh0", "oh1", "e1", "rc", "rz", "q_", "xp", "lo5", "hi5", "p_", "pn",
          "wn", "w_"}


def pointwise(spec: ConvSpec) -> bool:
    """col is the input itself: a forward convolution reading every position once, in order."""
    return not spec.transposed and spec.kernel == [1, 1, 1] and spec.stride == [1, 1, 1] and \
        spec.padding == [0, 0, 0]


def upsampled(spec: ConvSpec) -> bool:
    return spec.transposed and spec.stride != [1, 1, 1]


def decls(x: str, w: str, spec: ConvSpec) -> list[str]:
    if pointwise(spec):
        return []
    out = [f"zw = A.workspace({x}.dtype, t.bwa)              # zeros: the padding runs are copied from here",
           f"zt = A.ub({x}.dtype, t.bwa)",
           f"via = A.ub({x}.dtype, t.vcap)                  # A.move's staging: bw rows of 32 bytes, or cb weight rows",
           f"col = A.workspace({x}.dtype, t.csize)"]
    if upsampled(spec):
        out.insert(0, f"u = A.workspace({x}.dtype, t.usize)")
    if spec.step[2] > 1:
        out.insert(0, f"xp = A.workspace({x}.dtype, t.psize)       # the source rows split into their W phases")
    if spec.transposed:
        out.insert(0, f"wt = A.workspace({w}.dtype, t.wsize)")
    return out


def zeros() -> list[str]:
    return ["lz, hz = A.block_span(1)", "for z_ in A.range(lz, hz):", "    A.Duplicate(zt, 0.0, t.bwa)",
            "    A.store(zw, zt, t.bwa)", "A.sync_all()"]


def transposed_inputs(x: str, w: str, spec: ConvSpec) -> list[str]:
    """Phase 0 of a transposed convolution: the upsampled input (stride > 1) and the reordered weight."""
    kk = spec.kernel[0] * spec.kernel[1] * spec.kernel[2]
    out = []
    if upsampled(spec):
        sd, sh, sw = spec.stride
        out += ["lo0, hi0 = A.block_span(t.urows)",
                "for r in A.range(lo0, hi0):                 # r = (nc * UD + td) * UH + th: a row of the upsampled input",
                "    th = r % t.UH", "    td = r // t.UH % t.UD", "    nc = r // (t.UH * t.UD)",
                "    for u0 in A.range(0, t.UW, t.bu):", "        un = min(t.bu, t.UW - u0)",
                "        A.move(u[r * t.UW + u0:], zw, un, via=via)",
                f"        if td % {sd} == 0 and th % {sh} == 0:",
                f"            x0 = u0 // {sw}", f"            xn = (un - 1) // {sw} + 1",
                f"            A.move(u[r * t.UW + u0:], {x}[((nc * t.ID + td // {sd}) * t.IH + th // {sh}) * t.IW + x0:], "
                f"1, via=via, rows=xn, src_stride=1, dst_stride={sw})"]
    out += ["lo1, hi1 = A.block_span(t.wtasks)",
            "for j in A.range(lo1, hi1):                  # weight (CI, CO/g, k) -> (CO, CI/g * k), cb rows at a time",
            "    ci = j // t.wc", "    c0 = j % t.wc * t.cb", "    cn = min(t.cb, t.COg - c0)",
            f"    A.move(wt[(ci // (t.C // t.G) * t.COg + c0) * t.CKKg + ci % (t.C // t.G) * {kk}:], "
            f"{w}[(ci * t.COg + c0) * {kk}:], {kk}, via=via, rows=cn, src_stride={kk}, dst_stride=t.CKKg)",
            "A.sync_all()"]
    return out


def _flip(spec: ConvSpec, k: str, axis: int) -> str:
    return f"({spec.kernel[axis] - 1} - {k})" if spec.transposed else k


def im2col(src: str, spec: ConvSpec) -> list[str]:
    """Phase 1: col[n] (C * KD * KH * KW rows x OD * OH * OW columns) from the source."""
    if spec.step[2] == 1:
        return im2col_planes(src, spec)
    return phases(src, spec) + im2col_planes("xp", spec)


def phases(src: str, spec: ConvSpec) -> list[str]:
    """A stride S along W: each source row split into its S phases (xp[row, p, j] = src[row, j * S + p], one
    copy of one-element rows S apart per phase), so every kernel column reads one phase contiguously and the
    im2col is the step-1 one: each source element is copied once more, not once per kernel tap."""
    sw = spec.step[2]
    return ["lo5, hi5 = A.block_span(t.srows)",
            "for r in A.range(lo5, hi5):                     # a row of the source",
            f"    for p_ in A.range(0, {sw}):",
            f"        pn = (t.UW - p_ + {sw - 1}) // {sw}",
            "        for a_ in A.range(0, pn, t.bw):",
            f"            A.move(xp[(r * {sw} + p_) * t.PWd + a_:], {src}[r * t.UW + a_ * {sw} + p_:], 1, via=via, "
            f"rows=min(t.bw, pn - a_), src_stride={sw}, dst_stride=1)",
            "A.sync_all()"]


def _kw_block(spec: ConvSpec, src: str, kw: str, lead: str, width: str, row: str, stride: str) -> list[str]:
    """The copies of one kernel column (DSL lines at the kw loop's body indent 0): output column ow of output
    row oh reads src[row(oh) + ow - lead], inside the source for 0 <= ow - lead < width."""
    zero_cols = ("A.move(col[c0 + q_ * t.OW + {at}:], zw, {n}, via=via, rows=min(rz, e1 - q_), src_stride={n}, "
                 "dst_stride=t.OW)")
    return [f"c0 = crow + {kw} * t.OHW",
            f"lead = {lead}",
            "lo_o = min(t.OW, max(lead, 0))",
            f"hi_o = max(lo_o, min(t.OW, {width} + lead)) if {width} + lead > 0 else lo_o",
            "e1 = oh1 if hi_o > lo_o else oh0",
            "for a_ in A.range(0, oh0 * t.OW, t.bw):   # output rows above the source: zeros",
            "    A.move(col[c0 + a_:], zw, min(t.bw, oh0 * t.OW - a_), via=via)",
            "for a_ in A.range(e1 * t.OW, t.OH * t.OW, t.bw):   # ... and below it",
            "    A.move(col[c0 + a_:], zw, min(t.bw, t.OH * t.OW - a_), via=via)",
            "wn = max(1, min(hi_o - lo_o, t.vcap // t.epb * t.epb))   # a row wider than the staging tile: pieces",
            "rc = max(1, min(4095, t.vcap // A.align_up(wn, t.epb)))",
            "for q_ in A.range(oh0, e1, rc):",
            "    for w_ in A.range(lo_o, hi_o, wn):",
            f"        A.move(col[c0 + q_ * t.OW + w_:], {src}[{row} + w_ - lead:], min(wn, hi_o - w_), via=via, "
            f"rows=min(rc, e1 - q_), src_stride={stride}, dst_stride=t.OW)",
            "if lo_o > 0:                              # the padding columns left and right: rows from zw",
            "    rz = max(1, min(4095, t.bwa // lo_o, t.vcap // A.align_up(lo_o, t.epb)))",
            "    for q_ in A.range(oh0, e1, rz):",
            "        " + zero_cols.format(at="0", n="lo_o"),
            "if hi_o < t.OW:",
            "    rz = max(1, min(4095, t.bwa // (t.OW - hi_o), t.vcap // A.align_up(t.OW - hi_o, t.epb)))",
            "    for q_ in A.range(oh0, e1, rz):",
            "        " + zero_cols.format(at="hi_o", n="t.OW - hi_o")]


def im2col_planes(src: str, spec: ConvSpec) -> list[str]:
    """Per (image, channel, kd, kh, od) and kernel column, the OH x OW block of col is one 2-d copy (a row per
    output row, SH source rows apart), the padding columns either side two more from zw, and the output rows
    whose source row lies outside the input one contiguous run of zeros before and after. Over the phases xp
    of a strided source, kernel column kw reads phase (kw * LW - PW) mod S from column ow + (kw * LW - PW) // S:
    the kw loop is unrolled with those constants."""
    (KD, KH, KW), (SD, SH, SW) = spec.kernel, spec.step
    (PD, PH, PW), (LD, LH, LW) = spec.padding, spec.dilation
    head = ["lo2, hi2 = A.block_span(t.prows)",
            "for r in A.range(lo2, hi2):                     # r = ((nc * KD + kd) * KH + kh) * OD + od",
            "    od = r % t.OD", f"    kh = r // t.OD % {KH}", f"    kd = r // (t.OD * {KH}) % {KD}",
            f"    nc = r // (t.OD * {KH * KD})",
            f"    d_ = od * {SD} + {_flip(spec, 'kd', 0)} * {LD} - {PD}",
            f"    hl = {PH} - {_flip(spec, 'kh', 1)} * {LH}      # output row oh reads source row oh * SH - hl",
            f"    oh0 = min(t.OH, (max(hl, 0) + {SH - 1}) // {SH}) if d_ >= 0 and d_ < t.UD else t.OH",
            f"    oh1 = max(oh0, min(t.OH, (t.UH - 1 + hl) // {SH} + 1)) if t.UH - 1 + hl >= 0 else oh0",
            f"    crow = (nc * {KD * KH * KW} + (kd * {KH} + kh) * {KW}) * t.OHW + od * t.OH * t.OW"]
    if SW == 1:
        body = _kw_block(spec, src, "kw", f"{PW} - {_flip(spec, 'kw', 2)} * {LW}", "t.UW",
                         f"((nc * t.UD + d_) * t.UH + q_ * {SH} - hl) * t.UW", f"{SH} * t.UW")
        return head + [f"    for kw in A.range(0, {KW}):"] + ["        " + b for b in body] + ["A.sync_all()"]
    lines = list(head)
    for kw in range(KW):
        m = kw * LW - PW                    # output ow reads source column ow * S + m
        p, q0 = m % SW, m // SW
        body = _kw_block(spec, src, str(kw), str(-q0), f"((t.UW - {p} + {SW - 1}) // {SW})",
                         f"(((nc * t.UD + d_) * t.UH + q_ * {SH} - hl) * {SW} + {p}) * t.PWd", f"{SH * SW} * t.PWd")
        lines += [f"    # kernel column {kw}: phase {p}"] + ["    " + b for b in body]
    return lines + ["A.sync_all()"]
