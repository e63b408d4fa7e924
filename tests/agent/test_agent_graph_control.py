"""Budgets, unusable replies, review interrupts and resuming from the checkpoint."""
import json
from pathlib import Path

import pytest

from kernelwright.agent.api import generate
from kernelwright.agent.models import ReplayModel, ScriptedModel
from kernelwright.errors import ConfigError

HERE = Path(__file__).parent
TASK, TRANSCRIPTS = HERE / "tasks" / "abs_scale.py", HERE / "transcripts"


def test_budget_exhausted_after_the_repair_cap(run_task, agent_config):
    agent_config.agent.caps.debugger = 1
    result, model = run_task("budget_exhausted", config=agent_config)
    assert result.path == ["planner", "dsl_writer", "debugger", "planner", "dsl_writer", "finish"]
    assert result.status == "budget_exhausted"
    assert "debugger ran 1 times (cap agent.caps.debugger=1)" in result.reason
    assert model.remaining == 0
    summary = json.loads((result.artifacts / "run.json").read_text())
    assert summary["status"] == "budget_exhausted" and summary["attempts"]["planner"] == 2
    assert (result.artifacts / "plan.v2.json").is_file() and (result.artifacts / "dsl/v2.dsl.py").is_file()


def test_garbage_replies_are_shown_back_and_answered(run_task):
    result, model = run_task("garbage_replies")
    assert result.path == ["planner", "planner", "dsl_writer", "dsl_writer", "lowerer", "verify", "finish"]
    assert result.status == "passed", result.reason
    assert model.remaining == 0
    calls = [json.loads(line) for line in (result.artifacts / "model_calls.jsonl").read_text().splitlines()]
    assert [c["node"] for c in calls] == ["planner", "planner", "dsl_writer", "dsl_writer"]
    retry = calls[1]["messages"]
    assert retry[-2] == {"role": "assistant", "content": calls[0]["reply"]} and "could not be used" in retry[-1]["content"]


def test_format_errors_past_the_cap_fail_the_run(run_task):
    result, model = run_task("garbage_forever")
    assert result.path == ["planner", "planner", "planner", "finish"]
    assert result.status == "failed" and "3 unusable replies in a row" in result.reason
    assert "last problem: expected one JSON object" in result.reason and "found no JSON object" in result.reason
    assert model.remaining == 0


def test_review_interrupt_pauses_and_resume_continues(agent_config, sim):
    first = generate(TASK, model=ReplayModel(TRANSCRIPTS / "plan_then_dsl.jsonl"), config=agent_config, toolchain=sim,
                     interrupts=["plan"])
    assert first.status == "interrupted" and first.path == ["planner"]
    assert first.pending["kind"] == "plan" and first.pending["plan"]["category"] == "elementwise"
    assert json.loads((first.artifacts / "run.json").read_text())["status"] == "interrupted"
    # the run keeps the settings it was started with: another model or review points only when the change is named
    with pytest.raises(ConfigError, match="started with models.default.name=None; resuming with 'openai/gpt-4o'"):
        generate(model="openai/gpt-4o", config=agent_config, resume=first.run_id)
    with pytest.raises(ConfigError, match=r"started with agent.interrupts=\['plan'\]; resuming with \[\]"):
        generate(config=agent_config, resume=first.run_id, interrupts=[])
    # a new model object, as a new process would have: it continues after the recorded planner call
    second = generate(model=ReplayModel(TRANSCRIPTS / "plan_then_dsl.jsonl"), config=agent_config, toolchain=sim,
                      resume=first.run_id, interrupts=["plan"], answer={"action": "approve"},
                      changes={"tolerance": "mkb"})
    assert second.path == ["planner", "review_plan", "dsl_writer", "lowerer", "verify", "finish"]
    assert second.status == "passed" and second.artifacts == first.artifacts
    # the change is recorded and used by the DSL check and the referee alike
    saved = json.loads((second.artifacts / "config.json").read_text())
    assert saved["config"]["toolchain"]["tolerance"] == "mkb" and saved["config"]["agent"]["interrupts"] == ["plan"]
    assert [(c["key"], c["old"], c["new"]) for c in saved["changes"]] == [("toolchain.tolerance", "auto", "mkb")]
    [resumed] = [e for e in map(json.loads, (second.artifacts / "events.jsonl").read_text().splitlines())
                 if e["node"] == "resume"]
    assert [c["key"] for c in resumed["changes"]] == ["toolchain.tolerance"]
    assert json.loads((second.artifacts / "dsl/v1.check.json").read_text())["summary"].endswith("(tolerance mkb)")
    assert json.loads((second.artifacts / "verdicts/v1.json").read_text())["tolerance"] == "mkb"


def test_run_cut_short_resumes_from_its_checkpoint(agent_config, sim):
    plan = (TRANSCRIPTS / "replies/plan.json").read_text()
    crashing = ScriptedModel([plan, KeyboardInterrupt()])
    with pytest.raises(KeyboardInterrupt):
        generate(TASK, model=crashing, config=agent_config, toolchain=sim, out=agent_config.paths.runs / "cut")
    summary = json.loads((agent_config.paths.runs / "cut/run.json").read_text())
    assert summary["status"] == "interrupted" and summary["path"] == ["planner"]
    resumed = generate(model=ReplayModel(TRANSCRIPTS / "plan_then_dsl.jsonl"), config=agent_config, toolchain=sim,
                       resume="cut")
    assert resumed.path == ["planner", "dsl_writer", "lowerer", "verify", "finish"]
    assert resumed.status == "passed", resumed.reason


def test_a_run_stopped_by_an_error_resumes_telling_the_step_why(agent_config, sim):
    plan = (TRANSCRIPTS / "replies/plan.json").read_text()
    good = (TRANSCRIPTS / "replies/abs_scale_good.md").read_text()
    broken = ScriptedModel([plan, RuntimeError("the writer's reply broke something")])
    with pytest.raises(RuntimeError):
        generate(TASK, model=broken, config=agent_config, toolchain=sim, out=agent_config.paths.runs / "err")
    again = ScriptedModel([good])
    resumed = generate(model=again, config=agent_config, toolchain=sim, resume="err")
    assert resumed.status == "passed", resumed.reason
    [(node, messages)] = again.calls
    assert node == "dsl_writer" and "What to change (resume): The last attempt at this step ended the run" in \
        messages[-1]["content"] and "the writer's reply broke something" in messages[-1]["content"]


def test_a_run_id_an_unfinished_run_elsewhere_holds_is_refused(agent_config, sim):
    from kernelwright.errors import UserError
    plan = (TRANSCRIPTS / "replies/plan.json").read_text()
    with pytest.raises(KeyboardInterrupt):
        generate(TASK, model=ScriptedModel([plan, KeyboardInterrupt()]), config=agent_config, toolchain=sim,
                 out=agent_config.paths.runs / "a" / "run")
    with pytest.raises(UserError, match="belongs to an unfinished run at"):
        generate(TASK, model=ScriptedModel([]), config=agent_config, toolchain=sim, out=agent_config.paths.runs / "b" / "run")
    assert json.loads((agent_config.paths.runs / "a/run/run.json").read_text())["status"] == "interrupted"
