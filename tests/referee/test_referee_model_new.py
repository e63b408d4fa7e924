"""verify judges an answer that has a ModelNew as MultiKernelBench does: ModelNew(*init)(*inputs) under the
reference's seed, its extension calls running the built operator, its result compared with Model's. A GEMM
answer whose ModelNew keeps the weights in nn.Linear is judged with those weights."""
from pathlib import Path

import pytest

from kernelwright.tools.project import KernelProject
from kernelwright.tools.referee import verify
from kernelwright.tools.tasks import load_task
from kernelwright.tools.tasks.reference import ReferenceWorker

FIX = Path(__file__).parent / "fixtures"


@pytest.fixture(scope="module")
def gemm():
    return KernelProject.from_path(FIX / "linear_gemm")


@pytest.fixture(scope="module")
def task_worker():
    task = load_task(FIX / "tasks/linear.py")
    with ReferenceWorker(task) as w:
        yield task, w


def _with_model(project: KernelProject, text: str) -> KernelProject:
    return project.model_copy(update={"glue": {**project.glue, "model_new.py": text}})


def test_a_gemm_answer_is_judged_through_its_modelnew_with_the_linear_weights(sim, gemm, task_worker):
    task, w = task_worker
    v = verify(task, gemm, sim, worker=w, api_lint=False, recheck=False, trials=1)
    assert v.status == "pass", v.summary
    assert any("judged through the answer's ModelNew (1 extension call" in n for n in v.runs[0].notes)
    assert v.runs[0].block_dim == 6                      # one block per row of x: the operator really ran


def test_weights_other_than_the_references_fail_the_comparison(sim, gemm, task_worker):
    task, w = task_worker
    # the RNG is used once more before the layer is built: other weights than Model's under the same seed
    other = gemm.glue["model_new.py"].replace("        self.fc = torch.nn.Linear(",
                                              "        torch.randn(1)\n        self.fc = torch.nn.Linear(")
    v = verify(task, _with_model(gemm, other), sim, worker=w, api_lint=False, recheck=False, trials=1)
    assert v.status == "fail" and v.runs[0].mismatches[0].rule == "tolerance", v.summary


def test_a_binding_whose_exec_args_do_not_fit_the_opdef_is_a_verdict(sim, gemm, task_worker):
    task, w = task_worker
    bind = gemm.glue["bind/op.cpp"].replace("EXEC_NPU_CMD(aclnnLinearGemm, x, weight, bias, y)",
                                            "EXEC_NPU_CMD(aclnnLinearGemm, x, weight, y)")
    project = gemm.model_copy(update={"glue": {**gemm.glue, "bind/op.cpp": bind}})
    v = verify(task, project, sim, worker=w, api_lint=False, recheck=False, trials=1)
    assert v.status == "fail" and v.runs[0].mismatches[0].rule == "binding"
    assert "passes 3 arguments" in v.runs[0].mismatches[0].message and "3 inputs" in v.runs[0].mismatches[0].message


def test_a_modelnew_that_raises_is_a_verdict(sim, gemm, task_worker):
    task, w = task_worker
    broken = gemm.glue["model_new.py"].replace("return custom_ops_lib.linear_gemm(", "return custom_ops_lib.nope(")
    v = verify(task, _with_model(gemm, broken), sim, worker=w, api_lint=False, recheck=False, trials=1)
    assert v.status == "fail" and v.runs[0].mismatches[0].rule == "model_new"
    assert "no function 'nope'" in v.runs[0].mismatches[0].message



def test_an_output_fixed_far_past_the_emulations_budget_is_skipped_with_the_reason(sim, gemm, task_worker):
    task, w = task_worker
    bind = gemm.glue["bind/op.cpp"].replace("at::empty({rows, weight.size(0)}", "at::empty({rows, 1 << 23}")
    project = gemm.model_copy(update={"glue": {**gemm.glue, "bind/op.cpp": bind}})
    v = verify(task, project, sim, worker=w, api_lint=False, recheck=False, trials=1)
    assert v.status == "error" and v.runs[0].status == "skipped", v.summary
    assert "the binding allocates y [6, 8388608]" in v.runs[0].reason
