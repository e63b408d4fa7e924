"""The local executor: each try a worker process on this machine, `jobs` at a time."""
from __future__ import annotations

import time

from kernelwright.evals.bench.options import BenchOptions
from kernelwright.evals.bench.records import TaskRecord
from kernelwright.evals.bench.tries import TryProcess, try_dir
from kernelwright.tools.task import Task


class LocalExecutor:
    def __init__(self, opts: BenchOptions):
        self.opts = opts
        self.slots = opts.jobs or 1
        self.running: list[TryProcess] = []

    def room(self) -> int:
        return self.slots - len(self.running)

    def busy(self) -> bool:
        return bool(self.running)

    def submit(self, task: Task, attempt: int) -> None:
        art = try_dir(self.opts.runs_root, task, attempt)
        self.running.append(TryProcess(self.opts.work_spec(task, attempt, art)))

    def wait(self, timeout: float) -> list[TaskRecord]:
        """The tries that ended within about `timeout` seconds."""
        time.sleep(min(timeout, 0.2))
        ended = [t for t in self.running if t.done(self.opts.timeout_s)]
        for t in ended:
            self.running.remove(t)
        return [t.record(self.opts.timeout_s) for t in ended]

    def close(self) -> None:
        """Interrupted: unfinished tries are not recorded and rerun next time."""
        for t in self.running:
            t.kill()
        self.running.clear()
