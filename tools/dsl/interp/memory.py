"""Memories of the interpreter: the Unified Buffer as a byte arena with a validity shadow (one flag
per byte: written with defined data or not), and GM tensors with per-element writer/reader shadows
per SyncAll phase and a 'ever written' mask."""
from __future__ import annotations

import numpy as np

from kernelwright.tools.dsl.dtypes import DType

NONE, MANY, ATOMIC = -1, -2, -3


class Arena:
    def __init__(self, size: int):
        self.mem = np.full(size, 0xFF, np.uint8)      # like the emulation: unwritten floats read as NaN
        self.valid = np.zeros(size, bool)

    def array(self, byte_off: int, count: int, dtype: DType) -> np.ndarray:
        return self.mem[byte_off:byte_off + count * dtype.size].view(dtype.np)

    def first_invalid(self, byte_off: int, nbytes: int) -> int | None:
        seg = self.valid[byte_off:byte_off + nbytes]
        if seg.all():
            return None
        return int(np.argmin(seg))

    def write(self, byte_off: int, values: np.ndarray, valid: bool | np.ndarray = True) -> None:
        raw = np.ascontiguousarray(values).view(np.uint8).reshape(-1)
        self.mem[byte_off:byte_off + raw.size] = raw
        self.valid[byte_off:byte_off + raw.size] = valid

    def garbage(self, byte_off: int, nbytes: int) -> None:
        """Bytes written with unspecified data (DataCopyPad's dummy padding, a rotated queue slot)."""
        self.mem[byte_off:byte_off + nbytes] = 0xFF
        self.valid[byte_off:byte_off + nbytes] = False


class GmTensor:
    def __init__(self, name: str, data: np.ndarray, dtype: DType, shape: tuple[int, ...], kind: str):
        self.name, self.dtype, self.shape, self.kind = name, dtype, shape, kind   # kind: input | output | workspace
        self.data = np.ascontiguousarray(data).reshape(-1).copy()
        n = self.data.size
        self.defined = np.ones(n, bool) if kind == "input" else np.zeros(n, bool)
        self.written = np.zeros(n, bool)
        self.writer = np.full(n, NONE, np.int32)
        self.reader = np.full(n, NONE, np.int32)

    @property
    def size(self) -> int:
        return self.data.size

    def new_phase(self) -> None:
        self.writer[:] = NONE
        self.reader[:] = NONE

    def index_of(self, flat: int) -> tuple[int, ...]:
        return tuple(int(i) for i in np.unravel_index(flat, self.shape)) if self.shape else ()
