"""The 3-D pools over whole rows (prompts/examples/pooling/*_pool.dsl.py, `wr`): at MultiKernelBench's shapes the
tiling takes them and the UB holds them, and the DSL interpreter matches NumPy on small volumes with padding on
every side (no torch, no build: the end-to-end runs are tests/agent/builtin_tasks/pool_*3d_rows.py)."""
import numpy as np
import pytest

from kernelwright.agent.builtin.examples import instantiate
from kernelwright.tools.dsl.dtypes import DTYPES
from kernelwright.tools.dsl.host_eval import TensorSpec, run_tiling
from kernelwright.tools.dsl.interp.run import interpret
from kernelwright.tools.dsl.interp.values import KernelExprEval
from kernelwright.tools.dsl.layout import ledger
from kernelwright.tools.dsl.parse_program import parse_program
from kernelwright.tools.dsl.roles import analyse
from kernelwright.tools.dsl.rules_case import case_rules
from kernelwright.tools.hardware import load_soc


def _program(kind: str, k: int, s: int, p: int):
    consts = {"kernel_size": k, "stride": s, "padding": p} | ({"dilation": 1} if kind == "max" else {})
    return parse_program(instantiate(f"pooling/{kind}_pool.dsl.py", consts, f"{kind}_pool_3d"))


def _pool3d(x: np.ndarray, kind: str, k: int, s: int, p: int) -> np.ndarray:
    fill = -np.inf if kind == "max" else 0.0
    xp = np.pad(x.astype(np.float64), [(0, 0), (0, 0)] + [(p, p)] * 3, constant_values=fill)
    od, oh, ow = ((n + 2 * p - k) // s + 1 for n in x.shape[2:])
    win = np.lib.stride_tricks.sliding_window_view(xp, (k, k, k), axis=(2, 3, 4))[:, :, ::s, ::s, ::s]
    win = win[:, :, :od, :oh, :ow]
    return win.max(axis=(-3, -2, -1)) if kind == "max" else win.sum(axis=(-3, -2, -1)) / k ** 3


@pytest.mark.parametrize("kind,shape,lanes", [("avg", (16, 32, 128, 128, 256), 16),
                                              ("max", (16, 32, 128, 128, 128), 32)])
def test_multikernelbench_3d_pools_walk_whole_rows_within_the_ub(kind, shape, lanes):
    program = _program(kind, 3, 2, 1)
    soc = load_soc("Ascend910B2")
    tiling = run_tiling(program, {"x": TensorSpec(shape, DTYPES["f32"])}, {}, soc)
    f = tiling.fields
    oh = (shape[3] + 2 - 3) // 2 + 1
    assert f["units"] == f["dunits"] == 0 and f["G"] == lanes
    assert f["wunits"] == shape[0] * shape[1] * -(-oh // lanes) and tiling.block_dim == soc.vector_cores
    ev = KernelExprEval(program, f, lambda _: DTYPES["f32"])
    buffers = ledger(program, analyse(program), ev)
    assert not [d for d in case_rules(program, analyse(program), tiling, buffers, soc) if d.severity == "error"]


@pytest.mark.parametrize("kind", ["avg", "max"])
@pytest.mark.parametrize("k,p,shape", [(3, 1, (1, 2, 5, 33, 13)), (3, 1, (2, 1, 4, 34, 16)), (2, 0, (1, 2, 5, 34, 13)),
                                       (4, 1, (1, 2, 7, 35, 14))])
def test_whole_row_3d_pools_match_numpy(kind, k, p, shape):
    x = np.random.default_rng(5).standard_normal(shape).astype(np.float32)
    res = interpret(_program(kind, k, 2, p), {"x": x})
    assert res.ok, [d.render() for d in res.diagnostics[:3]]
    assert res.tiling.fields["wunits"] > 0          # the whole-row walk ran, not the chunked one
    np.testing.assert_allclose(res.outputs["y"], _pool3d(x, kind, k, 2, p), rtol=1e-5, atol=1e-5)
