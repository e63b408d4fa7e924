"""Compare one kernel output with the reference's, rule by rule.

Rules, in order: the output exists; its shape and (unless the preset is a harness that does not
check it) its dtype match; NaN and Inf sit at the same positions (Inf with the same sign); the finite
elements are within the preset's tolerance; and an output that is all zeros or constant where the
reference is not fails even when every element is within tolerance (KernelBench issue #165: zeros
pass at 1e-2). Each broken rule is one `Mismatch` with the numbers and a pattern hint.
"""
from __future__ import annotations

import numpy as np

from kernelwright.tools.referee.patterns import pattern_hints
from kernelwright.tools.referee.tolerance import Tolerance
from kernelwright.tools.referee.verdict import Mismatch

_FLOAT_RANK = {"float64": 4, "float32": 3, "bfloat16": 1, "float16": 2}
_ULP = {"float16": 2 ** -10, "bfloat16": 2 ** -7, "float32": 2 ** -23, "float64": 2 ** -52}


def dtype_name(a: np.ndarray) -> str:
    return "bfloat16" if a.dtype.name == "bfloat16" else a.dtype.name


def is_float(name: str) -> bool:
    return name in _FLOAT_RANK


def as_f64(a: np.ndarray) -> np.ndarray:
    if a.dtype.kind == "c":
        return a.astype(np.complex128)
    return a.astype(np.float32).astype(np.float64) if dtype_name(a) == "bfloat16" else a.astype(np.float64)


def _scalar(v: np.ndarray | np.generic) -> float | int | bool:
    item = np.asarray(v).item()
    return round(item, 8) if isinstance(item, float) else item


def _first(mask: np.ndarray) -> list[int]:
    flat = int(np.flatnonzero(mask.reshape(-1))[0])
    return [int(i) for i in np.unravel_index(flat, mask.shape)] if mask.ndim else []


def _mismatch(rule, label: str, message: str, bad: np.ndarray, ref: np.ndarray, out: np.ndarray,
              *, itemsize: int, block_dim: int, errors: tuple[float, float] | None = None) -> Mismatch:
    m = Mismatch(rule=rule, output=label, message=message, count=int(bad.sum()), total=int(bad.size))
    if m.count:
        m.first_index = _first(bad)
        at = tuple(m.first_index)
        m.expected, m.got = _scalar(ref[at]), _scalar(out[at])
    if errors:
        m.max_abs, m.max_rel = errors
    m.hints = pattern_hints(bad, out, ref, itemsize=itemsize, block_dim=block_dim)
    return m


def _errors(d: np.ndarray, ref: np.ndarray) -> tuple[float, float]:
    if d.size == 0:
        return 0.0, 0.0
    return float(d.max()), float((d / (np.abs(ref) + 1e-7)).max())


def _numeric(tol: Tolerance, kind: str, ref: np.ndarray, out: np.ndarray, both: np.ndarray) -> tuple[np.ndarray, str]:
    """The mask of elements outside the bar (among `both`, the finite ones), and the bar in words."""
    d = np.where(both, np.abs(out - ref), 0.0)
    if not is_float(kind):
        lsb = tol.int_lsb.get(kind, 0) if tol.rule == "mere_mare" else 0
        return d > lsb, "exact" if not lsb else f"within {lsb} LSB"
    rel = d / (np.abs(ref) + 1e-7)
    if tol.rule == "mere_mare":
        t = tol.threshold(kind)
        rel = np.where(d < t * 1e-3, 0.0, rel)
        mere = float(rel[both].mean()) if both.any() else 0.0
        mare = float(rel[both].max()) if both.any() else 0.0
        bar = f"MERE {mere:.3g} (< {t:.3g}), MARE {mare:.3g} (< {10 * t:.3g})"
        if mere < t and mare < 10 * t:
            return np.zeros_like(both), bar
        return both & (rel >= (t if mere >= t else 10 * t)), bar
    atol, rtol = tol.bar(kind)
    if tol.rule == "abs_and_rel":
        return both & (d > atol) & (rel > rtol), f"abs > {atol:g} and rel > {rtol:g}"
    return both & (d > atol + rtol * np.abs(ref)), f"|d| > {atol:g} + {rtol:g}*|ref|"


def _probes(label: str, ref: np.ndarray, out: np.ndarray, kind: str, **kw) -> list[Mismatch]:
    fin = np.isfinite(ref) & np.isfinite(out)
    if out.size == 0 or not fin.any():
        return []
    r, o = ref[fin], out[fin]
    if not np.any(o) and np.any(r):
        return [_mismatch("all_zero", label, "the output is all zeros and the reference is not",
                          (ref != 0) & fin, ref, out, **kw)]
    scale = float(np.abs(r).max())
    spread = float(r.max() - r.min())
    if out.size >= 2 and o.min() == o.max() and spread > 4 * _ULP.get(kind, 0.0) * max(scale, 1e-30) and spread > 0:
        return [_mismatch("constant", label, f"the output is constant ({_scalar(o[0])!r}) and the reference varies "
                          f"(spread {spread:.3g})", fin & (ref != o[0]), ref, out, **kw)]
    return []


