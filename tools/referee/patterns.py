"""Pattern hints for a mismatch: where the wrong elements are says what is probably wrong.

Each hint is one sentence for whoever fixes the kernel: all zeros (nothing copied out), NaN where
the reference is finite (a division by zero or never-written memory), only the tail (the last
partial tile), only each row's tail, whole rows (a block's or a loop's share), errors at block or
tile boundaries, every k-th element (a stride)."""
from __future__ import annotations

import math

import numpy as np


def _all_zero(out: np.ndarray, ref: np.ndarray) -> str | None:
    if out.size and not np.any(out) and np.any(ref[~np.isnan(ref)] != 0):
        return ("the output is all zeros: nothing reached global memory (check the UB->GM DataCopy, the "
                "EnQue/DeQue of the output queue, and the output GlobalTensor's offset)")
    return None


def _nan(out: np.ndarray, ref: np.ndarray) -> str | None:
    bad = np.isnan(out) & ~np.isnan(ref)
    if not bad.any():
        return None
    return (f"{int(bad.sum())} NaN where the reference is finite: a division by zero (0/0, Div or Reciprocal over "
            "zero-padded or uninitialised lanes) or elements never written (outputs start as garbage)")


def _tail(idx: np.ndarray, n: int, align: int) -> str | None:
    first = int(idx[0])
    if first == 0 or idx[-1] != n - 1 or idx.size != n - first or idx.size * 2 > n:
        return None
    k = n - first
    why = f"{n} elements is not a multiple of the 32-byte block ({align} elements)" if n % align else \
        "the last partial tile is dropped"
    return (f"only the tail is wrong: the last {k} of {n} elements (flat index {first} on); {why}: handle the "
            "remainder (a final partial tile, DataCopyPad or a masked copy)")


def _row_tail(bad: np.ndarray, align: int) -> str | None:
    if bad.ndim < 2 or bad.shape[-1] < 2:
        return None
    cols = np.flatnonzero(bad.reshape(-1, bad.shape[-1]).any(axis=0))
    width = bad.shape[-1]
    if cols.size == 0 or cols[0] == 0 or cols[-1] != width - 1 or cols.size != width - cols[0]:
        return None
    rows = bad.reshape(-1, bad.shape[-1]).any(axis=1)
    if rows.sum() < 2:
        return None
    note = f" ({width} is not a multiple of {align}: rows are not 32-byte aligned)" if width % align else ""
    return (f"only the tail of each row is wrong: columns {int(cols[0])}..{width - 1} of {width}{note}; the row "
            "remainder is not copied or computed (DataCopyPad / per-row tail handling)")


def _rows(bad: np.ndarray, block_dim: int) -> str | None:
    if bad.ndim < 2:
        return None
    rows = bad.reshape(-1, bad.shape[-1])
    hit = rows.any(axis=1)
    if hit.all() or not (rows[hit].all(axis=1)).all():
        return None
    which = np.flatnonzero(hit)
    total = rows.shape[0]
    listed = ", ".join(str(int(r)) for r in which[:8]) + (", ..." if which.size > 8 else "")
    text = f"whole rows are wrong: {which.size} of {total} rows ({listed})"
    if which[-1] == total - 1 and which.size == total - which[0]:
        last = "the last row" if which.size == 1 else f"the last {which.size} rows"
        text += f": {last}, as if the loop over rows (or the element count) stops early"
    if block_dim > 1:
        share = math.ceil(total / block_dim)
        blocks = sorted({int(r) // share for r in which})
        if len(blocks) < block_dim:
            text += f"; with {share} rows per block these are block(s) {', '.join(map(str, blocks[:8]))}"
    return text


def _boundaries(idx: np.ndarray, n: int, align: int, block_dim: int) -> tuple[str, int] | None:
    width = max(1, align)
    candidates = set()
    if block_dim > 1:
        share = math.ceil(n / block_dim)
        candidates |= {share, math.ceil(share / align) * align}
    b = 4 * width
    while b <= n // 2:
        candidates.add(b)
        b *= 2
    for period in sorted(candidates, reverse=True):
        if period < 4 * width or period >= n:
            continue
        pos = idx % period
        near = (pos < width) | (pos >= period - width) | (idx >= n - width)   # the last block ends at n
        touched = np.unique(np.rint(idx / period))
        if near.all() and touched.size >= 2:
            return (f"errors sit at multiples of {period} elements (within {width}): block or tile boundaries; check "
                    "the first/last element of each block and tile (offsets, loop bounds, overlap)", period)
    return None


def _stride(idx: np.ndarray) -> str | None:
    if idx.size < 3:
        return None
    g = int(np.gcd.reduce(np.diff(idx)))
    if g < 2:
        return None
    return (f"every {g}-th element is wrong (flat index = {int(idx[0] % g)} mod {g}): a stride, repeat stride or "
            "mask pattern is off")


def pattern_hints(bad: np.ndarray, out: np.ndarray, ref: np.ndarray, *, itemsize: int = 4,
                  block_dim: int = 0) -> list[str]:
    """Hints for the mismatching elements `bad` (a bool mask with the output's shape)."""
    idx = np.flatnonzero(bad.reshape(-1))
    zero, nan = _all_zero(out, ref), _nan(out, ref)
    if zero or idx.size == 0:
        return [h for h in (zero, nan) if h]
    align = max(1, 32 // max(1, itemsize))
    n = bad.size
    shaped = _row_tail(bad, align) or _rows(bad, block_dim) or _tail(idx, n, align)
    if not shaped:
        boundary = _boundaries(idx, n, align, block_dim)
        shaped = boundary[0] if boundary else _stride(idx)
    return [h for h in (shaped, nan) if h]
