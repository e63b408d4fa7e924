"""The referee's typed verdict: staged (lint -> build -> run -> compare -> measure), per case and
trial, with mismatch summaries written for whoever has to fix the kernel."""
from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from kernelwright.tools.toolchain import Diagnostic

StageName = Literal["lint", "build", "run", "compare", "measure"]
Status = Literal["pass", "fail", "skipped", "error"]
MismatchRule = Literal["missing_output", "shape", "dtype", "nan_position", "inf_position", "tolerance",
                       "all_zero", "constant", "input_mutated", "extra_output", "invalid_value", "unwritten",
                       "binding", "model_new", "task_shapes_only"]


class Mismatch(BaseModel):
    """One broken rule on one output (or input, for mutation)."""

    rule: MismatchRule
    output: str                       # "y", "output 0 (y)", "input x"
    message: str
    max_abs: float | None = None
    max_rel: float | None = None
    count: int = 0                    # elements that break the rule
    total: int = 0
    first_index: list[int] | None = None
    expected: Any = None              # reference value at first_index
    got: Any = None                   # kernel value at first_index
    hints: list[str] = Field(default_factory=list)

    @property
    def ratio(self) -> float:
        return self.count / self.total if self.total else 0.0

    def render(self) -> str:
        text = f"{self.output}: [{self.rule}] {self.message}"
        if self.count and self.total:
            text += f"; {self.count}/{self.total} elements ({100 * self.ratio:.3g}%)"
        if self.max_abs is not None:
            text += f"; max abs err {self.max_abs:.3g}, max rel err {self.max_rel:.3g}"
        if self.first_index is not None:
            text += f"; first at {tuple(self.first_index)}: expected {self.expected!r}, got {self.got!r}"
        for h in self.hints:
            text += f"\n    hint: {h}"
        return text


class CaseRun(BaseModel):
    """One trial of one case: what ran (original -> run shapes), and how it went."""

    case: str
    trial: int
    seed: int
    label: str = ""                   # "trial", "recheck" (fresh inputs after the others)
    original_shapes: list[list[int]] = Field(default_factory=list)
    run_shapes: list[list[int]] = Field(default_factory=list)
    shrunk: bool = False
    status: Status = "pass"
    reason: str = ""
    run_status: str | None = None     # the toolchain's RunResult.status
    mismatches: list[Mismatch] = Field(default_factory=list)
    diagnostics: list[Diagnostic] = Field(default_factory=list)   # the run's findings (errors first)
    notes: list[str] = Field(default_factory=list)
    block_dim: int = 0
    seconds: float = 0.0
    sampled_blocks: list[int] = Field(default_factory=list)   # judged at full shapes on these blocks only (sampled.py)
    # per reference output of this trial: its one value when every element is the same (NaN as "nan"),
    # None when it varies; and its size (see judgeable.py: a reference that never varies judges nothing)
    reference_constants: list[str | None] = Field(default_factory=list)
    reference_sizes: list[int] = Field(default_factory=list)


class StageReport(BaseModel):
    name: StageName
    status: Status = "skipped"
    summary: str = ""
    diagnostics: list[Diagnostic] = Field(default_factory=list)
    findings: list[str] = Field(default_factory=list)   # anti-cheat and mapping findings, one line each
    metrics: dict[str, Any] = Field(default_factory=dict)
    seconds: float = 0.0


class Verdict(BaseModel):
    task: str
    op_type: str
    project: str
    backend: str
    soc: str | None = None
    tolerance: str
    tolerance_rule: str = ""
    seed: int = 0
    trials: int = 1
    status: Status = "error"          # pass | fail | error (could not judge: bad input, environment, unsupported)
    summary: str = ""
    stages: list[StageReport] = Field(default_factory=list)
    runs: list[CaseRun] = Field(default_factory=list)
    skipped_cases: dict[str, str] = Field(default_factory=dict)   # case -> why it did not run
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.status == "pass"

    def stage(self, name: StageName) -> StageReport:
        for s in self.stages:
            if s.name == name:
                return s
        report = StageReport(name=name)
        self.stages.append(report)
        return report

    def failures(self) -> list[CaseRun]:
        return [r for r in self.runs if r.status == "fail"]

    def first_mismatch(self) -> Mismatch | None:
        return next((m for r in self.runs for m in r.mismatches), None)
