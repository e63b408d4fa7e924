"""Runs one example program against one of its tasks through the referee twice: its lowered kernel on
the emulation (`verify`), and the program itself on the interpreter (the DSL check, the same referee);
the reference runs are made once and shared. Every case must pass both ways, and the interpreter's
outputs must match the emulated kernel's on the same bound case.

One reference worker process serves all tasks of a test process (importing torch once): a task is
loaded into it with the worker protocol's `load` request."""
from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np

from kernelwright.tools.dsl.check import CaseReport, check, expand_dtypes
from kernelwright.tools.dsl.examples import Example, ExampleTask
from kernelwright.tools.dsl.lower import lower
from kernelwright.tools.dsl.parse_program import parse_file
from kernelwright.tools.dsl.toolchain import InterpToolchain
from kernelwright.tools.referee import verify
from kernelwright.tools.referee.compare import compare_output
from kernelwright.tools.referee.tolerance import get_tolerance
from kernelwright.tools.tasks.load import load_task
from kernelwright.tools.tasks.reference import RefFailure, ReferenceWorker
from kernelwright.tools.toolchain import Toolchain


class SharedWorker(ReferenceWorker):
    """A reference worker whose process is reused for the next task. It runs torch single-threaded:
    with two test processes on two cores, OpenMP threads spinning in two reference workers slowed
    every emulated run several times over."""

    def _start(self):
        old = os.environ.get("OMP_NUM_THREADS")
        os.environ["OMP_NUM_THREADS"] = "1"
        try:
            return super()._start()
        finally:
            if old is None:
                os.environ.pop("OMP_NUM_THREADS", None)
            else:
                os.environ["OMP_NUM_THREADS"] = old

    def use(self, task) -> None:
        self.task = task
        if self.proc is not None and self.proc.poll() is None:
            resp = self._request({"op": "load", "task": task.model_dump(mode="json")}, self.timeout_s)
            if isinstance(resp, RefFailure):
                self._kill()
                self.signature = {}
            else:
                self.signature = {"forward_params": resp["forward_params"], "init_params": resp["init_params"]}
        else:
            self.signature = {}

    def close(self) -> None:     # kept alive between tasks; the session closes it with really_close
        pass

    def really_close(self) -> None:
        super().close()


class SharedReference:
    """A worker whose reference runs and shape descriptions are made once per (case, seed, shrink), so the
    second verdict on a task judges against exactly the first one's reference."""

    def __init__(self, worker):
        self.worker, self.memo = worker, {}

    def __getattr__(self, item):
        return getattr(self.worker, item)

    def run(self, case, seed, mapping):
        key = ("run", case.id, seed, tuple(sorted(mapping.items())))
        if key not in self.memo:
            self.memo[key] = self.worker.run(case, seed, mapping)
        return self.memo[key]

    def describe(self, case, mapping=None):
        key = ("describe", case.id, tuple(sorted((mapping or {}).items())))
        if key not in self.memo:
            self.memo[key] = self.worker.describe(case, mapping)
        return self.memo[key]


class Recorder(Toolchain):
    """Wraps a toolchain; keeps each bound case it ran, with its result, by case label."""

    def __init__(self, toolchain):
        self.toolchain, self.name = toolchain, toolchain.name
        self.soc, self.capabilities = toolchain.soc, toolchain.capabilities
        self.runs: dict[str, tuple] = {}

    def build(self, project, *, soc=None):
        return self.toolchain.build(project, soc=soc)

    def run(self, build, case):
        result = self.toolchain.run(build, case)
        self.runs[case.label] = (case, result)
        return result


@dataclass
class CaseOutcome:
    case: str
    interp: CaseReport | None
    problems: list[str] = field(default_factory=list)


@dataclass
class ExampleOutcome:
    cases: list[CaseOutcome]
    verdict: object
    project: object


def run_example(example: Example, spec: ExampleTask, sim, worker: SharedWorker, projects: dict) -> ExampleOutcome:
    program = parse_file(example.program_path())
    task = load_task(example.task_path(spec))
    worker.use(task)
    expand_dtypes(task, worker, spec.dtypes)
    key = (example.program, task.op_type)
    if key not in projects:
        projects[key] = lower(program, task.op_type)
    project = projects[key]
    reference, kernel, interp = SharedReference(worker), Recorder(sim), Recorder(InterpToolchain())
    verdict = verify(task, project, kernel, worker=reference, tolerance=spec.tolerance, trials=1, recheck=False)
    report = check(program, task, tolerance=spec.tolerance, worker=reference, toolchain=interp)
    by_case = {c.case: c for c in report.cases}
    tol = get_tolerance(spec.tolerance)
    outcomes = []
    for label, (case, result) in kernel.runs.items():
        rep = by_case.get(label.rsplit(" seed ", 1)[0])
        out = CaseOutcome(label, rep)
        outcomes.append(out)
        if rep is None or rep.status != "pass":
            out.problems.append(f"interpreter {rep.status if rep else 'did not judge this case'}: " + "; ".join(
                [d.render(program.source) for d in rep.diagnostics] + rep.mismatches + rep.notes if rep else []))
            continue
        if not result.ok:
            continue                     # the verdict reports it
        _, mine = interp.runs[label]
        for name in case.outputs:
            for m in compare_output(f"{name} (emulated kernel vs interpreter)", np.asarray(mine.outputs[name]),
                                    result.outputs.get(name), tol, block_dim=result.block_dim):
                out.problems.append(m.render())
    return ExampleOutcome(outcomes, verdict, project)
