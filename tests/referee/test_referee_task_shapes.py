"""A kernel that fails only at shapes the task never uses (the shrunk ones) and passes at the task's own is
'written for the task's shapes only': a benchmark's preset reports it and passes, the default preset fails."""
from pathlib import Path

import pytest

from kernelwright.tools.project import KernelProject
from kernelwright.tools.referee import verify
from kernelwright.tools.tasks import load_task
from kernelwright.tools.tasks.reference import ReferenceWorker
from kernelwright.tools.toolchain import RunResult, Toolchain


SCALE_ADD = Path(__file__).parent.parent / "tasks/fixtures/npukb/tasks/level1/Math/ScaleAdd"


class TaskShapesOnly(Toolchain):
    """The emulation's builds and runs, with outputs off by one at any shape but the task's [37, 1000]: a
    kernel written for the task's shapes only."""

    name = "sim"

    def __init__(self, sim):
        self.sim, self.soc, self.capabilities = sim, sim.soc, sim.capabilities

    def build(self, project, *, soc=None):
        return self.sim.build(project, soc=soc)

    def off(self, case) -> bool:
        return any(a.shape != (37, 1000) for a in case.inputs.values() if a.ndim == 2)

    def run(self, build, case):
        r = self.sim.run(build, case)
        if self.off(case):
            r.outputs = {k: (v + 1 if k not in case.inputs else v) for k, v in r.outputs.items()}
        return r


@pytest.mark.parametrize("preset", ["npukb", "default"])
def test_a_kernel_written_for_the_task_shapes_only(sim, preset):
    task = load_task(SCALE_ADD)
    with ReferenceWorker(task) as worker:
        v = verify(task, KernelProject.from_path(task.golden), TaskShapesOnly(sim), worker=worker, tolerance=preset,
                   cases=["case_id 0"], api_lint=False, recheck=False, budget=1 << 12, trials=1)
    run = v.runs[0]
    assert run.run_shapes[0] == [37, 1000] and not run.shrunk    # the task's own shapes decided
    if preset == "npukb":      # a benchmark runs only its shapes: reported, not failed
        assert v.status == "pass", v.summary
        assert any(f.startswith("case_id 0: written for the task's shapes only") for f in v.stage("run").findings)
    else:
        assert v.status == "fail" and run.mismatches[-1].rule == "task_shapes_only"
        assert run.reason.startswith("written for the task's shapes only: fails at the shrunk shapes")


class RefusesOtherShapes(TaskShapesOnly):
    """A TilingFunc that refuses every shape but the task's (a host error at the shrunk shapes)."""

    def run(self, build, case):
        if any(a.shape != (37, 1000) for a in case.inputs.values() if a.ndim == 2):
            return RunResult(toolchain="sim", status="host_error", detail="tiling failed (tiling_failed)")
        return self.sim.run(build, case)


@pytest.mark.parametrize("preset", ["npukb", "default"])
def test_a_tiling_that_refuses_shrunk_shapes_is_judged_on_sampled_blocks_when_too_big_to_run_whole(sim, preset):
    task = load_task(SCALE_ADD)
    with ReferenceWorker(task) as worker:
        v = verify(task, KernelProject.from_path(task.golden), RefusesOtherShapes(sim), worker=worker, tolerance=preset,
                   cases=["case_id 0"], api_lint=False, recheck=False, budget=1 << 12, trials=1, fallback_budget=1 << 12)
    # too big to run whole, so the static binding is judged on sampled blocks at the task's own shapes
    assert v.runs[0].sampled_blocks and "on sampled blocks" in v.summary
    if preset == "npukb":      # a benchmark preset: the task's shapes decide
        assert v.status == "pass", v.summary
    else:                      # the default preset keeps a kernel that fails at other shapes a failure
        assert v.status == "fail" and "tiling failed" in v.runs[0].reason
        assert v.runs[0].reason.startswith("written for the task's shapes only")


class FailsAt3d(TaskShapesOnly):
    """Outputs off by one in the 3-d case (case_id 1) only."""

    def off(self, case) -> bool:
        return any(a.ndim == 3 for a in case.inputs.values())


@pytest.mark.parametrize("preset", ["npukb", "default"])
def test_a_case_the_benchmark_never_runs_by_default(sim, preset):
    # NPUKernelBench's default config judges case_id 0 only (n_case: 1): its preset reports case_id 1's failure
    task = load_task(SCALE_ADD)
    with ReferenceWorker(task) as worker:
        v = verify(task, KernelProject.from_path(task.golden), FailsAt3d(sim), worker=worker, tolerance=preset,
                   cases=["case_id 0", "case_id 1"], api_lint=False, recheck=False, budget=1 << 16, trials=1)
    assert [r.case for r in v.runs] == ["case_id 0", "case_id 1"]
    if preset == "npukb":
        assert v.status == "pass" and [r.status for r in v.runs] == ["pass", "skipped"], v.summary
        assert v.summary == "1 run(s) passed; 1 case(s) outside the benchmark's default run fail (run findings)"
        finding, = [f for f in v.stage("run").findings if "outside the benchmark's default run" in f]
        assert finding.startswith("case_id 1:") and "n_case: 1" in finding and "tolerance" in finding
    else:
        assert v.status == "fail" and [r.status for r in v.runs] == ["pass", "fail"], v.summary
