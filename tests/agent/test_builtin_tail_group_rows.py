"""The gathered stage programs of a GEMM/convolution tail (agent/builtin/patterns/tail_group_rows.py): group norm
in narrow groups and pooling of the last axis, run by the DSL interpreter on small arrays against NumPy (no
torch, no build), including a last run of groups/windows shorter than the others and rows the windows do not
tile."""
import numpy as np
import pytest

from kernelwright.agent.builtin.patterns import tail_axis_pool, tail_group_rows
from kernelwright.tools.dsl.interp.run import interpret
from kernelwright.tools.dsl.parse_program import parse_program


def _group_norm(x, groups, w, b, eps):
    r, c = x.shape
    g = x.astype(np.float64).reshape(r, groups, c // groups)
    y = (g - g.mean(-1, keepdims=True)) / np.sqrt(g.var(-1, keepdims=True) + eps)
    return y.reshape(r, c) * w + b


@pytest.mark.parametrize("rows,groups,width", [(5, 24, 2), (3, 40, 8), (1, 440, 8)])
def test_group_norm_in_narrow_groups_matches_numpy(rows, groups, width):
    rng = np.random.default_rng(3)
    c = groups * width
    x = rng.standard_normal((rows, c)).astype(np.float32)
    w = rng.standard_normal(c).astype(np.float32)
    b = rng.standard_normal(c).astype(np.float32)
    res = interpret(parse_program(tail_group_rows.program(groups, 1e-5, True, c)), {"x": x, "weight": w, "bias": b})
    assert res.ok, [d.render() for d in res.diagnostics]
    assert np.allclose(res.outputs["y"], _group_norm(x, groups, w, b, 1e-5), rtol=1e-4, atol=1e-4)
    # 440 groups of 8 do not fit one run (the UB holds 416): two runs per row, the second one short
    plain = interpret(parse_program(tail_group_rows.program(groups, 1e-5, False, c)), {"x": x})
    assert plain.ok and np.allclose(plain.outputs["y"], _group_norm(x, groups, 1.0, 0.0, 1e-5), rtol=1e-4, atol=1e-4)


def test_a_shrunk_case_keeps_the_channels_per_group_of_the_task():
    """Written for 8192 channels in 512 groups, run at 512 channels: 32 groups of 16 (the shrinker maps the task's
    group count alike), not 512 groups of one channel."""
    x = np.random.default_rng(4).standard_normal((3, 512)).astype(np.float32)
    res = interpret(parse_program(tail_group_rows.program(512, 1e-5, False, 8192)), {"x": x})
    assert res.ok, [d.render() for d in res.diagnostics]
    assert res.tiling.fields["G"] == 32 and res.tiling.fields["L"] == 16
    assert np.allclose(res.outputs["y"], _group_norm(x, 32, 1.0, 0.0, 1e-5), rtol=1e-4, atol=1e-4)
    assert tail_group_rows.group_count("C", 8192, 1) == ("1", "(C)")       # one group stays one at any size


@pytest.mark.parametrize("kind,k,rows,width", [("amax", 2, 3, 64), ("mean", 4, 3, 30), ("amax", 2, 3, 9603),
                                                ("mean", 4, 40, 126), ("amax", 3, 29, 31), ("mean", 2, 7, 5)])
def test_pooling_the_last_axis_in_windows_matches_numpy(kind, k, rows, width):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((rows, width)).astype(np.float32)
    o = (width - k) // k + 1
    win = x[:, :o * k].astype(np.float64).reshape(rows, o, k)
    want = win.max(-1) if kind == "amax" else win.mean(-1)
    res = interpret(parse_program(tail_group_rows.window_program(kind, k)), {"x": x})
    assert res.ok, [d.render() for d in res.diagnostics]
    assert res.outputs["y"].shape == (rows, o)
    assert np.allclose(res.outputs["y"], want, rtol=1e-5, atol=1e-6)


def test_ragged_rows_are_pooled_several_whole_rows_a_run():
    """A conv's 126-wide rows in windows of 4 (a remainder of 2 each): 40 rows in a few runs, not one run a row."""
    x = np.random.default_rng(6).standard_normal((40, 126)).astype(np.float32)
    res = interpret(parse_program(tail_group_rows.window_program("mean", 4)), {"x": x})
    assert res.ok, [d.render() for d in res.diagnostics]
    f = res.tiling.fields
    assert f["nr"] > 1 and f["units"] == -(-40 // f["nr"]) and f["units"] < 40


@pytest.mark.parametrize("kind,k,rows,h,inner", [("amax", 2, 6, 15, 15), ("mean", 2, 5, 8, 7), ("amax", 3, 2, 40, 300),
                                                 ("mean", 2, 1, 31, 2)])
def test_pooling_a_middle_axis_in_windows_matches_numpy(kind, k, rows, h, inner):
    """(rows, H, I) pooled along H: whole rows a unit (ragged H too), runs of windows of a long row, short last units."""
    x = np.random.default_rng(7).standard_normal((rows, h, inner)).astype(np.float32)
    o = (h - k) // k + 1
    win = x[:, :o * k].astype(np.float64).reshape(rows, o, k, inner)
    want = win.max(2) if kind == "amax" else win.mean(2)
    res = interpret(parse_program(tail_axis_pool.axis_window_program(kind, k)), {"x": x})
    assert res.ok, [d.render() for d in res.diagnostics]
    assert res.outputs["y"].shape == (rows, o, inner)
    assert np.allclose(res.outputs["y"], want, rtol=1e-5, atol=1e-6)
