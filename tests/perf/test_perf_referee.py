"""The referee's measure stage answers "is it faster than eager?": estimates on the emulation (labelled
as such, per SoC, with the bottleneck pipe and each pipe's busy share), measured times on a backend
that times kernels."""
from __future__ import annotations

from pathlib import Path

import pytest

from kernelwright.tools.perf.eager import estimate_eager
from kernelwright.tools.project import KernelProject
from kernelwright.tools.referee import verify
from kernelwright.tools.tasks import load_task
from kernelwright.tools.tasks.reference import ReferenceWorker
from kernelwright.tools.timing import TimingResult, TimingStats
from kernelwright.tools.toolchain import Toolchain

FIX = Path(__file__).resolve().parents[1] / "referee" / "fixtures"


@pytest.fixture(scope="module")
def task_worker():
    task = load_task(FIX / "tasks/add_scale.py")
    with ReferenceWorker(task) as w:
        yield task, w


@pytest.fixture(scope="module")
def project():
    return KernelProject.from_path(FIX / "add_scale")


def test_sim_verdict_reports_an_estimated_speedup_over_eager(sim, project, task_worker):
    task, worker = task_worker
    v = verify(task, project, sim, worker=worker, trials=1, recheck=False, api_lint=False)
    assert v.status == "pass", v.summary
    m = v.stage("measure")
    speed = m.metrics["speed"]
    assert speed["kind"] == "estimate" and "not a measurement" in speed["note"]
    assert "speedup" not in m.metrics, "an estimate is never reported as a measured speed-up"
    main = speed["per_soc"]["Ascend910B2"]
    assert set(speed["per_soc"]) >= {"Ascend910B2", "Ascend910B3"}       # 48 and 40 vector cores
    assert main["status"] == "ok" and main["kernel_us"] > main["device_us"] > 0
    assert main["eager_kernels"] == 2                    # add, then mul: two launches in eager PyTorch
    assert m.metrics["est_speedup"] == pytest.approx(main["eager_us"] / main["kernel_us"])
    assert main["bottleneck"] in main["pipes"] or main["bottleneck"] == "GM"
    assert all(0 < share <= 1 for share in main["pipes"].values())
    assert main["gm_bytes"] >= 3 * 37000 * 2             # x and y in, z out (float16)
    assert "an estimate on the emulation" in m.summary


def test_eager_baseline_launches_one_kernel_per_op_and_views_are_free():
    t = {"shape": [1024, 1024], "dtype": "float32"}
    add = {"op": "add", "inputs": [t, t], "outputs": [t]}
    view = {"op": "view", "inputs": [t], "outputs": [t]}
    one = estimate_eager([add], "Ascend910B2")
    three = estimate_eager([add, view, add, add], "Ascend910B2")
    assert (one.kernels, three.kernels) == (1, 3)
    assert three.total_us == pytest.approx(3 * one.total_us)
    assert one.ops[0].bound == "GM" and one.ops[0].bytes == 3 * 4 << 20
    mm = {"op": "mm", "inputs": [{"shape": [4096, 4096], "dtype": "float16"}] * 2,
          "outputs": [{"shape": [4096, 4096], "dtype": "float16"}]}
    e = estimate_eager([mm], "Ascend910B2").ops[0]
    assert e.bound == "cube"                             # 2*4096^3 flops on the cube outweigh 96 MiB of traffic
    assert e.us > 300                                    # ~354 TFLOPS fp16 peak: at least 0.39 ms


class TimedSim(Toolchain):
    """The emulation plus a `time` capability, standing in for a backend that measures on a device."""

    def __init__(self, sim):
        self.sim, self.name, self.calls = sim, "fake-device", []
        self.soc, self.capabilities = sim.soc, sim.capabilities

    def build(self, project, *, soc=None):
        return self.sim.build(project, soc=soc)

    def run(self, build, case):
        return self.sim.run(build, case)

    def time(self, build, case, *, reference=None, config=None, seed=0):
        self.calls.append((case, reference))
        return TimingResult(toolchain="fake-device", status="ok", kernel=TimingStats.of([0.010, 0.012, 0.011]),
                            reference=TimingStats.of([0.030, 0.033, 0.036])).with_speedups()


def test_measured_times_replace_the_estimate_on_a_timing_backend(sim, project, task_worker):
    task, worker = task_worker
    timed = TimedSim(sim)
    v = verify(task, project, timed, worker=worker, trials=1, recheck=False, api_lint=False)
    assert v.status == "pass", v.summary
    m = v.stage("measure")
    assert m.metrics["speed"]["kind"] == "measured" and m.metrics["speedup"] == pytest.approx(3.0)
    assert "est_speedup" not in m.metrics and "measured" in m.summary
    case, reference = timed.calls[0]
    assert reference.source == task.source and len(reference.forward_args) == 2


def test_a_shrunk_case_is_estimated_at_the_task_shapes_too(sim, project, task_worker):
    """Judged at shrunk shapes (a small budget), the kernel runs once more at the task's own shapes in a
    trace-only run: that estimate is the headline, the shrunk one stands beside it."""
    task, worker = task_worker
    v = verify(task, project, sim, worker=worker, trials=1, recheck=False, api_lint=False, budget=4096)
    assert v.status == "pass", v.summary
    assert any(r.shrunk for r in v.runs)
    m = v.stage("measure")
    speed = m.metrics["speed"]
    assert speed["at"] == "task" and "trace-only run" in speed["method"], speed.get("why_not_task_shapes")
    main, shrunk = speed["per_soc"]["Ascend910B2"], speed["shrunk"]["per_soc"]["Ascend910B2"]
    assert speed["shrunk"]["shapes"].startswith("shrunk shapes")
    assert main["gm_bytes"] >= 3 * 37000 * 2 > shrunk["gm_bytes"]      # the task's own x, y and z
    assert main["min_bytes"] == 3 * 37000 * 4                           # the reference's float32 x, y and z
    assert main["device_us"] > shrunk["device_us"]
    assert main["eager_us"] > shrunk["eager_us"]                        # eager at the task's shapes too
    assert "at the task's shapes" in m.summary and "at the shrunk shapes" in m.summary
    # the same program at both sizes (one tile loop, a tail at each): no instruction kind only the estimate ran
    assert speed["unjudged"] == [] and "not verified" not in m.summary


def test_a_cut_block_that_cannot_be_extended_is_traced_whole(sim, project, task_worker, monkeypatch):
    """Cut after 1 KB, add_scale's blocks (one tile each) repeat no period: the referee says so and traces the
    blocks whole, so the estimate at the task's shapes is the one without a cut."""
    from kernelwright.tools.referee import speed_shapes
    task, worker = task_worker
    monkeypatch.setattr(speed_shapes, "TRACE_BUDGETS", (1024,))
    v = verify(task, project, sim, worker=worker, trials=1, recheck=False, api_lint=False, budget=4096)
    speed = v.stage("measure").metrics["speed"]
    assert speed["at"] == "task" and "extended" not in speed["method"], speed.get("why_not_task_shapes")
    notes = speed["per_soc"]["Ascend910B2"]["notes"]
    assert any("cut at 1 KB per block, not extended" in n and "no period repeats" in n for n in notes), notes
    assert speed["per_soc"]["Ascend910B2"]["gm_bytes"] >= 3 * 37000 * 2
