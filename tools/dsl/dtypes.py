"""Element types of the DSL: its short spellings (f32, bf16, ...) over the shared dtype table
(`kernelwright.tools.dtypes`: size, NumPy dtype, AscendC and GE spellings)."""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from kernelwright.tools.dtypes import BY_NAME, name_of, numpy_dtype


@dataclass(frozen=True)
class DType:
    name: str          # DSL spelling: f32, f16, bf16, i32, ...
    size: int          # bytes
    np_name: str       # numpy dtype name ("bfloat16" via ml_dtypes)
    ctype: str         # AscendC element type (bool data is handled as its bytes, uint8_t)
    ge: str            # ge::DataType enumerator
    is_float: bool

    @cached_property
    def np(self) -> np.dtype:
        return numpy_dtype(self.np_name)

    @property
    def per_block(self) -> int:
        """Elements per 32-byte block (the DMA and UB alignment granule)."""
        return 32 // self.size

    @property
    def per_repeat(self) -> int:
        """Elements per 256-byte vector repeat."""
        return 256 // self.size

    def __str__(self) -> str:
        return self.name


def _dsl(name: str, np_name: str, ctype: str | None = None) -> DType:
    d = BY_NAME[np_name]
    return DType(name, d.size, d.name, ctype or d.ctype or "", d.ge, d.is_float)


DTYPES: dict[str, DType] = {d.name: d for d in (
    _dsl("f32", "float32"), _dsl("f16", "float16"), _dsl("bf16", "bfloat16"), _dsl("i32", "int32"),
    _dsl("i16", "int16"), _dsl("i8", "int8"), _dsl("u8", "uint8"), _dsl("u32", "uint32"), _dsl("i64", "int64"),
    _dsl("bool", "bool", ctype="uint8_t"),     # torch.bool: one byte, 0 or 1; kernels handle its bytes as uint8_t
)}
F32 = DTYPES["f32"]
BY_NUMPY = {d.np_name: d for d in DTYPES.values()}
BY_GE = {d.ge: d for d in DTYPES.values()}


def dtype_of_array(a: np.ndarray) -> DType | None:
    return BY_NUMPY.get(name_of(a))
