"""debugger: read the failure (verdict stage, diagnostics, mismatch summary), look up the API cards
and past fixes it names, decide where the fault lives (plan, DSL or AscendC) and send the fix to
that node — as instructions, or as ready code the node applies without asking its own model."""
from __future__ import annotations

from typing import Any

from kernelwright.agent.deps import Deps
from kernelwright.agent.models.base import ModelError
from kernelwright.agent.nodes.common import ask, format_failed, model_failed, reflection, usage_update
from kernelwright.agent.nodes.retrieval import failure_cards
from kernelwright.agent.prompting import render
from kernelwright.agent.replies import FormatError, code_blocks, json_object
from kernelwright.agent.state import Decision, Feedback, Halt, RunState
from kernelwright.agent.trajectory import Artifacts
from kernelwright.agent.triage import suggest

OWNER = {"plan": "planner", "dsl": "dsl_writer", "ascendc": "lowerer"}
DIRECT_OWNER = {"plan": "planner", "dsl": "ascendc_writer", "ascendc": "ascendc_writer"}   # no DSL on this route


def ready_code(reply: str, fault: str) -> str | None:
    """A fix the debugger wrote out: a whole DSL program (python block) or AscendC (cpp block, or
    SEARCH/REPLACE edits)."""
    want = ("python", "py", "dsl") if fault == "dsl" else ("cpp", "c++", "cc", "c", "diff", "")
    blocks = [body for lang, body in code_blocks(reply) if lang in want and not body.lstrip().startswith("{")]
    return blocks[-1] if blocks and fault != "plan" else None


def numbered(text: str | None) -> str:
    return "\n".join(f"{i:4d} | {line}" for i, line in enumerate((text or "").splitlines(), 1))


def debugger(state: RunState, deps: Deps) -> dict[str, Any]:
    art = Artifacts(state["artifacts"])
    f = state["failure"]
    fault, why = suggest(state)
    if deps.model("debugger") is None:
        reason = (f"the {f.subject} failed (stage {f.stage}): {f.summary}; repairing it needs a model "
                  "(--model NAME); the builtin writer cannot repair")
        art.event("debugger", outcome="no_model", fault=fault, why=why)
        return {"halt": Halt(status="failed", reason=reason)}
    project = state.get("project")
    plan = state.get("plan")
    route = plan.route if plan is not None else "dsl"
    messages = render("debugger", failure=f, route=route, suggestion={"fault": fault, "why": why}, plan=plan,
                      dsl=numbered(state.get("dsl")), holes=state.get("holes") or [],
                      files=project.files if project and f.subject in ("kernel", "patch", "requirement") else {},
                      passages=failure_cards(deps, f),
                      schema=Decision.model_json_schema())
    try:
        reply = ask(deps, "debugger", messages + reflection(state, "debugger"), schema=Decision)
    except ModelError as e:
        return model_failed("debugger", e)
    try:
        decision = json_object(reply.content, Decision)
    except FormatError as e:
        art.event("debugger", outcome="format_error", problem=str(e))
        return format_failed(state, deps, "debugger", reply, str(e), "one JSON object (the decision), then "
                                                                     "optionally the fixed code in a fenced block")
    hole = decision.hole
    holes = state.get("holes") or []
    if decision.fault == "ascendc" and hole is None and len(holes) == 1:
        hole = holes[0].name
    owner = (DIRECT_OWNER if route == "ascendc" else OWNER)[decision.fault]
    fb = Feedback(to=owner, source="debugger", text=f"{decision.explanation}\n{decision.instructions}",
                  code=ready_code(reply.content, decision.fault), hole=hole)
    art.event("debugger", outcome="decision", fault=decision.fault, suggested=fault, hole=hole,
              ready_code=fb.code is not None, explanation=decision.explanation[:500])
    return {"feedback": fb, "usage": usage_update(reply)}
