"""Outputs start as a value the reference never produces, and a kernel must overwrite every element.

Where the reference itself is NaN, a kernel that writes nothing would otherwise pass: outputs start as
garbage, and garbage that happens to read as NaN sits where NaN is expected. So each output dtype gets a
poison bit pattern that appears nowhere in this trial's reference outputs (for floats, a NaN payload:
never a plausible finite result), the backend fills the output with it, and any element still holding
it afterwards was never written (rule `unwritten`).
"""
from __future__ import annotations

import numpy as np

from kernelwright.tools.dtypes import BY_NAME, numpy_dtype
from kernelwright.tools.referee.verdict import Mismatch
from kernelwright.tools.toolchain import Case, OutputSpec

_UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
_MANTISSA = {"float16": 10, "bfloat16": 7, "float32": 23, "float64": 52}


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a).reshape(-1).view(_UINT[a.dtype.itemsize])


def pattern(dtype_name: str, avoid: list[np.ndarray]) -> bytes | None:
    """One element's bytes that no array in `avoid` holds (None when every pattern is taken, or the
    dtype is not one we poison). Floats get a NaN with a payload that no arithmetic makes (never the
    default NaNs, nor all ones: what other backends fill outputs with), so a kernel's own NaN is never
    taken for the poison; integers start at all ones (-1 or the maximum)."""
    d = BY_NAME.get(dtype_name)
    if d is None or d.size not in _UINT or dtype_name.startswith(("complex", "float8", "hifloat")):
        return None
    same = [_bits(a) for a in avoid if a.dtype.itemsize == d.size and a.size]
    bits, mantissa = 8 * d.size, _MANTISSA.get(dtype_name)
    top = (1 << bits) - 1
    if mantissa:
        exponent, quiet = ((1 << (bits - 1)) - 1) & ~((1 << mantissa) - 1), 1 << (mantissa - 1)
        first = exponent | quiet | (0x5A5A5A5A5A5A5A5A & (quiet - 1))

        def allowed(c: int) -> bool:
            low = c & ((1 << mantissa) - 1)
            return c & exponent == exponent and low not in (0, quiet, (1 << mantissa) - 1)
    else:
        first = top

        def allowed(c: int) -> bool:
            return True
    if bits <= 16:                               # few enough to count them all
        held = np.zeros(1 << bits, dtype=bool)
        for b in same:
            held[b] = True
        tries = (c for c in [first, *range(top, -1, -1)] if not held[c])
    else:
        rng = np.random.default_rng(bits)
        tries = (c for c in [first] + [int(rng.integers(0, top, endpoint=True, dtype=np.uint64)) | (exponent if mantissa else 0)
                                      for _ in range(64)] if not any((b == c).any() for b in same))
    free = next((c for c in tries if allowed(c)), None)
    return None if free is None else np.array([free], dtype=_UINT[d.size]).tobytes()


def poison(case: Case, expected: list[np.ndarray]) -> None:
    """Give every output the case makes (not an input it updates in place) its poison."""
    for name, spec in case.outputs.items():
        if name not in case.inputs:
            found = pattern(spec.dtype, expected)
            spec.poison = found.hex() if found is not None else None


def unwritten(case: Case, outputs: dict[str, np.ndarray], skip: set[str] | frozenset[str] = frozenset()) -> list[Mismatch]:
    """One mismatch per output (but those in `skip`) with elements that still hold their poison."""
    found = []
    for name, spec in case.outputs.items():
        out = outputs.get(name)
        if name in skip or not spec.poison or out is None or out.size == 0:
            continue
        mask = _still_poison(out, spec)
        if mask.any():
            first = [int(i) for i in np.unravel_index(int(np.flatnonzero(mask)[0]), out.shape)] if out.ndim else []
            found.append(Mismatch(rule="unwritten", output=name, count=int(mask.sum()), total=int(mask.size),
                                  first_index=first, message="elements still hold the value the output started with "
                                  "(never written by the kernel)", hints=[
                                      "every element of an output must be stored: check the last block's tail, the "
                                      "loop bounds, and blocks that return early"]))
    return found


def _still_poison(out: np.ndarray, spec: OutputSpec) -> np.ndarray:
    want = np.frombuffer(bytes.fromhex(spec.poison or ""), dtype=_UINT[numpy_dtype(spec.dtype).itemsize])[0]
    if out.dtype.itemsize != want.dtype.itemsize:
        return np.zeros(out.shape, dtype=bool)
    return (_bits(out) == want).reshape(out.shape)
