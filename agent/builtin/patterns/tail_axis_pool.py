"""The stage program for pooling an axis that is not the last one (a pool3d's D or H after a convolution) in
windows of a few taps, k apart: x seen as (rows, H, I), the windows along H, each window giving I outputs. The
composer's form of it (the axis as (windows, taps), a reduction over the taps) costs a unit per window row with
only I lanes busy (I = 15 after a 3-d max pool's first axis); here a unit is nr whole rows (or a run of windows
of one row) gathered into k rows of lanes, then k - 1 vector maxima or sums, and one strided store."""
from __future__ import annotations

from kernelwright.agent.builtin.dslgen import doc

LANE = 16            # a window row's I outputs take align_up(I, LANE) lanes: 32-byte views for f16/bf16 and i32


def lanes_budget(k: int, ub_bytes: int, dsize: int = 4) -> int:
    """Lanes of output a unit may hold (the host function's Lb): per tap xin, xf, tt, idx and the gather's
    hidden i32 offsets; per lane acc and yout."""
    return (ub_bytes - 4096) // (k * (16 + dsize) + 4 + dsize)


def fits(k: int, inner: int, ub_bytes: int) -> bool:
    """At least two window rows a unit, or the composer's form is as good."""
    return 2 * -(-inner // LANE) * LANE <= lanes_budget(k, ub_bytes)


def axis_window_program(kind: str, k: int) -> str:
    fold = "A.Max" if kind == "amax" else "A.Add"
    lines = [
        "xin = A.ub(x.dtype, t.E)", "xf = A.ub(A.f32, t.E)", "tt = A.ub(A.f32, t.T)", "idx = A.ub(A.i32, t.T)",
        "acc = A.ub(A.f32, t.L)", "yout = A.ub(x.dtype, t.L)",
        "A.Duplicate(xf, 0.0, t.E)                     # lanes past a short last unit: defined, never stored",
        "A.Duplicate(idx, 0, t.T)",
        "for w in A.range(t.I):                       # lanes q * Ia + w: output w of the unit's window row q",
        "    A.set(idx, w, w)",
        "for q in A.range(1, t.nq):                   # window row q: window q % O of the unit's row q // O",
        "    A.Adds(idx[q * t.Ia:], idx, q // t.O * t.H * t.I + q % t.O * t.K * t.I, t.Ia)",
        "for j in A.range(1, t.K):                     # row j of idx: tap j, row 0 shifted by j * I",
        "    A.Adds(idx[j * t.L:], idx, j * t.I, t.L)",
        "u0, u1 = A.block_span(t.units)",
        "for u in A.range(u0, u1):",
        "    r = u // t.pieces * t.nr",
        "    o0 = u % t.pieces * t.Oc",
        "    m = min(t.Oc, t.O - o0)",
        "    rn = min(t.nr, t.R - r) - 1                # whole rows after the first (nr > 1: o0 = 0, m = O)",
        "    A.load(xin, x[(r * t.H + o0 * t.K) * t.I:], (rn * t.H + m * t.K) * t.I)",
        '    A.Cast(xf, xin, "auto", (rn * t.H + m * t.K) * t.I)',
        "    A.gather(tt, xf, idx, t.T, t.E)           # tap j of every window row: row j",
        "    A.copy(acc, tt, t.L)",
        "    for j in A.range(1, t.K):",
        f"        {fold}(acc, acc, tt[j * t.L:], t.L)",
        *(["    A.Muls(acc, acc, t.inv_k, t.L)"] if kind == "mean" else []),
        "    qn = rn * t.O + m",
        '    A.Cast(yout, acc, "auto", (qn - 1) * t.Ia + t.I)',
        "    A.store(y[(r * t.O + o0) * t.I:], yout, t.I, rows=qn, src_stride=t.Ia, dst_stride=t.I)",
    ]
    host = [
        f"K = {k}",
        "R = x.shape[0]",
        "H = x.shape[1]",
        "I = x.shape[2]",
        "O = (H - K) // K + 1",
        f"Ia = A.align_up(I, {LANE})",
        "Lb = (hw.ub_bytes - 4096) // (K * (16 + x.dtype.size) + 4 + x.dtype.size)",
        # nr whole rows a unit when they fit (their H * I inputs < (O + 1) * K * Ia lanes of taps), else Oc windows
        "nr = max(1, min(R, Lb // (Ia * (O + 1))))",
        "Oc = O if nr > 1 else max(1, min(O, Lb // Ia))",
        "pieces = A.ceil_div(O, Oc)",
        "nq = nr * Oc",
        "L = nq * Ia",
        "E = nr * H * I if nr > 1 else Oc * K * I",
        "units = A.ceil_div(R, nr) * pieces",
        "nb = max(1, min(hw.vector_cores, units))",
        "return A.Tiling(block_dim=nb, K=K, R=R, H=H, I=I, O=O, Ia=Ia, nr=nr, Oc=Oc, nq=nq, L=L, T=K * L, E=E, "
        f"pieces=pieces, units=units, inv_k={1.0 / k!r})",
    ]
    return (doc(f"{'Max' if kind == 'amax' else 'Average'} pooling of the middle axis of (rows, H, I) in windows of "
                f"{k}, gathered into rows of taps (written by the builtin writer).") + "\n\n"
            "@A.tiling\ndef tiling(x, hw):\n" + "\n".join("    " + h for h in host) + "\n\n\n"
            "@A.shapes\ndef shapes(x):\n"
            f"    return {{\"y\": (x.shape[0], (x.shape[1] - {k}) // {k} + 1, x.shape[2], )}}\n\n\n"
            '@A.kernel(inputs={"x": (A.f32, A.f16, A.bf16)}, outputs={"y": "x"})\n'
            "def axis_window_rows(x, y, t):\n" + "\n".join("    " + ln for ln in lines) + "\n")
