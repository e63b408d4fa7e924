"""Runs one example program against one of its tasks: the interpreter and the CPU-emulated kernel
on every shape case (and dtype variant), each compared with the reference and with each other,
then the referee's verdict on the lowered project."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from kernelwright.tools.dsl.check import CaseReport, check_case
from kernelwright.tools.dsl.examples import Example, ExampleTask
from kernelwright.tools.dsl.lower import lower
from kernelwright.tools.dsl.parse_program import parse_file
from kernelwright.tools.hardware import load_soc
from kernelwright.tools.referee.compare import compare_output
from kernelwright.tools.referee.tolerance import get_tolerance
from kernelwright.tools.task import TaskCase
from kernelwright.tools.tasks.load import load_task
from kernelwright.tools.tasks.reference import ReferenceWorker


@dataclass
class CaseOutcome:
    case: str
    interp: CaseReport
    sim_status: str
    problems: list[str] = field(default_factory=list)


@dataclass
class ExampleOutcome:
    cases: list[CaseOutcome]
    verdict: object
    project: object


def task_with_cases(path, dtypes: list[str], worker_factory=ReferenceWorker):
    task = load_task(path)
    worker = worker_factory(task)
    n = worker.count_groups() if task.input_kind == "input_groups" else 1
    task.cases = [TaskCase(id=f"group {i} {dt}" if task.input_kind == "input_groups" else f"default {dt}",
                           index=i, dtype=None if dt == "float32" else dt) for dt in dtypes for i in range(n)]
    return task, worker


def run_example(example: Example, spec: ExampleTask, sim, builds: dict) -> ExampleOutcome:
    from kernelwright.tools.referee import verify
    program = parse_file(example.program_path())
    task, worker = task_with_cases(example.task_path(spec), spec.dtypes)
    soc = load_soc(None)
    tol = get_tolerance(spec.tolerance)
    try:
        key = (example.program, task.op_type)
        if key not in builds:
            project = lower(program, task.op_type)
            builds[key] = (project, sim.build(project))
        project, build = builds[key]
        assert build.ok, "\n".join(d.render() for d in build.diagnostics[:5])
        outcomes = []
        for case in task.cases:
            rep = check_case(program, case, worker, spec.tolerance, soc, 0, 1 << 18, None)
            out = CaseOutcome(case.id, rep, "not run")
            outcomes.append(out)
            if rep.status != "pass":
                out.problems.append(f"interpreter {rep.status}: " + "; ".join(
                    [d.render(program.source) for d in rep.diagnostics] + rep.mismatches + rep.notes))
                continue
            r = sim.run(build, rep.inputs)
            out.sim_status = r.status
            if not r.ok:
                out.problems.append(f"sim {r.status}: {r.detail} " + "; ".join(d.render() for d in r.errors()[:3]))
                continue
            for name, want in rep.expected.items():
                got_i, got_s = rep.result.outputs[name], r.outputs.get(name)
                for label, a, b in (("sim vs reference", want, got_s), ("sim vs interpreter", got_i, got_s)):
                    for m in compare_output(f"{name} ({label})", np.asarray(a), b, tol, block_dim=r.block_dim):
                        out.problems.append(m.render())
        verdict = verify(task, project, sim, worker=worker, tolerance=spec.tolerance, trials=1, recheck=False)
        return ExampleOutcome(outcomes, verdict, project)
    finally:
        worker.close()
