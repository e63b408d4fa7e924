"""`kernelwright.generate(...)` and `kernelwright.verify(...)`: the Python API on the package root."""
from __future__ import annotations

import json

import pytest

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from frontdoor_env import ABS, RELU  # noqa: E402


def test_package_root_exports_generate_and_verify_lazily():
    import kernelwright
    from kernelwright.agent.api import generate
    from kernelwright.agent.api_verify import verify
    assert kernelwright.generate is generate and kernelwright.verify is verify
    with pytest.raises(AttributeError, match="no attribute 'nonexistent'"):
        kernelwright.nonexistent  # noqa: B018


def test_generate_runs_plan_dsl_ascendc_verdict(relu_kernel):
    result, events, model = relu_kernel
    assert result.status == "passed" and result.ok, result.reason
    assert result.path[:1] == ["planner"] and result.path[-1] == "finish"
    assert [n for n in ("dsl_writer", "lowerer", "verify") if n not in result.path] == []
    assert result.verdict["status"] == "pass"
    kernel = result.kernel
    assert (kernel / "kernel.dsl.py").is_file() and list(kernel.glob("op_kernel/*.cpp")), sorted(kernel.rglob("*"))
    run = json.loads((result.artifacts / "run.json").read_text())
    assert run["status"] == "passed"
    streamed = [node for mode, chunk in events if mode == "updates" for node in chunk]
    assert streamed.index("planner") < streamed.index("dsl_writer") < streamed.index("lowerer") < streamed.index("verify")


def test_generate_with_a_chat_model_object(relu_kernel):
    """A ChatModel object answers every node; each exchange is recorded in the run's model_calls.jsonl."""
    result, _, model = relu_kernel
    assert [node for node, _ in model.calls] == ["planner", "dsl_writer"] and result.usage["calls"] == 2
    assert "a scripted model's reply" in (result.kernel / "kernel.dsl.py").read_text()
    calls = (result.artifacts / "model_calls.jsonl").read_text().splitlines()
    assert [json.loads(c)["node"] for c in calls] == ["planner", "dsl_writer"]


def test_generate_rejects_a_missing_task(builtin_config, tmp_path):
    import kernelwright
    from kernelwright.tools.tasks import TaskError
    with pytest.raises(TaskError, match="no_such_task"):
        kernelwright.generate(tmp_path / "no_such_task.py", config=builtin_config)


def test_verify_passes_the_kernel_on_its_task(relu_kernel, sim):
    import kernelwright
    result, _, _ = relu_kernel
    v = kernelwright.verify(result.kernel, RELU, toolchain=sim)
    assert v.ok and v.status == "pass", v.summary
    assert {"lint", "build", "run"} <= {s.name for s in v.stages} and all(s.status == "pass" for s in v.stages[:3])
    assert v.backend == "sim" and v.tolerance == "default"


def test_verify_fails_the_kernel_on_another_task_as_a_verdict(relu_kernel, sim):
    """relu's kernel judged against |x|*1.5-0.25: a failing verdict (data), not an exception."""
    import kernelwright
    from kernelwright.tools.project import KernelProject
    result, _, _ = relu_kernel
    v = kernelwright.verify(KernelProject.from_path(result.kernel), str(ABS), toolchain=sim, tolerance="mkb")
    assert v.status == "fail" and not v.ok
    assert v.tolerance == "mkb"
    assert any(s.status == "fail" for s in v.stages), [(s.name, s.status) for s in v.stages]


def test_verify_rejects_bad_input(relu_kernel, tmp_path):
    import kernelwright
    from kernelwright.tools.referee.tolerance import UnknownTolerance
    result, _, _ = relu_kernel
    from kernelwright.tools.project import ProjectError
    with pytest.raises(ProjectError, match="no_project"):
        kernelwright.verify(tmp_path / "no_project", RELU)
    with pytest.raises(UnknownTolerance):
        kernelwright.verify(result.kernel, RELU, tolerance="loose-ish")
