"""The one dtype table (`kernelwright.tools.dtypes`) agrees with the C++ side it describes: the
ge::DataType values our host headers declare, and the element sizes NumPy gives."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from kernelwright.tools import dtypes
from kernelwright.tools.opspec import OpSpecError, dtype_name

TYPES_H = Path(dtypes.__file__).parent / "sim" / "include" / "graph" / "types.h"


def test_ge_values_match_the_headers_enum():
    enum = dict((m.group(1), int(m.group(2))) for m in re.finditer(r"\b(DT_\w+) = (\d+)", TYPES_H.read_text()))
    for d in dtypes.TABLE:
        assert enum[d.ge] == d.ge_value, d


@pytest.mark.parametrize("d", [d for d in dtypes.TABLE if d.ctype is not None], ids=lambda d: d.name)
def test_kernel_dtypes_round_trip_through_numpy(d):
    dt = dtypes.numpy_dtype(d.name)
    assert dt.itemsize == d.size
    assert dtypes.name_of(np.zeros(2, dt)) == d.name
    assert dtypes.GE_TO_NUMPY[dtypes.NUMPY_TO_GE[d.name]] == d.name
    assert d.is_float == (dt.kind == "f" or d.name == "bfloat16")


def test_every_spelling_reads_back_through_the_op_prototype():
    assert [dtype_name(s) for s in ("ge::DT_BF16", "DT_HALF", "fp16", "float", "DT_FLOAT8_E5M2")] == \
        ["bfloat16", "float16", "float16", "float32", "float8_e5m2"]
    with pytest.raises(OpSpecError, match="unknown dtype 'DT_NOPE'"):
        dtype_name("DT_NOPE")
