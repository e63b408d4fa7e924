"""The graph's typed state, and the records nodes exchange. Products (task, plan, DSL check, project,
holes, verdicts) and control records (the failure, feedback, an unusable reply, a halt) are pydantic
models; the SQLite checkpointer stores and revives them (agent.checkpoints)."""
from __future__ import annotations

import operator
from typing import Annotated, Any, Literal, TypedDict

from pydantic import BaseModel, Field

from kernelwright.agent.config import RunSettings
from kernelwright.agent.dslkit import DslCheck, HoleWork
from kernelwright.tools.project import KernelProject
from kernelwright.tools.task import Task

ExitStatus = Literal["passed", "failed", "budget_exhausted", "environment_error", "interrupted"]
Fault = Literal["plan", "dsl", "ascendc"]
Route = Literal["dsl", "ascendc"]


def tally(a: dict[str, float] | None, b: dict[str, float] | None) -> dict[str, float]:
    """Reducer of the counters (node runs, tokens, cost, seconds): add key by key."""
    out = dict(a or {})
    for k, v in (b or {}).items():
        out[k] = out.get(k, 0) + v
    return out


class Plan(BaseModel):
    """The planner's structured output."""

    category: str = Field(description="operator family: one of the families the prompt lists (the DSL example "
                                      "folders: elementwise, reduce, norm, softmax, matmul, index, ...) or 'other'")
    math: str = Field(description="what the kernel computes, as formulas over the inputs")
    dtype_strategy: str = Field(description="compute dtype; fp16/bf16 math accumulates in fp32")
    core_split: str = Field(description="how work is split across vector cores")
    tiling: str = Field(description="UB budget: buffers, tile sizes, double buffering")
    tail_handling: str = Field(description="how ragged ends (not 32-byte multiples) are handled")
    pitfalls: list[str] = Field(default_factory=list, description="known traps for this operator")
    route: Route = Field("dsl", description="'dsl' (write the DSL program; the generator lowers it) or 'ascendc' "
                                            "(write the AscendC kernel directly, for an op the DSL cannot express)")
    route_reason: str = Field("", description="why this route: for 'ascendc', what the DSL lacks for this op")
    cube: bool = Field(False, description="true when the kernel must run its matrix products on the cube unit "
                                          "(checked: a passing kernel with no cube instruction is sent back)")


class VerdictBrief(BaseModel):
    """What the graph keeps of a verdict (the whole one is saved in the artifact directory)."""

    version: int
    project_version: int = 0           # the project it judged
    status: Literal["pass", "fail", "error"]
    stage: str                         # the first stage that did not pass (or "pass")
    summary: str
    details: list[str] = Field(default_factory=list)   # diagnostics and mismatches, rendered
    notes: list[str] = Field(default_factory=list)     # work counters, efficiency flags, lengths never run
    file: str = ""


class Failure(BaseModel):
    """The newest thing that failed: routing and the debugger read it. `subject` says what failed:
    the DSL program (its check), the lowering (the generator refused a checked program), a patch (the
    debugger's AscendC edits did not apply), the kernel (the referee's verdict), or a plan requirement a
    passing kernel does not honour (the work counters show it)."""

    subject: Literal["dsl", "lowering", "patch", "kernel", "requirement"]
    stage: str
    summary: str
    details: list[str] = Field(default_factory=list)


class Decision(BaseModel):
    """The debugger's structured reply."""

    fault: Fault = Field(description="where the fault lives: 'plan' (wrong approach or math), 'dsl' (the DSL "
                                     "program), 'ascendc' (the AscendC written into a lowering hole)")
    explanation: str = Field(description="what went wrong, citing the diagnostic")
    instructions: str = Field(description="what the owning node must change")
    hole: str | None = Field(default=None, description="for 'ascendc': the hole to rewrite")


class Feedback(BaseModel):
    """Sent to the node that owns a fault: by the debugger, a DSL check, a human reviewer, or a resume (the
    step that ended the run last time, told why)."""

    to: Literal["planner", "dsl_writer", "lowerer", "ascendc_writer"]
    source: Literal["debugger", "check", "review", "resume"]
    text: str
    code: str | None = None            # a ready fix (whole DSL program, or a hole's AscendC)
    hole: str | None = None


class Unusable(BaseModel):
    """A node's last reply that could not be used; the node runs again with it shown."""

    node: str
    reply: str
    problem: str
    expected: str
    count: int                         # unusable replies in a row


class Halt(BaseModel):
    """A node asks to stop the run."""

    status: ExitStatus
    reason: str


class RunState(TypedDict, total=False):
    # what the run is about
    task: Task
    run_id: str
    artifacts: str                     # the run's artifact directory
    settings: RunSettings              # what the run was started with (resume uses it)
    # products, newest version
    trace: dict[str, Any] | None       # the traced reference (agent.builtin.trace)
    plan: Plan | None
    dsl: str | None
    dsl_version: int
    dsl_check: DslCheck | None
    project: KernelProject | None
    project_version: int
    holes: list[HoleWork]
    lowered_from: int                  # the DSL version the project was lowered from
    verdict: VerdictBrief | None       # of the last verify (a new program voids it)
    verdicts: Annotated[list[VerdictBrief], operator.add]
    perf: dict[str, Any] | None        # the performance phase: speed before and after, candidates (agent.perf)
    # one attempt's outcome: the node wrapper clears these before each node runs (PER_ATTEMPT)
    failure: Failure | None
    feedback: Feedback | None          # for the node that owns the fault
    format_error: Unusable | None
    review: dict[str, Any] | None      # the last human review answer
    halt: Halt | None
    # counters and the end
    attempts: Annotated[dict[str, int], tally]
    usage: Annotated[dict[str, float], tally]   # prompt/completion tokens, cost_usd, calls, seconds
    path: Annotated[list[str], operator.add]
    status: ExitStatus | None
    reason: str | None


PER_ATTEMPT = ("failure", "feedback", "format_error", "review")


def initial_state(task: Task, run_id: str, artifacts: str, settings: RunSettings | None = None) -> RunState:
    state: RunState = {"task": task, "run_id": run_id, "artifacts": artifacts, "dsl_version": 0,
                       "project_version": 0, "attempts": {}, "usage": {}, "path": [], "verdicts": []}
    return state | ({"settings": settings} if settings else {})
