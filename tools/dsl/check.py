"""`check`: a DSL program's static rules, then (with a task) the referee's verdict on the program run by
the interpreter (`InterpToolchain`): the same cases, shrinking, binding, tolerance preset and per-task
checks as the kernel it lowers to will get, so the two cannot disagree on what "right" means. The
report keeps what a DSL writer needs: DSL-line findings with rule ids and hints, and each case's
status and mismatches."""
from __future__ import annotations

from typing import Any, Callable

from pydantic import BaseModel, Field

from kernelwright.tools.dsl import ir, rules
from kernelwright.tools.dsl.errors import DslDiagnostic
from kernelwright.tools.dsl.toolchain import InterpToolchain, dsl_diagnostic, dsl_project
from kernelwright.tools.hardware import SocProfile
from kernelwright.tools.referee.verdict import Verdict
from kernelwright.tools.referee.verify import task_cases, verify
from kernelwright.tools.task import TaskCase
from kernelwright.tools.toolchain import Toolchain


class CaseReport(BaseModel):
    case: str
    status: str                                  # pass | fail | error | skipped
    shapes: list[list[int]] = Field(default_factory=list)
    block_dim: int = 0
    diagnostics: list[DslDiagnostic] = Field(default_factory=list)
    mismatches: list[str] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)


class CheckReport(BaseModel):
    program: str
    ok: bool = True
    diagnostics: list[DslDiagnostic] = Field(default_factory=list)
    cases: list[CaseReport] = Field(default_factory=list)
    tolerance: str = "default"
    summary: str = ""                            # the verdict's, when a task was checked
    verdict: Any = Field(default=None, exclude=True)

    def errors(self) -> list[DslDiagnostic]:
        found = [d for d in self.diagnostics if d.severity == "error"]
        return found + [d for c in self.cases for d in c.diagnostics if d.severity == "error"]

    def render(self, source: str | None = None) -> str:
        lines = [d.render(source) for d in self.diagnostics]
        for c in self.cases:
            lines.append(f"case {c.case}: {c.status}" + (f" (block_dim {c.block_dim})" if c.block_dim else ""))
            lines += ["  " + d.render(source).replace("\n", "\n  ") for d in c.diagnostics]
            lines += [f"  {m}" for m in c.mismatches]
        if self.summary and not self.ok:
            lines.append(self.summary)
        lines.append(f"{'ok' if self.ok else 'FAILED'}: {len(self.errors())} error(s), "
                     f"{sum(c.status == 'pass' for c in self.cases)}/{len(self.cases)} case(s) match the reference")
        return "\n".join(lines)


def check_static(program: ir.Program) -> CheckReport:
    report = CheckReport(program=program.filename, diagnostics=rules.check(program))
    report.ok = not report.errors()
    return report


def check(program: ir.Program, task=None, *, tolerance: str = "default", soc: SocProfile | str | None = None,
          seed: int = 0, worker=None, budget: int | None = None, externs: dict[str, Callable] | None = None,
          cases: list[str] | None = None, toolchain: Toolchain | None = None) -> CheckReport:
    """Static rules; with a task, `verify(task, dsl_project(program), InterpToolchain(...))`: one trial per
    case (the kernel's verdict adds trials and a recheck with fresh inputs). `toolchain` replaces the
    interpreter (e.g. one that records its runs)."""
    if task is None:
        return check_static(program)
    interp = toolchain or InterpToolchain(soc, externs=externs)
    verdict = verify(task, dsl_project(program), interp, tolerance=tolerance, trials=1, seed=seed, budget=budget,
                     worker=worker, api_lint=False, cases=cases, recheck=False)
    return report_of(program, verdict)


def report_of(program: ir.Program, v: Verdict) -> CheckReport:
    """The verdict, told in the DSL's terms."""
    report = CheckReport(program=program.filename, ok=v.ok, tolerance=v.tolerance, summary=v.summary, verdict=v,
                         diagnostics=[dsl_diagnostic(d) for d in v.stage("build").diagnostics])
    for r in v.runs:
        notes = r.notes + ([r.reason] if r.status in ("skipped", "error") and r.reason else [])
        report.cases.append(CaseReport(case=r.case, status=r.status, shapes=r.run_shapes, block_dim=r.block_dim,
                                       diagnostics=[dsl_diagnostic(d, r.case) for d in r.diagnostics],
                                       mismatches=[m.render() for m in r.mismatches], notes=notes))
    ran = {r.case for r in v.runs}
    report.cases += [CaseReport(case=c, status="skipped", notes=[why]) for c, why in v.skipped_cases.items()
                     if c not in ran]
    return report


def expand_dtypes(task, worker, dtypes: list[str] | None) -> None:
    """Give a task one case per input group and dtype (the loaders cannot expand input groups that
    have no JSON sidecar before a worker has counted them)."""
    base = task_cases(task, worker)
    base = [] if not isinstance(base, list) else base
    if not dtypes:
        task.cases = base
        return
    task.cases = [TaskCase(id=f"{c.id} {d}", index=c.index, params=c.params, shapes=c.shapes,
                           dtype=None if d == "float32" else d) for d in dtypes for c in base if c.dtype is None] or \
        [c for c in base]
