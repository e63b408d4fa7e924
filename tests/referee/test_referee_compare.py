"""Every comparison rule, and each public harness's bar as a preset."""
import ml_dtypes
import numpy as np
import pytest

from kernelwright.tools.referee.compare import compare_output, compare_unchanged
from kernelwright.tools.referee.tolerance import PRESETS, UnknownTolerance, get_tolerance

DEFAULT = PRESETS["default"]
rng = np.random.default_rng(0)


def rules(found):
    return [m.rule for m in found]


def test_exact_match_passes_every_preset():
    ref = rng.standard_normal((4, 33)).astype(np.float32)
    for tol in PRESETS.values():
        assert compare_output("y", ref, ref.copy(), tol) == []


def test_missing_output_shape_and_dtype():
    ref = np.ones((4, 8), np.float32)
    assert rules(compare_output("y", ref, None, DEFAULT)) == ["missing_output"]
    m = compare_output("y", ref, np.ones((8, 4), np.float32), DEFAULT)[0]
    assert m.rule == "shape" and "same element count" in m.message
    m = compare_output("y", ref, np.ones((4, 8), np.float16), DEFAULT)[0]
    assert m.rule == "dtype" and "dtype float16, expected float32" in m.message
    # harnesses that never checked dtype compare in the coarser format instead
    assert compare_output("y", ref, np.ones((4, 8), np.float16), PRESETS["npukb"]) == []


def test_nan_and_inf_positions_must_match():
    ref = np.array([1.0, np.nan, np.inf, -np.inf, 2.0], np.float32)
    assert compare_output("y", ref, ref.copy(), DEFAULT) == []
    out = ref.copy()
    out[1] = 0.0
    m = compare_output("y", ref, out, DEFAULT)
    assert rules(m) == ["nan_position"] and m[0].first_index == [1] and m[0].count == 1
    out = ref.copy()
    out[3] = np.inf                     # wrong sign
    assert rules(compare_output("y", ref, out, DEFAULT)) == ["inf_position"]
    out = ref.copy()
    out[0] = np.nan                     # NaN where the reference is finite, with a hint
    m = compare_output("y", ref, out, DEFAULT)[0]
    assert m.rule == "nan_position" and any("NaN where the reference is finite" in h for h in m.hints)


def test_tolerance_summary_has_numbers_and_a_multi_index():
    ref = rng.standard_normal((3, 4, 5)).astype(np.float32)
    out = ref.copy()
    out[1, 2, 3] += 0.5
    out[2, 0, 0] += 0.25
    m = compare_output("y", ref, out, DEFAULT)[0]
    assert m.rule == "tolerance" and m.count == 2 and m.total == 60 and m.first_index == [1, 2, 3]
    assert m.max_abs == pytest.approx(0.5, rel=1e-5) and m.ratio == pytest.approx(2 / 60)
    assert m.expected == pytest.approx(float(ref[1, 2, 3]), abs=1e-6)


def test_all_zero_output_fails_even_within_tolerance():
    ref = np.full((8, 64), 3e-5, np.float32)        # softmax over a huge row: tiny values
    ref[0, 0] = 4e-5
    zeros = np.zeros_like(ref)
    assert compare_output("y", ref, zeros, PRESETS["kernelbench"])[0].rule == "all_zero"
    assert compare_output("y", np.zeros_like(ref), zeros, DEFAULT) == []   # the reference is zero too: fine


def test_constant_output_fails_when_the_reference_varies():
    ref = (1e-3 * rng.random((16, 16))).astype(np.float16)
    out = np.full_like(ref, ref.mean())
    m = compare_output("y", ref, out, PRESETS["kernelbench"])
    assert rules(m) == ["constant"] and "spread" in m[0].message
    flat = np.full((16,), 0.5, np.float16)
    assert compare_output("y", flat, flat.copy(), PRESETS["kernelbench"]) == []


def test_integers_and_bool_are_exact():
    ref = np.arange(10, dtype=np.int32)
    out = ref.copy()
    out[9] += 1
    for tol in ("default", "mkb", "npukb", "kernelbench"):
        assert rules(compare_output("y", ref, out, get_tolerance(tol))) == ["tolerance"]
    b = np.array([True, False, True])
    assert rules(compare_output("y", b, ~b, DEFAULT)) == ["tolerance"]


