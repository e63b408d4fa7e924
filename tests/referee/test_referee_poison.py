"""Output poison and unjudgeable references, on arrays (no kernel runs)."""
from __future__ import annotations

import numpy as np
import pytest

from kernelwright.tools.referee import judgeable
from kernelwright.tools.referee.poison import pattern, poison, unwritten
from kernelwright.tools.referee.verdict import CaseRun, Verdict
from kernelwright.tools.toolchain import Case, OutputSpec


@pytest.mark.parametrize("dtype,bits", [("float32", np.uint32), ("float16", np.uint16), ("bfloat16", np.uint16),
                                        ("float64", np.uint64)])
def test_float_poison_is_a_nan_no_arithmetic_makes_and_the_reference_does_not_hold(dtype, bits):
    p = np.frombuffer(pattern(dtype, []), dtype=bits)[0]
    taken = np.array([p], dtype=bits)                                  # the reference holds the first choice
    q = np.frombuffer(pattern(dtype, [taken]), dtype=bits)[0]
    default_nans = {int(np.float32(np.nan).view(np.uint32)), 0xFFC00000, 0xFFFFFFFF, 0x7FFFFFFF, 0xFFFF, 0x7E00, 0xFE00}
    for v in (p, q):
        as_float = np.array([v], dtype=bits).view({np.uint32: np.float32, np.uint16: np.float16, np.uint64: np.float64}[bits])
        assert dtype == "bfloat16" or np.isnan(as_float[0])
        assert int(v) not in default_nans
    assert p != q


def test_integer_poison_avoids_every_reference_value_and_gives_up_when_none_is_left():
    ref = np.arange(-128, 127, dtype=np.int8)                         # every int8 but 127
    assert np.frombuffer(pattern("int8", [ref]), dtype=np.int8)[0] == 127
    assert pattern("int8", [np.arange(-128, 128, dtype=np.int8)]) is None
    assert pattern("complex64", []) is None


def test_unwritten_elements_are_found_and_inputs_are_not_poisoned():
    x = np.ones(8, dtype=np.float32)
    case = Case(inputs={"x": x}, outputs={"x": OutputSpec(shape=(8,), dtype="float32"),
                                          "y": OutputSpec(shape=(2, 4), dtype="float32")})
    poison(case, [np.full((2, 4), np.nan, dtype=np.float32)])
    assert case.outputs["x"].poison is None and case.outputs["y"].poison
    y = np.full((2, 4), np.nan, dtype=np.float32)
    y.reshape(-1)[5:] = np.frombuffer(bytes.fromhex(case.outputs["y"].poison), dtype=np.float32)[0]   # never written
    [m] = unwritten(case, {"x": x, "y": y})
    assert (m.rule, m.output, m.count, m.total, m.first_index) == ("unwritten", "y", 3, 8, [1, 1])
    assert unwritten(case, {"x": x, "y": np.zeros((2, 4), dtype=np.float32)}) == []


@pytest.mark.parametrize("a,want", [(np.full(5, np.nan), "nan"), (np.zeros(3, dtype=np.int64), "0"),
                                    (np.float32([1.5, 1.5]), "1.5"), (np.float32([1, 2]), None),
                                    (np.float32([np.nan, 1]), None), (np.int64([2**62, 2**62 + 1]), None)])
def test_constant(a, want):
    assert judgeable.constant(a) == want


def _verdict(*runs: tuple[list[str | None], list[int]]) -> Verdict:
    v = Verdict(task="t", op_type="T", project="p", backend="sim", tolerance="default", status="pass")
    v.runs = [CaseRun(case="c", trial=i, seed=i, reference_constants=c, reference_sizes=s) for i, (c, s) in enumerate(runs)]
    return v


def test_a_verdict_on_constant_references_only_is_unjudgeable():
    v = _verdict((["nan"], [8]), (["nan"], [8]))
    judgeable.apply(v)
    assert v.status == "error" and v.summary.startswith("unjudgeable") and v.stage("compare").status == "error"


def test_partly_constant_and_varying_references():
    v = _verdict((["0.0", None], [8, 8]), (["0.0", "3.0"], [8, 8]))   # output 1 varies within trial 0
    judgeable.apply(v)
    assert v.status == "pass" and "partly unjudgeable: output 0 is 0.0" in v.stage("compare").findings[0]
    v = _verdict((["2.5"], [1]), (["3.5"], [1]))                       # a scalar that changes with the seed
    judgeable.apply(v)
    assert v.status == "pass" and not v.stage("compare").findings
    v = _verdict((["2.5"], [1]))                                       # one scalar seen once: nothing to tell
    judgeable.apply(v)
    assert v.status == "pass"
