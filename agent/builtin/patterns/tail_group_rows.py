"""GroupNorm of a (rows, C) value whose groups are narrow (a GEMM's features in G groups of L = C / G, with L a
few elements): the composer's row per group would be rows * G iterations of a handful of lanes each (262144
rows of 2 lanes for a 1024 x 8192 GEMM in 256 groups at the check's shapes), which neither the interpreter nor
the emulator gets through in time. Here a unit is one row's run of Gc groups: its Gc * L elements are loaded
once and gathered into L rows of Gc lanes (tt[l * Gc + g] = x[g * L + l]), so the statistics are L vector
adds over Gc lanes, not one scalar reduction per group; a second gather puts the normalised values back in
channel order for the affine pair and the store. Both index tables are built once per block."""
from __future__ import annotations

from kernelwright.agent.builtin.dslgen import doc

NARROW = 64          # groups of at most this many channels take this stage


def group_count(channels: str, traced: int, groups: int) -> tuple[str, str]:
    """The DSL expressions (group count, channels per group) of a group norm from its channels' expression
    `channels` (`traced` of them in `groups` groups at the task's shapes): the channels per group are the
    constant, as the shrinker shrinks the channels and the task's group count alike (tasks/shrink.py); one
    group stays one."""
    if groups == 1:
        return "1", f"({channels})"
    return f"(({channels}) // {traced // groups})", str(traced // groups)


def program(groups: int, eps: float, affine: bool, channels: int) -> str:
    """A stage program over x (rows, C) and, when `affine`, weight and bias (C,): GroupNorm(groups) of x, its
    `channels` at the task's shapes (the program keeps their number per group)."""
    ins = ["x", "weight", "bias"] if affine else ["x"]
    # bytes per element: xin, yout; xf, tt (and wv, bv); idx, inv; each gather's hidden i32 offsets
    per = "2 * x.dtype.size + 32" + (" + weight.dtype.size + bias.dtype.size + 8" if affine else "")
    cols = ", ".join(f'"{i}": (A.f32, A.f16, A.bf16)' for i in ins)
    decl_affine = ["win = A.ub(weight.dtype, t.E)", "bin_ = A.ub(bias.dtype, t.E)", "wv = A.ub(A.f32, t.E)",
                   "bv = A.ub(A.f32, t.E)"] if affine else []
    apply_affine = ["    A.load(win, weight[g0 * t.L:], n)", '    A.Cast(wv, win, "auto", n)', "    A.Mul(xf, xf, wv, n)",
                    "    A.load(bin_, bias[g0 * t.L:], n)", '    A.Cast(bv, bin_, "auto", n)',
                    "    A.Add(xf, xf, bv, n)"] if affine else []
    lines = [
        "xin = A.ub(x.dtype, t.E)", "xf = A.ub(A.f32, t.E)", "tt = A.ub(A.f32, t.E)", "idx = A.ub(A.i32, t.E)",
        "inv = A.ub(A.i32, t.E)", "s1 = A.ub(A.f32, t.Gc)", "s2 = A.ub(A.f32, t.Gc)", "dd = A.ub(A.f32, t.Gc)",
        *decl_affine, "yout = A.ub(x.dtype, t.E)",
        "A.Duplicate(xf, 0.0, t.E)                     # lanes past a short last run: defined, never stored",
        "for g in A.range(t.Gc):",
        "    A.set(idx, g, g * t.L)",
        "    for l in A.range(t.L):",
        "        A.set(inv, g * t.L + l, l * t.Gc + g)",
        "for l in A.range(1, t.L):                    # row l of idx: row 0 shifted by l",
        "    A.Adds(idx[l * t.Gc:], idx, l, t.Gc)",
        "u0, u1 = A.block_span(t.units)",
        "for u in A.range(u0, u1):",
        "    b = u // t.pieces",
        "    g0 = u % t.pieces * t.Gc",
        "    n = min(t.Gc, t.G - g0) * t.L",
        "    A.load(xin, x[b * t.C + g0 * t.L:], n)",
        '    A.Cast(xf, xin, "auto", n)',
        "    A.gather(tt, xf, idx, t.E, t.E)           # L rows of Gc lanes: channel l of each group",
        "    A.Duplicate(s1, 0.0, t.Gc)",
        "    for l in A.range(t.L):",
        "        A.Add(s1, s1, tt[l * t.Gc:], t.Gc)",
        "    A.Muls(s1, s1, t.inv_l, t.Gc)",
        "    A.Duplicate(s2, 0.0, t.Gc)",
        "    for l in A.range(t.L):",
        "        A.Sub(tt[l * t.Gc:], tt[l * t.Gc:], s1, t.Gc)",
        "        A.Mul(dd, tt[l * t.Gc:], tt[l * t.Gc:], t.Gc)",
        "        A.Add(s2, s2, dd, t.Gc)",
        "    A.Muls(s2, s2, t.inv_l, t.Gc)",
        "    A.Adds(s2, s2, t.eps, t.Gc)",
        "    A.Sqrt(s2, s2, t.Gc)",
        "    for l in A.range(t.L):",
        "        A.Div(tt[l * t.Gc:], tt[l * t.Gc:], s2, t.Gc)",
        "    A.gather(xf, tt, inv, t.E, t.E)           # back in channel order",
        *apply_affine,
        '    A.Cast(yout, xf, "auto", n)',
        "    A.store(y[b * t.C + g0 * t.L:], yout, n)",
    ]
    host = [
        "C = x.shape[1]",
        "B = x.numel // C",
        f"G = {group_count('C', channels, groups)[0]}",
        "L = C // G",
        f"per = {per}",
        "Gc = min(A.align_up(G, 8), max(8, A.align_down((hw.ub_bytes - 4096) // (L * per + 12), 8)))",
        "pieces = A.ceil_div(G, Gc)",
        "units = B * pieces",
        "nb = max(1, min(hw.vector_cores, units))",
        f"return A.Tiling(block_dim=nb, C=C, G=G, L=L, Gc=Gc, E=Gc * L, pieces=pieces, units=units, "
        f"inv_l=1.0 / L, eps={float(eps)!r})",
    ]
    args = ", ".join(ins)
    return (doc(f"GroupNorm({groups}) of a (rows, C) value in narrow groups, gathered into rows of groups "
                "(written by the builtin writer).") + "\n\n"
            f"@A.tiling\ndef tiling({args}, hw):\n" + "\n".join("    " + h for h in host) + "\n\n\n"
            f"@A.shapes\ndef shapes({args}):\n    return {{\"y\": (x.shape[0], x.shape[1], )}}\n\n\n"
            f'@A.kernel(inputs={{{cols}}}, outputs={{"y": "x"}})\n'
            f"def group_rows({args}, y, t):\n" + "\n".join("    " + ln for ln in lines) + "\n")


def window_program(kind: str, k: int) -> str:
    """A stage program over x (rows, Wi): pooling (kind "amax" or "mean") of the last axis in windows of k taps,
    k apart, to (rows, (Wi - k) // k + 1). A unit is a run of Wc windows (of one row, or anywhere when the
    windows tile the rows exactly) or, when a row's windows leave a remainder and fit a run, nr whole rows
    (a conv's 126-wide row in windows of 4: one unit per row cost ~10 statements per 31 windows): gathered into
    k rows of Wc lanes, then k - 1 vector maxima or sums."""
    fold = "A.Max" if kind == "amax" else "A.Add"
    lines = [
        "xin = A.ub(x.dtype, t.E)", "xf = A.ub(A.f32, t.E)", "tt = A.ub(A.f32, t.E)", "idx = A.ub(A.i32, t.E)",
        "acc = A.ub(A.f32, t.Wc)", "yout = A.ub(x.dtype, t.Wc)",
        "A.Duplicate(xf, 0.0, t.E)                     # lanes past a short last run: defined, never stored",
        "A.Duplicate(idx, 0, t.E)                      # lanes past nr whole rows: tap 0, never stored",
        "for w in A.range(min(t.O, t.Wc)):            # lane rr * Oc + w: window w of the unit's row rr",
        "    A.set(idx, w, w * t.K)",
        "for rr in A.range(1, t.nr):",
        "    A.Adds(idx[rr * t.Oc:], idx, rr * t.Wi, t.Oc)",
        "for j in A.range(1, t.K):                     # row j of idx: row 0 shifted by j",
        "    A.Adds(idx[j * t.Wc:], idx, j, t.Wc)",
        "u0, u1 = A.block_span(t.units)",
        "for u in A.range(u0, u1):",
        "    r = u // t.pieces * t.nr",
        "    w0 = u % t.pieces * t.Wc",
        "    m = min(t.Wc, t.O - w0)",
        "    rn = min(t.nr, t.R - r) - 1                # whole rows after the first (nr > 1: w0 = 0, m = O)",
        "    A.load(xin, x[r * t.Wi + w0 * t.K:], rn * t.Wi + m * t.K)",
        '    A.Cast(xf, xin, "auto", rn * t.Wi + m * t.K)',
        "    A.gather(tt, xf, idx, t.E, t.E)           # tap j of every window: row j",
        "    A.copy(acc, tt, t.Wc)",
        "    for j in A.range(1, t.K):",
        f"        {fold}(acc, acc, tt[j * t.Wc:], t.Wc)",
        *(["    A.Muls(acc, acc, t.inv_k, t.Wc)"] if kind == "mean" else []),
        '    A.Cast(yout, acc, "auto", rn * t.Oc + m)',
        "    A.store(y[r * t.O + w0:], yout, m, rows=rn + 1, src_stride=t.Oc, dst_stride=t.O)",
    ]
    host = [
        f"K = {k}",
        "Wi = x.shape[1]",
        "R = x.shape[0]",
        "O = (Wi - K) // K + 1",
        "if O * K == Wi:",                 # the windows tile every row: one run of windows over all rows
        "    O = O * R",
        "    Wi = Wi * R",
        "    R = 1",
        # bytes per tap: xin; xf, tt; idx and the gather's hidden i32 offsets; per window: acc, yout
        "Wc = max(8, A.align_down((hw.ub_bytes - 4096) // (K * (16 + x.dtype.size) + 4 + x.dtype.size), 8))",
        # nr whole rows a run when they fit, their lanes Oc apart (32-byte aligned views; Oc > O, so the taps of
        # nr rows, nr * Wi < nr * (O + 1) * K, fit the E lanes of xin), else runs of Wc windows of a row
        "Oc = A.align_up(O + 1, 16)",
        "nr = max(1, min(R, Wc // Oc))",
        "Wc = nr * Oc if nr > 1 else min(Wc, A.align_up(O, 8))",
        "Oc = Oc if nr > 1 else Wc",
        "pieces = A.ceil_div(O, Wc) if nr == 1 else 1",
        "units = A.ceil_div(R, nr) * pieces",
        "nb = max(1, min(hw.vector_cores, units))",
        "return A.Tiling(block_dim=nb, K=K, Wi=Wi, O=O, R=R, Wc=Wc, Oc=Oc, nr=nr, E=Wc * K, pieces=pieces, "
        f"units=units, inv_k={1.0 / k!r})",
    ]
    return (doc(f"{'Max' if kind == 'amax' else 'Average'} pooling of the last axis in windows of {k}, gathered into "
                "rows of taps (written by the builtin writer).") + "\n\n"
            "@A.tiling\ndef tiling(x, hw):\n" + "\n".join("    " + h for h in host) + "\n\n\n"
            "@A.shapes\ndef shapes(x):\n"
            f"    return {{\"y\": (x.shape[0], (x.shape[1] - {k}) // {k} + 1, )}}\n\n\n"
            '@A.kernel(inputs={"x": (A.f32, A.f16, A.bf16)}, outputs={"y": "x"})\n'
            "def window_rows(x, y, t):\n" + "\n".join("    " + ln for ln in lines) + "\n")
