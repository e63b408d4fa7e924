"""dsl_writer: the writer (a model, or the builtin one) writes the DSL program for the plan, and the
program is checked at once — parsed, held to the static rules, interpreted on the task's inputs and
compared with the reference — before any C++ exists. A ready program sent by the debugger or a
reviewer is checked the same way, without asking the writer."""
from __future__ import annotations

from typing import Any

from kernelwright.agent import dslkit
from kernelwright.agent.deps import Deps
from kernelwright.agent.models.base import ModelError
from kernelwright.agent.nodes.common import feedback_for, format_failed, model_failed, progress, reflection, usage_update
from kernelwright.agent.nodes.planner import reference_source
from kernelwright.agent.nodes.retrieval import plan_cards
from kernelwright.agent.state import Failure, Halt, RunState
from kernelwright.agent.trajectory import Artifacts
from kernelwright.agent.writers import WriteRequest


def dsl_writer(state: RunState, deps: Deps) -> dict[str, Any]:
    task = state["task"]
    art = Artifacts(state["artifacts"])
    feedback = feedback_for(state, "dsl_writer")
    update: dict[str, Any] = {}
    if feedback is not None and feedback.code:
        dsl = feedback.code
    else:
        req = WriteRequest(task=task, source=reference_source(task), plan=state.get("plan"), trace=state.get("trace"),
                           soc=deps.config.toolchain.soc, previous=state.get("dsl"), check=state.get("dsl_check"),
                           verdict=state.get("verdict"), feedback=feedback, reflection=reflection(state, "dsl_writer"),
                           passages=plan_cards(deps, state.get("plan")) if deps.model("dsl_writer") else [])
        progress("dsl_writer", f"writing the DSL program ({deps.writer.name})")
        try:
            result = deps.writer.write(req)
        except ModelError as e:
            return model_failed("dsl_writer", e)
        if result.unsupported:
            art.event("dsl_writer", outcome="unsupported", reason=result.unsupported)
            return {"halt": Halt(status="failed", reason=result.unsupported)}
        if result.problem:
            art.event("dsl_writer", outcome="format_error", problem=result.problem)
            return format_failed(state, deps, "dsl_writer", result.reply, result.problem,
                                 "the whole DSL program in one ```python block")
        dsl = result.dsl
        update["usage"] = usage_update(result.reply)
    version = state.get("dsl_version", 0) + 1
    art.write(f"dsl/v{version}.dsl.py", dsl)
    progress("dsl_writer", f"checking DSL v{version}")
    tc = deps.config.toolchain
    check = dslkit.check(dsl, task, deps.worker(task), soc=tc.soc, tolerance=tc.tolerance)
    art.write_json(f"dsl/v{version}.check.json", check.model_dump())
    art.event("dsl_writer", outcome="check", version=version, ok=check.ok, stage=check.stage, summary=check.summary)
    if check.stage == "error":                # the reference itself could not run: nothing to judge against
        update["halt"] = Halt(status="environment_error", reason=f"the DSL check could not judge: {check.summary}")
    elif not check.ok:
        update["failure"] = Failure(subject="dsl", stage=check.stage, summary=check.summary, details=check.diagnostics)
    # a new program voids the last verdict (it judged a kernel lowered from an older one)
    return update | {"dsl": dsl, "dsl_version": version, "dsl_check": check, "verdict": None}