def compare_output(label: str, ref: np.ndarray, out: np.ndarray | None, tol: Tolerance, *,
                   block_dim: int = 0, numeric: bool = True) -> list[Mismatch]:
    """`numeric=False` leaves the tolerance rule to someone else (a task's own precision check)."""
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        return _compare(label, ref, out, tol, block_dim=block_dim, numeric=numeric)


def _compare(label: str, ref: np.ndarray, out: np.ndarray | None, tol: Tolerance, *, block_dim: int,
             numeric: bool) -> list[Mismatch]:
    if out is None:
        return [Mismatch(rule="missing_output", output=label, message="the kernel produced no such output")]
    ref, out = np.asarray(ref), np.asarray(out)
    if ref.shape != out.shape:
        same = " (same element count: a reshape or a transposed layout?)" if ref.size == out.size else ""
        return [Mismatch(rule="shape", output=label, message=f"shape {tuple(out.shape)}, expected {tuple(ref.shape)}{same}")]
    rk, ok_ = dtype_name(ref), dtype_name(out)
    found: list[Mismatch] = []
    if out.dtype == np.bool_:
        # a bool is one byte: anything but 0 or 1 was never written (outputs start as garbage), even where it
        # reads as True (a kernel that skips a block would otherwise pass wherever the reference is True)
        byte = np.ascontiguousarray(out).view(np.uint8)
        raw = byte > 1
        if raw.any():
            found.append(_mismatch("invalid_value", label, "bool output holds bytes other than 0 and 1 (never written?)",
                                   raw, as_f64(ref), byte.astype(np.float64), itemsize=1, block_dim=block_dim))
            out = np.where(raw, ~np.asarray(ref, dtype=bool), out)   # count them as wrong below too
    if rk != ok_:
        if tol.check_dtype:
            return [Mismatch(rule="dtype", output=label, message=f"dtype {ok_}, expected {rk}")]
    # compare in the coarser of the two formats when the preset allows differing dtypes
    kind = min((rk, ok_), key=lambda k: _FLOAT_RANK.get(k, 9)) if rk != ok_ else rk
    if ref.dtype.kind == "c" or out.dtype.kind == "c":
        ref_f, out_f = np.concatenate([as_f64(ref).real, as_f64(ref).imag]), np.concatenate([as_f64(out).real, as_f64(out).imag])
    else:
        ref_f, out_f = as_f64(ref), as_f64(out)
    kw = {"itemsize": out.dtype.itemsize, "block_dim": block_dim}
    rn, on = np.isnan(ref_f), np.isnan(out_f)
    if (rn != on).any():
        found.append(_mismatch("nan_position", label, "NaN positions differ from the reference", rn != on, ref_f, out_f, **kw))
    ri, oi = np.isinf(ref_f), np.isinf(out_f)
    inf_bad = (ri != oi) | (ri & oi & (np.sign(ref_f) != np.sign(out_f)))
    if inf_bad.any():
        found.append(_mismatch("inf_position", label, "Inf positions (or signs) differ from the reference", inf_bad,
                               ref_f, out_f, **kw))
    both = np.isfinite(ref_f) & np.isfinite(out_f)
    bad, bar = _numeric(tol, kind, ref_f, out_f, both) if numeric else (np.zeros_like(both), "")
    if bad.any():
        d = np.abs(out_f - ref_f)[both]
        found.append(_mismatch("tolerance", label, f"{int(bad.sum())} elements outside the {tol.name} bar ({bar}) for "
                               f"{kind}", bad, ref_f, out_f, errors=_errors(d, ref_f[both]), **kw))
    if not found:
        found += _probes(label, ref_f, out_f, kind, **kw)
    return found


def compare_unchanged(label: str, before: np.ndarray, after: np.ndarray | None) -> Mismatch | None:
    """Bitwise: an input the reference does not modify must come back unchanged."""
    if after is None:
        return None
    a, b = np.ascontiguousarray(before), np.ascontiguousarray(after)
    if a.shape != b.shape or a.dtype != b.dtype:
        return Mismatch(rule="input_mutated", output=label, message="the input buffer changed shape or dtype")
    step = max(1, a.dtype.itemsize)
    av, bv = a.reshape(-1).view(np.uint8).reshape(-1, step), b.reshape(-1).view(np.uint8).reshape(-1, step)
    changed = (av != bv).any(axis=1).reshape(a.shape)
    if not changed.any():
        return None
    return _mismatch("input_mutated", label, "the kernel wrote into an input (the reference leaves it unchanged)",
                     changed, as_f64(a) if a.dtype.kind != "c" else a, as_f64(b) if b.dtype.kind != "c" else b,
                     itemsize=a.dtype.itemsize, block_dim=0)
