"""The lint and measure stages, the shrink fallback (a reference that hard-codes a dimension), and
what a backend's capabilities decide: one that does not shrink runs the task's own shapes, one that
only compile-checks runs nothing."""
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from kernelwright.tools.project import KernelProject
from kernelwright.tools.referee import verify
from kernelwright.tools.referee.case_runner import reference
from kernelwright.tools.referee.stages import lint_stage, measure_stage
from kernelwright.tools.referee.tolerance import preset_for
from kernelwright.tools.referee.verdict import CaseRun
from kernelwright.tools.tasks import load_task
from kernelwright.tools.tasks.reference import ReferenceWorker, RefRun
from kernelwright.tools.tasks.shrink import Shape, plan_shrink
from kernelwright.tools.toolchain import Capabilities, Diagnostic, RunResult, Toolchain

HERE = Path(__file__).parent
QUIRKS = HERE.parent / "tasks/fixtures/quirks"
SCALE_ADD = HERE.parent / "tasks/fixtures/npukb/tasks/level1/Math/ScaleAdd"


def test_lint_stage_reports_api_findings_as_warnings_and_cheats_as_failures():
    project = KernelProject.from_path(HERE / "fixtures/add_scale")
    clean = lint_stage(project)
    assert clean.status == "pass" and clean.diagnostics == []
    files = dict(project.files)
    files["op_kernel/add_scale.cpp"] = files["op_kernel/add_scale.cpp"].replace("Muls(zl, zl", "AscendC::Mulss(zl, zl")
    invented = lint_stage(project.model_copy(update={"files": files}))
    assert invented.status == "pass" and invented.diagnostics and invented.diagnostics[0].severity == "warning"
    assert "Mulss" in invented.diagnostics[0].message
    cheat = (HERE / "corpus/cheats/no_launch_binding.cpp").read_text()
    flagged = lint_stage(project, extra_glue={"bind/op.cpp": cheat})
    assert flagged.status == "fail" and "anti-cheat: 1 finding" in flagged.summary
    assert flagged.findings == ["cheat: bind/op.cpp: check_binding_launches: the binding never launches a kernel "
                                "(no EXEC_NPU_CMD, aclnn call, <<<>>> or *_launch) "
                                "[rule: AscendOpGenAgent Type1 (the kernel is never launched)]"]


def test_measure_stage_sums_work_counters():
    r = RunResult(toolchain="sim", status="ok", block_dim=2, counters=[
        {"block": 0, "vector": [{"api": "Add", "instructions": 2, "elements": 100}], "copy_bytes": {"GM->UB": 800}},
        {"block": 1, "vector": [{"api": "Add", "instructions": 1, "elements": 28}], "copy_bytes": {"GM->UB": 224},
         "cube": [{"api": "Mmad", "dtype": "float16", "instructions": 4, "fractals": 8, "macs": 4096}]}])
    m = measure_stage([("case 0", r)])
    assert m.status == "pass" and m.metrics["per_case"]["case 0"] == {
        "block_dim": 2, "vector_instructions": 3, "vector_elements": 128, "cube_instructions": 4, "cube_macs": 4096,
        "copy_bytes": {"GM->UB": 1024}, "emulation_seconds": 0.0}
    assert measure_stage([]).status == "skipped"


@pytest.fixture(scope="module")
def quirks():
    task = load_task(QUIRKS)
    with ReferenceWorker(task, timeout_s=30) as w:
        yield task, w


def _hardcoded(task, w, fallback_budget):
    case = task.case("case_id 6")               # x.reshape(-1, 4096) on a [256, 4096] input
    shapes = w.describe(case)
    plan = plan_shrink([Shape(dims=a.shape, dtype=a.dtype) for a in shapes.args], budget=1 << 16, cores=48)
    assert plan.mapping, "the case must be large enough to shrink"
    run = CaseRun(case=case.id, trial=0, seed=0)
    s = SimpleNamespace(worker=w, fallback_budget=fallback_budget)
    return reference(s, case, 0, shapes, plan, run), run


