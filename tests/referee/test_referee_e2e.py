"""End to end on the emulation: our own msopgen project passes `verify` against its task; every
planted-bug copy (tests/referee/corpus/half_working) fails for the stated rule with the stated hint;
cheating glue, build failures and broken references are verdicts, not exceptions."""
import json
from pathlib import Path

import pytest

from kernelwright.tools.project import KernelProject, LaunchSpec
from kernelwright.tools.referee import verify
from kernelwright.tools.tasks import load_task
from kernelwright.tools.tasks.reference import ReferenceWorker

HERE = Path(__file__).parent
FIX = HERE / "fixtures"
CORPUS = sorted((HERE / "corpus" / "half_working").glob("*.json"))
SCALE_ADD = HERE.parent / "tasks/fixtures/npukb/tasks/level1/Math/ScaleAdd"


def planted(base: KernelProject, spec: dict) -> KernelProject:
    files = dict(base.files)
    for e in spec["edits"]:
        assert files[e["file"]].count(e["find"]) == 1, f"edit does not apply: {e['find']!r}"
        files[e["file"]] = files[e["file"]].replace(e["find"], e["replace"])
    return base.model_copy(update={"files": files})


@pytest.fixture(scope="module")
def project():
    return KernelProject.from_path(FIX / "add_scale")


@pytest.fixture(scope="module")
def task_worker():
    task = load_task(FIX / "tasks/add_scale.py")
    with ReferenceWorker(task) as w:
        yield task, w


def test_good_project_passes_every_stage(sim, project, task_worker):
    task, worker = task_worker
    v = verify(task, project, sim, worker=worker)
    assert v.status == "pass", v.summary
    assert [(s.name, s.status) for s in v.stages] == [("lint", "pass"), ("build", "pass"), ("run", "pass"),
                                                       ("compare", "pass"), ("measure", "pass")]
    assert [(r.seed, r.label) for r in v.runs] == [(0, "trial"), (1, "trial"), (2, "trial"), (104729, "recheck")]
    assert v.tolerance == "default" and "float16 atol=0.001" in v.tolerance_rule
    per_case = v.stage("measure").metrics["per_case"]
    assert all(c["block_dim"] == 48 and c["copy_bytes"]["UB->GM"] == 37000 * 4 for c in per_case.values())


@pytest.mark.parametrize("spec_path", CORPUS, ids=[p.stem for p in CORPUS])
def test_planted_bug_fails_for_the_stated_reason(sim, project, task_worker, spec_path):
    spec = json.loads(spec_path.read_text())
    task, worker = task_worker
    v = verify(task, planted(project, spec), sim, worker=worker, trials=1, api_lint=False)
    assert v.status == "fail", f"{spec_path.stem} ({spec['why']}) passed: {v.summary}"
    m = v.first_mismatch()
    want = spec["expect"]
    assert m is not None and m.rule == want["rule"], v.summary
    if "output" in want:
        assert m.output == want["output"]
    if "hint" in want:
        assert any(want["hint"] in h for h in m.hints), m.hints
    assert m.first_index is not None and m.count > 0


def test_zeros_pass_a_lax_bar_but_not_the_referee(sim, project):
    spec = json.loads((HERE / "corpus/half_working/zeros.json").read_text())
    tiny = load_task(FIX / "tasks/add_scale_tiny.py", dtypes=["float16"])
    v = verify(tiny, planted(project, spec), sim, tolerance="kernelbench", trials=1, recheck=False, api_lint=False)
    assert v.status == "fail" and v.first_mismatch().rule == "all_zero"     # every element is within 1e-2


def test_npukb_task_with_its_golden_and_its_own_precision_check(sim):
    task = load_task(SCALE_ADD)
    v = verify(task, KernelProject.from_path(task.golden), sim, tolerance="npukb", api_lint=False)
    assert v.status == "pass", v.summary
    assert [r.case for r in v.runs] == ["case_id 0", "case_id 1", "case_id 2", "case_id 0"]
    big = v.runs[2]
    assert big.original_shapes == [[4096, 1025], [4096, 1025]] and big.shrunk
    rows, cols = big.run_shapes[0]
    assert rows * cols * 2 <= 1 << 20 and cols % 16 == 1025 % 16 and cols % 48 == 1025 % 48


