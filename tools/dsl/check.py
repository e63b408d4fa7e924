"""`check`: a DSL program's static rules, then (with a task) the interpreter on every shape case of
the task, compared with the PyTorch reference exactly as the referee compares a kernel's outputs
(same binding of task values to inputs and attributes, same tolerance presets)."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from kernelwright.tools.dsl import ir, rules
from kernelwright.tools.dsl.errors import DslDiagnostic
from kernelwright.tools.dsl.interp.run import InterpResult, interpret
from kernelwright.tools.dsl.lower import op_spec
from kernelwright.tools.hardware import SocProfile, load_soc

DEFAULT_BUDGET = 1 << 18


class CaseReport(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    case: str
    status: str                                  # pass | fail | error | skipped
    shapes: list[list[int]] = Field(default_factory=list)
    block_dim: int = 0
    ub_bytes: int = 0
    diagnostics: list[DslDiagnostic] = Field(default_factory=list)
    mismatches: list[str] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    result: Any = Field(default=None, exclude=True)       # InterpResult
    inputs: Any = Field(default=None, exclude=True)       # the bound case (inputs, attrs)
    expected: Any = Field(default=None, exclude=True)     # reference outputs, by kernel output name


class CheckReport(BaseModel):
    program: str
    ok: bool = True
    diagnostics: list[DslDiagnostic] = Field(default_factory=list)
    cases: list[CaseReport] = Field(default_factory=list)
    tolerance: str = "default"

    def errors(self) -> list[DslDiagnostic]:
        found = [d for d in self.diagnostics if d.severity == "error"]
        return found + [d for c in self.cases for d in c.diagnostics if d.severity == "error"]

    def render(self, source: str | None = None) -> str:
        lines = [d.render(source) for d in self.diagnostics]
        for c in self.cases:
            head = f"case {c.case}: {c.status}" + (f" (block_dim {c.block_dim}, UB {c.ub_bytes} B)" if c.block_dim else "")
            lines.append(head)
            lines += ["  " + d.render(source).replace("\n", "\n  ") for d in c.diagnostics]
            lines += [f"  {m}" for m in c.mismatches]
        lines.append(f"{'ok' if self.ok else 'FAILED'}: {len(self.errors())} error(s), "
                     f"{sum(c.status == 'pass' for c in self.cases)}/{len(self.cases)} case(s) match the reference")
        return "\n".join(lines)


def check_static(program: ir.Program) -> CheckReport:
    report = CheckReport(program=program.filename, diagnostics=rules.check(program))
    report.ok = not report.errors()
    return report


def check(program: ir.Program, task=None, *, tolerance: str = "default", soc: SocProfile | None = None,
          seed: int = 0, worker=None, budget: int = DEFAULT_BUDGET, externs: dict[str, Callable] | None = None,
          cases: list[str] | None = None) -> CheckReport:
    report = check_static(program)
    report.tolerance = tolerance
    if task is None or not report.ok:
        return report
    from kernelwright.tools.tasks.reference import ReferenceWorker
    soc = soc or load_soc(None)
    own = worker is None
    worker = worker or ReferenceWorker(task)
    try:
        for case in _task_cases(task, worker):
            if cases is None or case.id in cases:
                report.cases.append(check_case(program, case, worker, tolerance, soc, seed, budget, externs))
    finally:
        if own:
            worker.close()
    report.ok = not report.errors() and all(c.status == "pass" for c in report.cases)
    return report


def _task_cases(task, worker) -> list:
    from kernelwright.tools.task import TaskCase
    from kernelwright.tools.tasks.reference import RefFailure
    if task.cases or task.input_kind != "input_groups":
        return task.cases
    n = worker.count_groups()
    return [] if isinstance(n, RefFailure) else [TaskCase(id=f"group {i}", index=i) for i in range(n)]


def expand_dtypes(task, worker, dtypes: list[str] | None) -> None:
    """Give a task one case per input group and dtype (the loaders cannot expand input groups that
    have no JSON sidecar before a worker has counted them)."""
    from kernelwright.tools.task import TaskCase
    base = _task_cases(task, worker)
    if not dtypes:
        task.cases = base
        return
    task.cases = [TaskCase(id=f"{c.id} {d}", index=c.index, params=c.params, shapes=c.shapes,
                           dtype=None if d == "float32" else d) for d in dtypes for c in base if c.dtype is None] or \
        [c for c in base]


def shrink_mapping(worker, case, soc: SocProfile, budget: int) -> dict[int, int]:
    """The referee's shape shrinking for the emulation, so the interpreter runs the shapes the sim runs."""
    from kernelwright.tools.tasks.reference import RefFailure
    from kernelwright.tools.tasks.shrink import Shape, plan_shrink
    shapes = worker.describe(case)
    if isinstance(shapes, RefFailure):
        return {}
    tensors = [Shape(dims=list(t.shape or []), dtype=t.dtype or "float32")
               for v in shapes.args + shapes.init + shapes.params for t in v.tensors()]
    plan = plan_shrink(tensors, budget=budget, cores=soc.vector_cores, ub_bytes=soc.ub_bytes)
    return plan.mapping if plan.fits else {}