def test_unsafe_shrink_falls_back_to_the_task_shape(quirks):
    ref, run = _hardcoded(*quirks, fallback_budget=1 << 22)
    assert isinstance(ref, RefRun) and ref.args[0].shape == [256, 4096] and not run.shrunk
    assert run.notes and run.notes[0].startswith("shrinking is unsafe")


def test_unsafe_shrink_beyond_the_fallback_budget_skips_with_the_reason(quirks):
    ref, run = _hardcoded(*quirks, fallback_budget=1 << 16)
    assert ref is None and run.status == "skipped"
    assert "shrinking is unsafe" in run.reason and "exceed the fallback budget of 65536" in run.reason


def test_a_computed_output_dim_equal_to_a_shrunk_input_dim_by_value_is_not_unsafe():
    # MKB conv_transposed_3d_..._strided_padded_grouped: x [8, 32, 12, 24, 48] -> y [8, 32, 24, 48, 96]; y's D (2 * 12)
    # equals x's H by value, and at the shrunk size it is 2 * D_in again, not H's shrunk value
    from kernelwright.tools.referee.case_runner import _unsafe_shrink
    from kernelwright.tools.tasks.reference import RefShapes, RefValue
    from kernelwright.tools.tasks.shrink import ShrinkPlan

    def t(*dims):
        return RefValue(kind="tensor", shape=list(dims), dtype="float32")
    plan = ShrinkPlan(mapping={24: 10, 48: 16}, elements_before=1, elements_after=1, budget=1)
    task = RefShapes(args=[t(8, 32, 12, 24, 48)], init=[], outputs=[t(8, 32, 24, 48, 96)])

    def run(*out):
        return RefRun(args=[t(8, 32, 12, 10, 16)], init=[], params=[], outputs=[t(*out)])

    def remapped(*out):         # the case described with every size the task asks for shrunk, its forward's too
        return lambda: RefShapes(args=[t(8, 32, 12, 10, 16)], init=[], outputs=[t(*out)])
    same = run(8, 32, 24, 20, 32)
    assert "hard-codes" in _unsafe_shrink(task, plan, same)                            # by value alone: suspect
    assert _unsafe_shrink(task, plan, same, remapped(8, 32, 24, 20, 32)) is None      # the forward hard-codes nothing
    # x.reshape(-1, 48) in the forward: shrinking its sizes too gives another shape
    assert "hard-codes" in _unsafe_shrink(task, plan, run(8, 32, 24, 20, 48), remapped(8, 32, 24, 20, 16))


class Backend(Toolchain):
    """Stands in for another backend: the emulation's builds and runs, with the capabilities given. It
    calls itself `sim`, to show that the referee goes by what a backend says it can do, not by its name."""

    name = "sim"

    def __init__(self, sim, capabilities: Capabilities):
        self.sim, self.soc, self.capabilities = sim, sim.soc, capabilities

    def build(self, project, *, soc=None):
        return self.sim.build(project, soc=soc)

    def run(self, build, case):
        return self.sim.run(build, case)


def test_a_backend_that_does_not_shrink_runs_the_task_shapes(sim):
    task = load_task(SCALE_ADD)
    golden = KernelProject.from_path(task.golden)
    common = dict(cases=["case_id 0"], api_lint=False, recheck=False, budget=1 << 12)   # [37, 1000] x 2 > budget
    with ReferenceWorker(task) as worker:
        v = verify(task, golden, Backend(sim, Capabilities(dtypes=sim.capabilities.dtypes)), worker=worker, **common)
        assert v.status == "pass" and v.backend == "sim"
        assert v.runs[0].run_shapes == [[37, 1000], [37, 1000]] and not v.runs[0].shrunk
        v = verify(task, golden, sim, worker=worker, **common)
        assert v.status == "pass" and v.runs[0].shrunk and v.runs[0].run_shapes[0][1] < 1000


