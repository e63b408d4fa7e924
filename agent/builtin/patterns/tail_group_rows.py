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


def program(groups: int, eps: float, affine: bool) -> str:
    """A stage program over x (rows, C) and, when `affine`, weight and bias (C,): GroupNorm(groups) of x."""
    ins = ["x", "weight", "bias"] if affine else ["x"]
    per = "4 * x.dtype.size + 20" + (" + weight.dtype.size + bias.dtype.size + 8" if affine else "")
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
        "for l in A.range(t.L):",
        "    for g in A.range(t.Gc):",
        "        A.set(idx, l * t.Gc + g, g * t.L + l)",
        "        A.set(inv, g * t.L + l, l * t.Gc + g)",
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
        f"G = {groups}",
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
