"""planner: read the task (its reference source and the torch.fx trace), retrieve knowledge, and
return a typed `Plan`. Without a model, the builtin writer's recogniser plans, or says plainly which
ops it does not cover."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from kernelwright.agent import dslkit
from kernelwright.agent.ascendc_skeleton import declared
from kernelwright.agent.deps import Deps
from kernelwright.agent.models.base import ModelError
from kernelwright.agent.nodes.common import (ask, feedback_for, format_failed, model_failed, progress, reflection,
                                             usage_update)
from kernelwright.agent.nodes.retrieval import retrieve, warm
from kernelwright.agent.prompting import chip_facts, families, render
from kernelwright.agent.replies import FormatError, json_object
from kernelwright.agent.state import Halt, Plan, RunState
from kernelwright.agent.trajectory import Artifacts
from kernelwright.tools.task import Task


def reference_source(task: Task) -> str:
    parts = [Path(task.source).read_text(encoding="utf-8", errors="replace")]
    if task.inputs_source and task.inputs_source != task.source:
        parts.append(Path(task.inputs_source).read_text(encoding="utf-8", errors="replace"))
    return "\n\n".join(parts)


def planner(state: RunState, deps: Deps) -> dict[str, Any]:
    task = state["task"]
    art = Artifacts(state["artifacts"])
    update: dict[str, Any] = {}
    trace = state.get("trace")
    if trace is None:
        if deps.model("planner") is not None:
            warm(deps)                 # the knowledge base opens while the reference is traced
        progress("planner", "tracing the reference with torch.fx")
        from kernelwright.agent.builtin.trace import trace_task
        trace = trace_task(task)
        art.write_json("trace.json", trace)
        update["trace"] = trace
    version = state.get("attempts", {}).get("planner", 0) + 1
    if deps.model("planner") is None:
        from kernelwright.agent.builtin import builtin_plan
        plan, unsupported = builtin_plan(trace)
        if plan is None:
            art.event("planner", outcome="unsupported", reason=unsupported)
            return update | {"halt": Halt(status="failed", reason=unsupported)}
    else:
        ops = " ".join(trace.get("ops", [])) if trace else ""
        previous = state["plan"].model_dump() if state.get("plan") else None
        messages = render("planner", task=task, source=reference_source(task), trace=trace, chip=chip_facts(
            deps.config.toolchain.soc), families=families(), passages=retrieve(deps, f"{task.name} {ops}"),
                          feedback=feedback_for(state, "planner"), previous=previous, schema=Plan.model_json_schema(),
                          offered=dslkit.offered(deps.config.toolchain.soc),
                          binding=declared(trace or {}, fields=False))
        try:
            reply = ask(deps, "planner", messages + reflection(state, "planner"), schema=Plan)
        except ModelError as e:
            return update | model_failed("planner", e)
        try:
            plan = json_object(reply.content, Plan)
        except FormatError as e:
            art.event("planner", outcome="format_error", problem=str(e))
            return update | format_failed(state, deps, "planner", reply, str(e), "one JSON object (the plan)")
        update["usage"] = usage_update(reply)
    art.write_json(f"plan.v{version}.json", plan.model_dump())
    art.event("planner", outcome="plan", version=version, category=plan.category)
    return update | {"plan": plan}