def test_a_compile_only_backend_builds_and_runs_nothing(sim):
    task = load_task(SCALE_ADD)
    with ReferenceWorker(task) as worker:
        v = verify(task, KernelProject.from_path(task.golden), Backend(sim, Capabilities(runs=False)), worker=worker,
                   api_lint=False)
    assert v.stage("build").status == "pass" and not v.runs
    assert v.status == "error" and "only compile-checks" in v.summary


def test_lint_stage_is_skipped_when_nothing_is_checked():
    project = KernelProject.from_path(HERE / "fixtures/add_scale")
    report = lint_stage(project, api_lint=False)
    assert report.status == "skipped" and "API lint: skipped" in report.summary


class HalfOutputs(Backend):
    """The emulation's runs with every float32 output handed back in float16, as a kernel that writes half."""

    def run(self, build, case):
        r, outs = self.sim.run(build, case), {o.name for o in build.op.outputs}
        return r.model_copy(update={"outputs": {k: (a.astype(np.float16) if k in outs else a)
                                                for k, a in r.outputs.items()}})


def test_a_benchmark_task_is_judged_by_its_benchmarks_preset_unless_one_is_named(sim):
    task = load_task(SCALE_ADD)
    half = HalfOutputs(sim, sim.capabilities)
    common = dict(cases=["case_id 0"], api_lint=False, recheck=False, trials=1)
    with ReferenceWorker(task) as worker:
        own = verify(task, KernelProject.from_path(task.golden), half, worker=worker, **common)
        named = verify(task, KernelProject.from_path(task.golden), half, worker=worker, tolerance="default", **common)
        auto = verify(task, KernelProject.from_path(task.golden), half, worker=worker, tolerance="auto", **common)
    assert auto.status == "pass" and auto.tolerance == "npukb" and auto.tolerance_rule == own.tolerance_rule
    # NPUKernelBench compares in float: a half output of a float reference is no failure there
    assert own.status == "pass" and own.tolerance == "npukb", own.summary
    assert "NPUKernelBench's own judgement" in own.tolerance_rule and "--tolerance overrides" in own.tolerance_rule
    assert named.status == "fail" and named.tolerance == "default" and named.first_mismatch().rule == "dtype"
    assert "chosen" not in named.tolerance_rule


def test_a_plain_task_keeps_kernelwrights_own_preset():
    tol, why = preset_for("py")
    assert tol.name == "default" and "no known benchmark" in why
    assert {layout: preset_for(layout)[0].name for layout in ("mkb", "npukb", "kernelbench")} == {
        "mkb": "mkb", "npukb": "npukb", "kernelbench": "kernelbench"}


class LuckyWrites(Backend):
    """The emulation's runs, plus the warning the emulation gives a kernel that wrote past its output into free
    allocator memory (tests/sim/test_sim_gm_padding.py shows the emulation giving it)."""

    def run(self, build, case):
        r = self.sim.run(build, case)
        warn = Diagnostic(stage="run", severity="warning", rule="gm.past_allocation",
                          message="DataCopy writes bytes [4096, 4160) of 'z', which holds 1 KiB in a 2 MiB device block")
        return r.model_copy(update={"diagnostics": [*r.diagnostics, warn]})


def test_a_write_past_the_tensor_passes_a_benchmark_preset_by_luck_and_fails_ours(sim):
    task = load_task(SCALE_ADD)
    lucky = LuckyWrites(sim, sim.capabilities)
    common = dict(cases=["case_id 0"], api_lint=False, recheck=False, trials=1)
    with ReferenceWorker(task) as worker:
        bench = verify(task, KernelProject.from_path(task.golden), lucky, worker=worker, tolerance="npukb", **common)
        ours = verify(task, KernelProject.from_path(task.golden), lucky, worker=worker, tolerance="default", **common)
    assert bench.status == "pass" and any(d.rule == "gm.past_allocation" for r in bench.runs for d in r.diagnostics)
    assert ours.status == "fail" and "writes past a tensor into free device memory" in ours.runs[0].reason
