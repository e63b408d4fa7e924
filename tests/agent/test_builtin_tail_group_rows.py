"""The gathered stage programs of a GEMM/convolution tail (agent/builtin/patterns/tail_group_rows.py): group norm
in narrow groups and pooling of the last axis, run by the DSL interpreter on small arrays against NumPy (no
torch, no build), including a last run of groups/windows shorter than the others and rows the windows do not
tile."""
import numpy as np
import pytest

from kernelwright.agent.builtin.patterns import tail_group_rows
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
    res = interpret(parse_program(tail_group_rows.program(groups, 1e-5, True)), {"x": x, "weight": w, "bias": b})
    assert res.ok, [d.render() for d in res.diagnostics]
    assert np.allclose(res.outputs["y"], _group_norm(x, groups, w, b, 1e-5), rtol=1e-4, atol=1e-4)
    # 440 groups of 8 do not fit one run (the UB holds 416): two runs per row, the second one short
    plain = interpret(parse_program(tail_group_rows.program(groups, 1e-5, False)), {"x": x})
    assert plain.ok and np.allclose(plain.outputs["y"], _group_norm(x, groups, 1.0, 0.0, 1e-5), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("kind,k,width", [("amax", 2, 64), ("mean", 4, 30), ("amax", 2, 9603)])
def test_pooling_the_last_axis_in_windows_matches_numpy(kind, k, width):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((3, width)).astype(np.float32)
    o = (width - k) // k + 1
    win = x[:, :o * k].astype(np.float64).reshape(3, o, k)
    want = win.max(-1) if kind == "amax" else win.mean(-1)
    res = interpret(parse_program(tail_group_rows.window_program(kind, k)), {"x": x})
    assert res.ok, [d.render() for d in res.diagnostics]
    assert res.outputs["y"].shape == (3, o)
    assert np.allclose(res.outputs["y"], want, rtol=1e-5, atol=1e-6)
