"""A ModelNew answer that fails at shrunk shapes, on a task too big to run whole, is judged at the task's own
shapes on a sample of its blocks (referee/sampled.py): the verdict names the blocks and compares only what they
wrote. A kernel that fails inside the sample fails; one whose blocks wait for each other is not judged."""
from pathlib import Path

import numpy as np
import pytest

from kernelwright.tools.project import KernelProject
from kernelwright.tools.referee import verify
from kernelwright.tools.referee.sampled import element_mask, masked_reply
from kernelwright.tools.tasks import load_task
from kernelwright.tools.tasks.reference import ReferenceWorker
from kernelwright.tools.toolchain import RunResult, Toolchain

FIX = Path(__file__).parent / "fixtures"


class OwnShapesOnly(Toolchain):
    """The emulation, with outputs off by one unless x has the task's shape [6, 40] (a kernel written for it), and
    optionally a wrong value from one block at the task's shapes."""

    name = "sim"

    def __init__(self, sim, bad_row: int | None = None):
        self.sim, self.soc, self.capabilities, self.bad_row = sim, sim.soc, sim.capabilities, bad_row

    def build(self, project, *, soc=None):
        return self.sim.build(project, soc=soc)

    def run(self, build, case):
        r = self.sim.run(build, case)
        own = case.inputs["x"].shape == (6, 40)
        for k in [k for k in r.outputs if k not in case.inputs]:
            r.outputs[k] = r.outputs[k] + (0 if own else 1)
            if own and self.bad_row is not None:
                r.outputs[k][self.bad_row] += 1
        return r


@pytest.fixture(scope="module")
def task_worker():
    task = load_task(FIX / "tasks/linear.py")
    with ReferenceWorker(task) as w:
        yield task, w


def _verify(sim, task_worker, **kw):
    task, w = task_worker
    return verify(task, KernelProject.from_path(FIX / "linear_gemm"), OwnShapesOnly(sim, **kw), worker=w,
                  tolerance="mkb", api_lint=False, recheck=False, trials=1, budget=200, fallback_budget=200)


def test_a_kernel_failing_at_shrunk_shapes_passes_on_sampled_blocks_at_the_tasks_own(sim, task_worker):
    v = _verify(sim, task_worker)
    assert v.status == "pass", v.summary
    run = v.runs[0]
    assert run.sampled_blocks == [0, 2, 3, 5] and run.run_shapes[0] == [6, 40]   # 4 of the 6 row blocks
    assert "on sampled blocks [0, 2, 3, 5] only" in v.summary
    assert any("96 output element(s) compared" in n for n in run.notes), run.notes    # 4 rows of 24


def test_a_wrong_row_inside_the_sample_fails_and_one_outside_is_not_seen(sim, task_worker):
    v = _verify(sim, task_worker, bad_row=2)
    assert v.status == "fail" and v.runs[0].mismatches[0].rule == "tolerance", v.summary
    v = _verify(sim, task_worker, bad_row=1)      # block 1 did not run: its row is NaN, never compared
    assert v.status == "pass", v.summary


class SlowWhole(OwnShapesOnly):
    """Every block in turn takes longer than the emulation allows (a scalar GM loop); a sample of them does not."""

    def run(self, build, case):
        if not case.sample_blocks:
            return RunResult(toolchain="sim", status="timeout", detail="block 3 did not finish within 120000 ms")
        return self.sim.run(build, case)


def test_a_launch_too_slow_to_run_whole_is_judged_on_sampled_blocks(sim, task_worker):
    task, w = task_worker
    v = verify(task, KernelProject.from_path(FIX / "linear_gemm"), SlowWhole(sim), worker=w, tolerance="mkb",
               api_lint=False, recheck=False, trials=1)
    assert v.status == "pass", v.summary
    assert v.runs[0].sampled_blocks == [0, 2, 3, 5] and "did not finish in time" in v.runs[0].notes[0]
    assert "at the task's own shapes on sampled blocks [0, 2, 3, 5] only" in v.summary


def test_masked_reply_marks_unwritten_elements_and_refuses_integers():
    mask = element_mask([(4, 8)], 5, 4)
    assert mask.tolist() == [False, True, True, False, False]
    out, why = masked_reply("y", np.arange(5, dtype=np.float32), [(4, 8)])
    assert np.isnan(out[[0, 3, 4]]).all() and out[1:3].tolist() == [1, 2] and not why
    out, why = masked_reply("y", np.arange(5, dtype=np.int64), [(8, 16)])
    assert out is None and "no NaN" in why


class SlowSample(OwnShapesOnly):
    """Every block in turn, and four sampled blocks together, take longer than the emulation allows; two do not."""

    def run(self, build, case):
        if not case.sample_blocks or case.sample_blocks > 2:
            return RunResult(toolchain="sim", status="timeout", detail="block 2 did not finish within 120000 ms")
        return self.sim.run(build, case)


def test_sampled_blocks_too_slow_together_leave_the_first_and_the_last(sim, task_worker):
    task, w = task_worker
    v = verify(task, KernelProject.from_path(FIX / "linear_gemm"), SlowSample(sim), worker=w, tolerance="mkb",
               api_lint=False, recheck=False, trials=1)
    assert v.status == "pass", v.summary
    assert v.runs[0].sampled_blocks == [0, 5]
    assert any("judged on the first and the last block only" in n for n in v.runs[0].notes), v.runs[0].notes


class AddScaleOwnShapes(OwnShapesOnly):
    """add_scale, off by one unless x has the task's shape [37, 1000]."""

    def run(self, build, case):
        r = self.sim.run(build, case)
        if case.inputs["x"].shape != (37, 1000):
            r.outputs["z"] = r.outputs["z"] + 1
        return r


def test_the_static_binding_is_judged_on_sampled_blocks(sim):
    """An operator project without ModelNew (NPUKernelBench's goldens) failing at shrunk shapes: each output is
    compared where the sampled blocks wrote it."""
    task = load_task(FIX / "tasks/add_scale.py")
    with ReferenceWorker(task) as w:
        v = verify(task, KernelProject.from_path(FIX / "add_scale"), AddScaleOwnShapes(sim), worker=w, tolerance="mkb",
                   api_lint=False, recheck=False, trials=1, budget=2000, fallback_budget=2000)
    assert v.status == "pass", v.summary
    run = v.runs[0]
    assert len(run.sampled_blocks) == 4 and run.run_shapes[0] == [37, 1000]
    assert any("through the static binding" in n for n in run.notes), run.notes