def test_kernel_launch_project_through_its_launch_spec(sim, task_worker):
    task, worker = task_worker
    project = KernelProject.from_path(FIX / "scale_add_kl/scale_add_kl.cpp")
    assert verify(task, project, sim, worker=worker, trials=1).summary.startswith("no case could run")
    project.launch = LaunchSpec.model_validate_json((FIX / "scale_add_kl/launch.json").read_text())
    v = verify(task, project, sim, worker=worker, trials=1)
    assert v.status == "pass", v.summary
    short = project.model_copy(deep=True)
    short.launch.args[3].expr = "numel(x) - 1000"        # the launcher under-reports the element count
    v = verify(task, short, sim, worker=worker, trials=1, recheck=False)
    m = v.first_mismatch()
    assert v.status == "fail" and m.rule == "nan_position" and m.count == 1000
    assert any("whole rows are wrong: 1 of 37 rows" in h and "the last row" in h for h in m.hints), m.hints


def test_cheating_glue_fails_even_when_the_kernel_is_right(sim, project, task_worker):
    task, worker = task_worker
    cheat = (HERE / "corpus/cheats/torch_fallback_relu.py").read_text()
    v = verify(task, project, sim, worker=worker, trials=1, recheck=False, extra_glue={"model_new.py": cheat})
    assert v.status == "fail" and v.stage("lint").status == "fail" and v.stage("compare").status == "pass"
    assert any("check_torch_compute" in f for f in v.stage("lint").findings)


def test_build_failure_is_a_verdict(sim, project, task_worker):
    task, worker = task_worker
    broken = planted(project, {"edits": [{"file": "op_kernel/add_scale.cpp", "find": "Muls(zl, zl, (T)scale, n);",
                                          "replace": "Mulz(zl, zl, (T)scale, n);"}]})
    v = verify(task, broken, sim, worker=worker, api_lint=False)
    assert v.status == "fail" and v.stage("build").status == "fail" and not v.runs
    assert any("Mulz" in d.message for d in v.stage("build").diagnostics)


def test_a_broken_reference_is_an_error_not_a_kernel_failure(sim, project):
    quirks = load_task(HERE.parent / "tasks/fixtures/quirks")
    v = verify(quirks, project, sim, cases=["case_id 1"], api_lint=False)
    assert v.status == "error" and "the reference failed in forward" in v.summary


def test_a_kernel_that_only_fits_the_task_shapes_is_judged_at_those_shapes(sim, project, task_worker):
    task, worker = task_worker
    fixed = planted(project, {"edits": [{"file": "op_host/add_scale.cpp",
                                         "find": "int64_t total = context->GetInputShape(0)->GetStorageShape().GetShapeSize();",
                                         "replace": "int64_t total = 37000;   // hard-coded to the task's size"}]})
    small = dict(worker=worker, trials=1, recheck=False, api_lint=False, budget=1 << 12)
    v = verify(task, fixed, sim, tolerance="mkb", **small)     # a benchmark's preset: its shapes decide
    assert v.status == "pass" and not v.runs[0].shrunk and v.runs[0].run_shapes == [[37, 1000], [37, 1000]]
    assert v.runs[0].notes[0].startswith("written for the task's shapes only: fails at the shrunk shapes")
    v = verify(task, fixed, sim, **small)                      # the default preset keeps it a failure
    assert v.status == "fail" and "written for the task's shapes only" in v.summary
    v = verify(task, fixed, sim, fallback_budget=1 << 12, **small)   # too big to run whole: judged on sampled blocks
    assert v.status == "fail" and not v.runs[0].shrunk and v.runs[0].sampled_blocks
    assert "written for the task's shapes only" in v.summary and "on sampled blocks" in v.summary
