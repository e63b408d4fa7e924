"""The graph's typed state, and the structured records nodes exchange (plan, DSL check, debugger
decision). State values are plain JSON (dicts, lists, strings) so the SQLite checkpoint holds them
as they are; the pydantic records below are what nodes build them from and read them back as."""
from __future__ import annotations

import operator
from typing import Annotated, Any, Literal, TypedDict

from pydantic import BaseModel, Field

ExitStatus = Literal["passed", "failed", "budget_exhausted", "environment_error", "interrupted"]
Fault = Literal["plan", "dsl", "ascendc"]


def add_counts(a: dict[str, int] | None, b: dict[str, int] | None) -> dict[str, int]:
    out = dict(a or {})
    for k, v in (b or {}).items():
        out[k] = out.get(k, 0) + v
    return out


def add_usage(a: dict[str, float] | None, b: dict[str, float] | None) -> dict[str, float]:
    out = dict(a or {})
    for k, v in (b or {}).items():
        out[k] = out.get(k, 0) + v
    return out


class RunState(TypedDict, total=False):
    # what the run is about
    task: dict[str, Any]               # Task.model_dump()
    run_id: str
    artifacts: str                     # the run's artifact directory
    # products, newest version
    trace: dict[str, Any] | None       # the traced reference (agent.builtin.trace)
    plan: dict[str, Any] | None        # Plan
    dsl: str | None
    dsl_version: int
    dsl_check: dict[str, Any] | None   # DslCheck
    project: dict[str, Any] | None     # KernelProject.model_dump()
    project_version: int
    holes: list[dict[str, Any]]        # the project's holes (tools.dsl.holes.Hole) + brief, fill, attempts
    lowered_from: int                  # the DSL version the project was lowered from
    lowering_error: str | None         # the generator rejected a checked program
    verdict: dict[str, Any] | None     # VerdictBrief of the last verify
    verdicts: Annotated[list[dict[str, Any]], operator.add]
    # control
    feedback: dict[str, Any] | None    # Feedback for the node that owns the fault
    format_error: dict[str, Any] | None  # the last unusable reply: {"node", "reply", "problem", "count"}
    review: dict[str, Any] | None      # the last human review answer
    halt: dict[str, Any] | None        # a node asks to stop: {"status": ExitStatus, "reason": str}
    attempts: Annotated[dict[str, int], add_counts]
    usage: Annotated[dict[str, float], add_usage]   # prompt/completion tokens, cost_usd, calls, seconds
    path: Annotated[list[str], operator.add]
    status: ExitStatus | None
    reason: str | None


class Plan(BaseModel):
    """The planner's structured output."""

    category: str = Field(description="operator family: one of the example folders (elementwise, reduction, norm, "
                                      "softmax, loss, optimizer, scan, pooling, ...) or 'other'")
    math: str = Field(description="what the kernel computes, as formulas over the inputs")
    dtype_strategy: str = Field(description="compute dtype; fp16/bf16 math accumulates in fp32")
    core_split: str = Field(description="how work is split across vector cores")
    tiling: str = Field(description="UB budget: buffers, tile sizes, double buffering")
    tail_handling: str = Field(description="how ragged ends (not 32-byte multiples) are handled")
    pitfalls: list[str] = Field(default_factory=list, description="known traps for this operator")


class DslCheck(BaseModel):
    """The DSL program checked at once: parsed, held to the static rules, interpreted on the task's
    inputs and compared with the reference."""

    ok: bool
    stage: Literal["parse", "rules", "interpret", "compare", "pass", "error"]
    summary: str
    diagnostics: list[str] = Field(default_factory=list)   # rendered: rule, DSL line, values, hint
    seconds: float = 0.0


class VerdictBrief(BaseModel):
    """What the graph keeps of a verdict (the whole one is saved in the artifact directory)."""

    version: int
    project_version: int = 0           # the project it judged
    status: Literal["pass", "fail", "error"]
    stage: str                         # the first stage that did not pass (or "pass")
    summary: str
    details: list[str] = Field(default_factory=list)   # diagnostics and mismatches, rendered
    file: str = ""


class Decision(BaseModel):
    """The debugger's structured reply."""

    fault: Fault = Field(description="where the fault lives: 'plan' (wrong approach or math), 'dsl' (the DSL "
                                     "program), 'ascendc' (the AscendC written into a lowering hole)")
    explanation: str = Field(description="what went wrong, citing the diagnostic")
    instructions: str = Field(description="what the owning node must change")
    hole: str | None = Field(default=None, description="for 'ascendc': the hole to rewrite")


class Feedback(BaseModel):
    """Sent to the node that owns a fault: by the debugger, a DSL check, or a human reviewer."""

    to: Literal["planner", "dsl_writer", "lowerer"]
    source: Literal["debugger", "check", "review"]
    text: str
    code: str | None = None            # a ready fix (whole DSL program, or a hole's AscendC)
    hole: str | None = None
