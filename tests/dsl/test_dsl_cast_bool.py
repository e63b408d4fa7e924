"""A.Cast between f16 and bool (the bytes of a torch bool, lowered as the u8 cast): a 0/1 result of logic
on 0/1 tiles stores as a bool; the emulator reads the u8 byte the hardware writes (rint, nonzero = true)."""
import numpy as np

from kernelwright.tools.dsl.dtypes import DTYPES
from kernelwright.tools.dsl.interp.numerics import cast
from kernelwright.tools.dsl.optable import auto_mode, cast_modes


def test_f16_bool_casts_are_pairs_with_an_explicit_mode():
    assert cast_modes("f16", "bool") == ("none",) and cast_modes("bool", "f16") == ("none",)
    assert cast_modes("f32", "bool") is None                       # through f16, as the u8 cast
    assert auto_mode("f16", "bool") is None                        # float -> integer bytes: say the mode


def test_the_bool_cast_rounds_then_reads_nonzero_as_true():
    got = cast(np.array([0.0, 1.0, 0.4, 0.6, 2.0], np.float16), DTYPES["f16"], DTYPES["bool"], "none")
    assert got.dtype == np.bool_ and got.tolist() == [False, True, False, True, True]
    back = cast(np.array([True, False]), DTYPES["bool"], DTYPES["f16"], "none")
    assert back.dtype == np.float16 and back.tolist() == [1.0, 0.0]