def test_mkb_allclose_1e4_everywhere():
    ref = np.ones(100, np.float16)
    out = ref + np.float16(2 ** -10)                   # one fp16 ulp at 1.0 (~1e-3)
    assert rules(compare_output("y", ref, out, PRESETS["mkb"])) == ["tolerance"]
    assert compare_output("y", ref, out, PRESETS["kernelbench"]) == []       # fp16 bar there is 1e-2
    assert compare_output("y", ref, out, DEFAULT) == []


def test_npukb_fails_only_when_abs_and_rel_are_both_above():
    ref = np.array([1000.0, 1e-5, 1.0], np.float32)
    big_abs_small_rel = np.array([1000.5, 1e-5, 1.0], np.float32)       # abs .5, rel 5e-4: passes
    small_abs_big_rel = np.array([1000.0, 5e-4, 1.0], np.float32)       # abs 5e-4, rel 49: passes
    both = np.array([1000.0, 1e-5, 1.01], np.float32)                   # abs .01, rel .01: fails
    tol = PRESETS["npukb"]
    assert compare_output("y", ref, big_abs_small_rel, tol) == [] and compare_output("y", ref, small_abs_big_rel, tol) == []
    assert compare_output("y", ref, both, tol)[0].first_index == [2]
    assert rules(compare_output("y", ref, big_abs_small_rel, PRESETS["mkb"])) == ["tolerance"]


def test_kernelbench_bars_per_dtype():
    ref32 = np.ones(8, np.float32)
    assert rules(compare_output("y", ref32, ref32 + 5e-4, PRESETS["kernelbench"])) == ["tolerance"]
    ref_bf = np.ones(8, ml_dtypes.bfloat16)
    out_bf = (np.ones(8, np.float32) * (1 + 2 ** -7)).astype(ml_dtypes.bfloat16)   # one bf16 ulp
    assert compare_output("y", ref_bf, out_bf, PRESETS["kernelbench"]) == []
    assert rules(compare_output("y", ref_bf, out_bf, PRESETS["mkb"])) == ["tolerance"]


def test_mere_mare_thresholds():
    tol = PRESETS["mere"]
    ref = np.ones(1000, np.float32)
    spread = ref.copy()
    spread[:50] += 2e-3                 # MERE 1e-4 (< 2^-13), MARE 2e-3 (> 10 * 2^-13): fails on MARE
    m = compare_output("y", ref, spread, tol)
    assert rules(m) == ["tolerance"] and "MARE" in m[0].message
    mild = ref + 1e-4                   # MERE 1e-4 < 1.22e-4, MARE 1e-4 < 1.22e-3: passes
    assert compare_output("y", ref, mild, tol) == []
    q = np.array([10, -3, 7], np.int8)
    assert compare_output("y", q, q + np.int8(1), tol) == []                     # int8 +-1 LSB allowed
    assert rules(compare_output("y", q, q + np.int8(2), tol)) == ["tolerance"]
    i32 = np.array([10, -3, 7], np.int32)
    assert rules(compare_output("y", i32, i32 + 1, tol)) == ["tolerance"]        # not for int32


def test_inputs_must_come_back_bit_identical():
    x = rng.standard_normal(100).astype(np.float32)
    x[3] = np.nan
    assert compare_unchanged("input x", x, x.copy()) is None                    # NaN-safe
    y = x.copy()
    y[50:] = 0
    m = compare_unchanged("input x", x, y)
    assert m.rule == "input_mutated" and m.first_index == [50] and m.count == 50
    assert compare_unchanged("input x", x, None) is None


def test_unknown_preset_names_the_known_ones():
    with pytest.raises(UnknownTolerance, match="known: akb, default, kernelbench, mere, mkb, npukb"):
        get_tolerance("strict")
    assert "MERE < T and MARE < 10T" in PRESETS["mere"].describe()
    assert "custom_check_precision" in PRESETS["npukb"].describe()


def test_bool_bytes_other_than_0_and_1_were_never_written():
    ref = np.ones((4, 8), bool)
    out = ref.copy()
    out.view(np.uint8)[3, 4:] = 0xFF         # a skipped block leaves the garbage the buffer started with
    m = compare_output("y", ref, out, DEFAULT)
    assert rules(m)[0] == "invalid_value" and m[0].count == 4 and m[0].first_index == [3, 4] and m[0].got == 255
    assert any("only the tail" in h for h in m[0].hints)
