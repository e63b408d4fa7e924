"""Element types of the DSL: size, NumPy dtype (bf16 through ml_dtypes), AscendC and GE spellings."""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np


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
        if self.np_name == "bfloat16":
            import ml_dtypes
            return np.dtype(ml_dtypes.bfloat16)
        return np.dtype(self.np_name)

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


DTYPES: dict[str, DType] = {d.name: d for d in (
    DType("f32", 4, "float32", "float", "DT_FLOAT", True),
    DType("f16", 2, "float16", "half", "DT_FLOAT16", True),
    DType("bf16", 2, "bfloat16", "bfloat16_t", "DT_BF16", True),
    DType("i32", 4, "int32", "int32_t", "DT_INT32", False),
    DType("i16", 2, "int16", "int16_t", "DT_INT16", False),
    DType("i8", 1, "int8", "int8_t", "DT_INT8", False),
    DType("u8", 1, "uint8", "uint8_t", "DT_UINT8", False),
    DType("u32", 4, "uint32", "uint32_t", "DT_UINT32", False),
    DType("i64", 8, "int64", "int64_t", "DT_INT64", False),
    DType("bool", 1, "bool", "uint8_t", "DT_BOOL", False),     # torch.bool: one byte, 0 or 1; handled as uint8_t
)}
F32 = DTYPES["f32"]
BY_NUMPY = {d.np_name: d for d in DTYPES.values()}
BY_GE = {d.ge: d for d in DTYPES.values()}


def dtype_of_array(a: np.ndarray) -> DType | None:
    name = "bfloat16" if a.dtype.name == "bfloat16" else str(a.dtype)
    return BY_NUMPY.get(name)