def check_case(program: ir.Program, case, worker, tolerance: str, soc: SocProfile, seed: int, budget: int,
               externs) -> CaseReport:
    from kernelwright.tools.tasks.reference import RefFailure
    names = worker.params()
    if isinstance(names, RefFailure):
        return CaseReport(case=case.id, status="error", notes=[names.render()])
    ref = worker.run(case, seed, shrink_mapping(worker, case, soc, budget))
    if isinstance(ref, RefFailure):
        return CaseReport(case=case.id, status="error", notes=[ref.render()])
    return check_reference_run(program, case.id, ref, names, tolerance, soc, externs)


def check_reference_run(program: ir.Program, label: str, ref, names: dict, tolerance: str, soc: SocProfile,
                        externs=None) -> CaseReport:
    """Bind one reference run's values to the program (as the referee binds them to a kernel),
    interpret, and compare every output and every input with the reference."""
    from kernelwright.tools.referee.bind_msopgen import bind_msopgen
    from kernelwright.tools.referee.binding import expected_outputs, match_outputs, task_values
    from kernelwright.tools.referee.compare import compare_output, compare_unchanged
    from kernelwright.tools.referee.tolerance import get_tolerance
    rep = CaseReport(case=label, status="error")
    expected = expected_outputs(ref)
    bound = bind_msopgen(op_spec(program), task_values(ref, names["forward_params"], names["init_params"]),
                         expected, mutated=set(ref.post))
    rep.notes += bound.notes
    if bound.case is None:
        rep.status = "skipped" if bound.unsupported else "error"
        rep.notes.append(bound.problem or "could not bind the task's values to the program's inputs")
        return rep
    rep.inputs = bound.case
    rep.shapes = [list(np.asarray(a).shape) for a in bound.case.inputs.values()]
    res: InterpResult = interpret(program, bound.case.inputs, bound.case.attrs, soc, externs, label=label)
    rep.result, rep.diagnostics = res, res.diagnostics
    rep.block_dim = res.block_dim
    rep.ub_bytes = sum(b.bytes for b in res.buffers)
    if not res.ok:
        rep.status = "fail"
        return rep
    tol = get_tolerance(tolerance)
    order = [o.name for o in program.sig.outputs]
    pairs, notes = match_outputs(expected, res.outputs, order)
    rep.notes += notes
    rep.expected = {n: expected[i].array for i, n in pairs}
    found = []
    for i, n in pairs:
        found += compare_output(f"output {n}", expected[i].array, res.outputs.get(n), tol, block_dim=res.block_dim)
    for name, before in bound.inputs.items():
        if name in bound.inplace:
            want = ref.post[bound.inplace[name]].array
            rep.expected[name] = want
            found += compare_output(f"input {name} (updated in place)", want, res.outputs.get(name), tol,
                                    block_dim=res.block_dim)
        else:
            m = compare_unchanged(f"input {name}", before, res.outputs.get(name))
            if m:
                found.append(m)
    rep.mismatches = [m.render() for m in found]
    rep.status = "fail" if found else "pass"
    return rep
