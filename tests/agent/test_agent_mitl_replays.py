"""Real model replies from the model-in-the-loop suite (evals/mitl; tests/agent/transcripts/mitl/*.jsonl,
replies only) replayed through the ChatModel seam: the planner's reply reads as a Plan, and the writer's
program passes the DSL check on our own stand-in task of the same signature (tests/agent/tasks/mitl/).
One of them runs the whole graph on the CPU emulation."""
from pathlib import Path

import pytest

from kernelwright.agent import dslkit
from kernelwright.agent.models import ReplayModel
from kernelwright.agent.replies import json_object
from kernelwright.agent.state import Plan
from kernelwright.agent.writers import DSL_LANGS
from kernelwright.agent.replies import one_code_block
from kernelwright.tools.tasks import load_task
from kernelwright.tools.tasks.reference import ReferenceWorker

HERE = Path(__file__).parent
FIXTURES = sorted((HERE / "transcripts" / "mitl").glob("*.jsonl"))
TASKS = HERE / "tasks" / "mitl"


def replies(path: Path) -> dict[str, list[str]]:
    model, by_node = ReplayModel(path), {}
    for entry in model.entries:
        by_node.setdefault(entry["node"], []).append(entry.get("reply", ""))
    return by_node


def test_every_fixture_has_a_stand_in_task():
    assert len(FIXTURES) >= 5
    assert all((TASKS / f"{f.stem}.py").is_file() for f in FIXTURES)


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda p: p.stem)
def test_the_recorded_replies_plan_and_write_a_program_that_passes_its_check(fixture):
    by_node = replies(fixture)
    plan = json_object(by_node["planner"][-1], Plan)
    assert plan.category and plan.math
    program = one_code_block(by_node["dsl_writer"][-1], DSL_LANGS, "the whole DSL program")
    task = load_task(TASKS / f"{fixture.stem}.py")
    with ReferenceWorker(task) as worker:
        check = dslkit.check(program, task, worker)
    assert check.ok, f"{check.stage}: {check.summary}\n" + "\n".join(check.diagnostics[:3])


def test_a_recorded_run_replays_through_the_whole_graph(agent_config, sim):
    from kernelwright.agent.api import generate
    model = ReplayModel(TASKS.parent.parent / "transcripts" / "mitl" / "selu.jsonl")
    result = generate(TASKS / "selu.py", model=model, config=agent_config, toolchain=sim)
    assert result.status == "passed", result.reason
    assert result.path == ["planner", "dsl_writer", "lowerer", "verify", "finish"] and model.remaining == 0


def test_an_attribute_bound_by_position_is_named_in_the_check():
    """The conv1d writer's first program declared stride, padding, dilation; the task gives in_channels,
    out_channels, kernel_size, which reached them by position. Its assert said only that stride was not 1."""
    first = one_code_block(replies(HERE / "transcripts" / "mitl" / "conv_standard_1d.jsonl")["dsl_writer"][0],
                           DSL_LANGS, "the whole DSL program")
    task = load_task(TASKS / "conv_standard_1d.py")
    with ReferenceWorker(task) as worker:
        check = dslkit.check(first, task, worker)
    assert check.stage == "interpret" and "[tiling.assert]" in check.summary
    assert "binding: attribute 'stride' <- init 'in_channels' = 16 (by position)" in check.diagnostics
