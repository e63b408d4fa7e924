"""Runs one example program against one of its tasks through the referee (`verify`), recording
every reference run and every emulated kernel run on the way; then interprets the program on each
recorded case and checks that the interpreter matches the reference and the emulated kernel.

One reference worker process serves all tasks of a test process (importing torch once): a task is
loaded into it with the worker protocol's `load` request."""
from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np

from kernelwright.tools.dsl.check import CaseReport, check_reference_run, expand_dtypes
from kernelwright.tools.dsl.examples import Example, ExampleTask
from kernelwright.tools.dsl.lower import lower
from kernelwright.tools.dsl.parse_program import parse_file
from kernelwright.tools.hardware import load_soc
from kernelwright.tools.referee.compare import compare_output
from kernelwright.tools.referee.tolerance import get_tolerance
from kernelwright.tools.tasks.load import load_task
from kernelwright.tools.tasks.reference import RefFailure, ReferenceWorker


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


class Recorder:
    """Wraps a worker and a toolchain; keeps (reference run, kernel case, kernel result) triples."""

    def __init__(self, worker, toolchain):
        self.worker, self.toolchain, self.name = worker, toolchain, toolchain.name
        self.soc, self.capabilities = toolchain.soc, toolchain.capabilities
        self.last_ref = None
        self.runs: list[tuple] = []

    def __getattr__(self, item):
        return getattr(self.worker, item)

    def run(self, *args, **kwargs):           # as a worker: run(case, seed, mapping); as a toolchain: run(build, case)
        if args and hasattr(args[0], "status") and hasattr(args[0], "variants"):
            result = self.toolchain.run(*args, **kwargs)
            self.runs.append((self.last_ref, args[1], result))
            return result
        self.last_ref = (args[0].id, self.worker.run(*args, **kwargs))
        return self.last_ref[1]

    def build(self, project, *, soc=None):
        return self.toolchain.build(project, soc=soc)


@dataclass
class CaseOutcome:
    case: str
    interp: CaseReport
    problems: list[str] = field(default_factory=list)


@dataclass
class ExampleOutcome:
    cases: list[CaseOutcome]
    verdict: object
    project: object


def run_example(example: Example, spec: ExampleTask, sim, worker: SharedWorker, projects: dict) -> ExampleOutcome:
    from kernelwright.tools.referee import verify
    program = parse_file(example.program_path())
    task = load_task(example.task_path(spec))
    worker.use(task)
    expand_dtypes(task, worker, spec.dtypes)
    key = (example.program, task.op_type)
    if key not in projects:
        projects[key] = lower(program, task.op_type)
    project = projects[key]
    rec = Recorder(worker, sim)
    verdict = verify(task, project, rec, worker=rec, tolerance=spec.tolerance, trials=1, recheck=False)
    names = worker.params()
    tol = get_tolerance(spec.tolerance)
    outcomes = []
    for (label, ref), case, result in rec.runs:
        rep = check_reference_run(program, label, ref, names, spec.tolerance, load_soc(None))
        out = CaseOutcome(label, rep)
        outcomes.append(out)
        if rep.status != "pass":
            out.problems.append(f"interpreter {rep.status}: " + "; ".join(
                [d.render(program.source) for d in rep.diagnostics] + rep.mismatches + rep.notes))
            continue
        if not result.ok:
            continue                     # the verdict reports it
        for name in rep.expected:
            for m in compare_output(f"{name} (emulated kernel vs interpreter)", np.asarray(rep.result.outputs[name]),
                                    result.outputs.get(name), tol, block_dim=result.block_dim):
                out.problems.append(m.render())
    return ExampleOutcome(outcomes, verdict, project)
