"""Human review points (switchable): after planning, after the DSL check, before accepting a passing
kernel. Each pauses the graph with `interrupt(payload)`; the run is resumed with
`Command(resume=answer)`, where answer is one of
    {"action": "approve"}
    {"action": "edit", "plan": {...}}  /  {"action": "edit", "dsl": "..."}   (an edited DSL is re-checked)
    {"action": "reject", "feedback": "what to change"}
Only this small node re-runs on resume, so no model call is repeated."""
from __future__ import annotations

from typing import Any

from kernelwright.agent.deps import Deps
from kernelwright.agent.state import Feedback, Plan, RunState
from kernelwright.agent.trajectory import Artifacts

QUESTIONS = {"plan": "Approve the plan, edit it, or reject it with feedback?",
             "dsl": "The DSL program passed its check. Approve, edit it, or reject it with feedback?",
             "accept": "The kernel passed the referee. Accept it, or reject it with feedback?"}
OWNER = {"plan": "planner", "dsl": "dsl_writer", "accept": "dsl_writer"}


def _plain(record: Any) -> Any:
    return record.model_dump() if record is not None else None


def payload(kind: str, state: RunState) -> dict[str, Any]:
    """What the reviewer is shown, as plain JSON (front ends store and print it)."""
    out: dict[str, Any] = {"kind": kind, "question": QUESTIONS[kind], "plan": _plain(state.get("plan"))}
    if kind in ("dsl", "accept"):
        out |= {"dsl": state.get("dsl"), "check": _plain(state.get("dsl_check"))}
    if kind == "accept":
        out |= {"verdict": _plain(state.get("verdict")), "project_version": state.get("project_version")}
    return out


def make_review(kind: str):
    def review(state: RunState, deps: Deps) -> dict[str, Any]:
        from langgraph.types import interrupt
        answer = interrupt(payload(kind, state)) or {"action": "approve"}
        action = answer.get("action", "approve")
        Artifacts(state["artifacts"]).event(f"review_{kind}", action=action)
        update: dict[str, Any] = {"review": {"kind": kind, **answer}}
        if action == "edit" and kind == "plan" and answer.get("plan"):
            update["plan"] = Plan.model_validate(answer["plan"])
        elif action == "edit" and answer.get("dsl"):
            update["feedback"] = Feedback(to="dsl_writer", source="review", text="edited by the reviewer",
                                          code=answer["dsl"])
        elif action == "reject":
            update["feedback"] = Feedback(to=OWNER[kind], source="review",
                                          text=answer.get("feedback") or "rejected by the reviewer")
        elif action != "approve" and action != "edit":
            raise ValueError(f"review answer {answer!r}: action must be approve, edit or reject")
        return update
    review.__name__ = f"review_{kind}"
    return review


def route(kind: str, state: RunState) -> str:
    """Where a review sends the run: on by default, back to the owner after a reject or a DSL edit."""
    r = state.get("review") or {}
    if r.get("action") == "reject" or (r.get("action") == "edit" and r.get("dsl")):
        return OWNER[kind]
    return {"plan": "dsl_writer", "dsl": "lowerer", "accept": "finish"}[kind]
