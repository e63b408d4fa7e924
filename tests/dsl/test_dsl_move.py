"""A.move (GM -> UB -> GM by the copy engines): element-strided rows land where the interpreter and the emulated
kernel both put them, bit for bit, with no vector instruction; its `via` tile used elsewhere is a finding; a
copy past the source is a GM bounds error naming the line."""
import numpy as np
import pytest

from kernelwright.tools.dsl import rules
from kernelwright.tools.dsl.errors import DslError
from kernelwright.tools.dsl.interp.run import interpret
from kernelwright.tools.dsl.lower import lower
from kernelwright.tools.dsl.parse_program import parse_program
from kernelwright.tools.toolchain import Case

MOVE = '''"""y[r, j] = x[r, 2 * j] for the even columns, then y[r, H + j] = x[r, j] for the first H: two A.move copies."""
import adsl as A


@A.tiling
def tiling(x, hw):
    R, W = x.shape
    return A.Tiling(block_dim=2, R=R, W=W, H=W // 2)


@A.shapes
def shapes(x):
    return {"y": (x.shape[0], x.shape[1] // 2 * 2)}


@A.kernel(inputs={"x": (A.f32, A.f16)}, outputs={"y": "x"})
def pick(x, y, t):
    via = A.ub(x.dtype, t.H * 16)
    lo, hi = A.block_span(t.R)
    for r in A.range(lo, hi):
        A.move(y[r * 2 * t.H:], x[r * t.W:], 1, via=via, rows=t.H, src_stride=2, dst_stride=1)
        A.move(y[r * 2 * t.H + t.H:], x[r * t.W:], t.H, via=via)
'''


def _want(x: np.ndarray) -> np.ndarray:
    h = x.shape[1] // 2
    return np.concatenate([x[:, 0:2 * h:2], x[:, :h]], axis=1)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_move_interpreter_and_emulator_agree_and_no_vector_work(sim, dtype):
    program = parse_program(MOVE, "pick.dsl.py")
    x = np.random.default_rng(5).standard_normal((5, 37)).astype(dtype)
    res = interpret(program, {"x": x})
    assert res.ok, [d.render() for d in res.diagnostics]
    assert np.array_equal(res.outputs["y"], _want(x))
    run = sim.run(sim.build(lower(program, "Pick")), Case(inputs={"x": x}))
    assert run.status == "ok", [d.render() for d in run.diagnostics]
    assert np.array_equal(run.outputs["y"], _want(x))
    assert sum(int(v.get("instructions", 0)) for blk in run.counters for v in blk.get("vector", [])) == 0


def test_move_via_tile_used_by_another_statement_is_a_finding():
    bad = MOVE.replace("        A.move(y[r * 2 * t.H + t.H:]", "        A.Duplicate(via, 0.0, 8)\n"
                                                               "        A.move(y[r * 2 * t.H + t.H:]")
    found = rules.check(parse_program(bad, "pick.dsl.py"))
    assert [f.rule for f in found if f.severity == "error"] == ["move.via"]


def test_move_past_the_source_is_reported_with_its_line():
    bad = MOVE.replace("rows=t.H, src_stride=2", "rows=t.H, src_stride=3")
    res = interpret(parse_program(bad, "pick.dsl.py"), {"x": np.zeros((2, 37), np.float32)})
    (d,) = res.errors()
    assert d.rule == "gm.bounds" and d.line == 21 and "x[" in d.message


def test_move_needs_its_via_tile():
    with pytest.raises(DslError) as e:
        parse_program(MOVE.replace(", via=via, rows=t.H", ", rows=t.H"), "pick.dsl.py")
    assert e.value.diag.rule == "call.args" and "via=" in e.value.diag.message


def test_a_case_whose_gm_the_interpreter_cannot_hold_is_a_finding_not_an_allocation(monkeypatch):
    from kernelwright.tools.dsl.interp import run as interp_run
    monkeypatch.setattr(interp_run, "HOST_GM_BYTES", 512)        # the output of a [5, 37] fp32 case takes 720 bytes
    res = interpret(parse_program(MOVE, "pick.dsl.py"), {"x": np.zeros((5, 37), np.float32)})
    assert not res.ok and [d.rule for d in res.errors()] == ["case.memory"]
    assert "720 bytes" in res.errors()[0].message and not res.outputs
