"""The one dtype table: NumPy-style name <-> graph-engine name (`ge::DataType`) and enumerator value
<-> AscendC element type <-> size. Every module that converts between these spellings reads it here.

NumPy-style names are the project's own (`float32`, `bfloat16`, ...; bfloat16 and the 8-bit floats
through ml_dtypes). The enumerator values are CANN's `ge::DataType` (graph/types.h), which kernels see
as ORIG_DTYPE_<NAME> and aclnn takes as aclDataType.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Dtype:
    name: str             # NumPy-style name: float32, float16, bfloat16, int8, ...
    ge: str               # ge::DataType enumerator: DT_FLOAT, ...
    ge_value: int         # its value (aclDataType uses the same numbers)
    ctype: str | None     # AscendC element type; None when a kernel cannot hold it in a tensor
    size: int             # bytes per element (0: not a fixed-size element)
    is_float: bool = False


TABLE: tuple[Dtype, ...] = (
    Dtype("float32", "DT_FLOAT", 0, "float", 4, True),
    Dtype("float16", "DT_FLOAT16", 1, "half", 2, True),
    Dtype("int8", "DT_INT8", 2, "int8_t", 1),
    Dtype("int32", "DT_INT32", 3, "int32_t", 4),
    Dtype("uint8", "DT_UINT8", 4, "uint8_t", 1),
    Dtype("int16", "DT_INT16", 6, "int16_t", 2),
    Dtype("uint16", "DT_UINT16", 7, "uint16_t", 2),
    Dtype("uint32", "DT_UINT32", 8, "uint32_t", 4),
    Dtype("int64", "DT_INT64", 9, "int64_t", 8),
    Dtype("uint64", "DT_UINT64", 10, "uint64_t", 8),
    Dtype("float64", "DT_DOUBLE", 11, "double", 8, True),
    Dtype("bool", "DT_BOOL", 12, "bool", 1),
    Dtype("string", "DT_STRING", 13, None, 0),
    Dtype("complex64", "DT_COMPLEX64", 16, None, 8),
    Dtype("complex128", "DT_COMPLEX128", 17, None, 16),
    Dtype("bfloat16", "DT_BF16", 27, "bfloat16_t", 2, True),
    Dtype("int4", "DT_INT4", 29, None, 0),
    Dtype("complex32", "DT_COMPLEX32", 33, None, 4),
    Dtype("hifloat8", "DT_HIFLOAT8", 34, None, 1, True),
    Dtype("float8_e5m2", "DT_FLOAT8_E5M2", 35, None, 1, True),
    Dtype("float8_e4m3fn", "DT_FLOAT8_E4M3FN", 36, None, 1, True),
)
BY_NAME: dict[str, Dtype] = {d.name: d for d in TABLE}
BY_GE: dict[str, Dtype] = {d.ge: d for d in TABLE}
# dtypes a kernel tensor can hold and a NumPy array can carry (what our backends move in and out)
KERNEL_DTYPES: frozenset[str] = frozenset(d.name for d in TABLE if d.ctype is not None)

NUMPY_TO_GE: dict[str, str] = {d.name: d.ge for d in TABLE if d.ctype is not None}
GE_TO_NUMPY: dict[str, str] = {v: k for k, v in NUMPY_TO_GE.items()}
GE_TO_CTYPE: dict[str, str] = {d.ge: d.ctype for d in TABLE if d.ctype is not None}
GE_VALUES: dict[str, int] = {d.ge: d.ge_value for d in TABLE}


def numpy_dtype(name: str) -> np.dtype:
    """The NumPy dtype of a NumPy-style name (bfloat16 and the float8 types come from ml_dtypes)."""
    if name in ("bfloat16", "float8_e5m2", "float8_e4m3fn", "int4"):
        import ml_dtypes
        return np.dtype(getattr(ml_dtypes, name))
    return np.dtype(name)


def name_of(array_or_dtype) -> str:
    """The NumPy-style name of an array's (or a dtype's) element type."""
    return str(array_or_dtype.dtype if hasattr(array_or_dtype, "dtype") else np.dtype(array_or_dtype))
