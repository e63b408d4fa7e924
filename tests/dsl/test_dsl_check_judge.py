"""One judge: the DSL check is the referee's verdict on the interpreted program, so it agrees with the
verdict on the lowered kernel under every tolerance preset (a program that passes `default` but fails
`mkb` fails both ways), applies a task's own precision check, and keeps the DSL's findings (rule, DSL
line, values, hint) through the verdict."""
from pathlib import Path

import pytest

from kernelwright.tools.dsl.check import check
from kernelwright.tools.dsl.lower import lower
from kernelwright.tools.dsl.parse_program import parse_program
from kernelwright.tools.dsl.toolchain import InterpToolchain, dsl_project
from kernelwright.tools.referee import verify
from kernelwright.tools.referee.tolerance import PRESETS
from kernelwright.tools.tasks import load_task
from kernelwright.tools.tasks.reference import ReferenceWorker

SCALE_ADD = Path(__file__).resolve().parents[1] / "tasks/fixtures/npukb/tasks/level1/Math/ScaleAdd"
TASK = '''
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, scale: float):
        super().__init__()
        self.scale = scale

    def forward(self, x, y):
        return (x + y) * self.scale


def get_inputs():
    return [torch.randn(8, 256, dtype=torch.float16), torch.randn(8, 256, dtype=torch.float16)]


def get_init_inputs():
    return [0.3]
'''
# x * scale + y * scale in fp16: two roundings where the reference rounds x + y once, so outputs are off by
# about one fp16 ulp: within `default`'s fp16 bar (rtol 2e-3), outside `mkb`'s torch.allclose(1e-4, 1e-4)
PROGRAM = '''"""out = x * scale + y * scale."""
import adsl as A


@A.tiling
def tiling(x, y, hw, scale):
    nb = max(1, min(hw.vector_cores, A.ceil_div(x.numel, 2048)))
    tile = A.align_down((hw.ub_bytes - 1024) // (8 * x.dtype.size), 64)
    tile = max(64, min(tile, A.align_up(A.ceil_div(x.numel, 4 * nb), 64)))
    return A.Tiling(block_dim=nb, total=x.numel, tile=tile, scale=scale)


@A.kernel(inputs={"x": (A.f32, A.f16), "y": (A.f32, A.f16)}, outputs={"out": "x"}, attrs={"scale": 1.0})
def scale_add(x, y, out, t):
    xin = A.ub(x.dtype, t.tile)
    yin = A.ub(y.dtype, t.tile)
    res = A.ub(out.dtype, t.tile)
    u = A.ub(x.dtype, t.tile)
    v = A.ub(x.dtype, t.tile)
    lo, hi = A.block_span(t.total, A.elems_per_block(x.dtype))
    for off, n in A.tiles(lo, hi, t.tile, stages=2):
        A.load(xin, x[off:], n)
        A.load(yin, y[off:], n)
        A.Muls(u, xin, t.scale, n)
        A.Muls(v, yin, t.scale, n)
        A.Add(res, u, v, n)
        A.store(out[off:], res, n)
'''


@pytest.fixture(scope="module")
def scale_add(tmp_path_factory):
    path = tmp_path_factory.mktemp("task") / "scale_add.py"
    path.write_text(TASK)
    task = load_task(path)
    with ReferenceWorker(task) as worker:
        yield task, worker


def test_the_dsl_check_and_the_kernel_verdict_agree_under_every_preset(scale_add, sim):
    task, worker = scale_add
    program = parse_program(PROGRAM, "scale_add.dsl.py")
    kernel = lower(program, task.op_type)
    verdicts = {}
    for preset in PRESETS:
        report = check(program, task, tolerance=preset, worker=worker)
        v = verify(task, kernel, sim, tolerance=preset, worker=worker, trials=1, recheck=False, api_lint=False)
        verdicts[preset] = (report.ok, v.ok)
        assert report.ok == v.ok, (preset, report.render(PROGRAM), v.summary)
        assert [c.status for c in report.cases] == [r.status for r in v.runs]
    assert verdicts["default"] == (True, True) and verdicts["mkb"] == (False, False), verdicts
    mkb = check(program, task, tolerance="mkb", worker=worker)
    assert mkb.tolerance == "mkb" and "[tolerance]" in mkb.cases[0].mismatches[0]


def test_the_dsl_check_applies_the_tasks_own_precision_check(sim):
    task = load_task(SCALE_ADD)
    off = parse_program(PROGRAM.replace("A.Add(res, u, v, n)", "A.Add(res, u, v, n)\n        A.Adds(res, res, 0.25, n)"),
                        "scale_add.dsl.py")
    with ReferenceWorker(task) as worker:
        report = check(off, task, tolerance="npukb", worker=worker, cases=["case_id 1"])
        v = verify(task, lower(off, task.op_type), sim, tolerance="npukb", worker=worker, cases=["case_id 1"],
                   trials=1, recheck=False, api_lint=False)
    assert not report.ok and not v.ok
    assert "custom_check_precision rejects" in report.cases[0].mismatches[0]
    assert v.first_mismatch().message == "the task's custom_check_precision rejects the outputs"


def test_dsl_findings_survive_the_verdict(scale_add):
    task, worker = scale_add
    broken = PROGRAM.replace("A.Add(res, u, v, n)", "A.Add(res, u, v, n + 64)")
    program = parse_program(broken, "broken.dsl.py")
    v = verify(task, dsl_project(program), InterpToolchain(), worker=worker, trials=1, recheck=False, api_lint=False)
    assert v.status == "fail" and v.runs[0].run_status == "rule_violation"
    found = v.runs[0].diagnostics[0]
    line = next(i for i, t in enumerate(broken.splitlines(), 1) if "n + 64" in t)
    assert found.file == "broken.dsl.py" and found.line == line and found.rule.startswith("ub.")
    assert found.hint and found.values
    report = check(program, task, worker=worker)
    d = report.cases[0].diagnostics[0]
    assert (d.rule, d.line, d.hint, d.values) == (found.rule, found.line, found.hint, found.values)
    assert f"[{found.rule}] at line {line}" in report.render(broken)
