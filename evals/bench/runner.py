"""The bench driver: every (task, attempt) not recorded yet goes to an executor (local worker
processes, or Ray tasks over a cluster), and each try's record is appended to `results.jsonl` as it
ends, by this process alone. Rerunning the same command skips what is recorded (infrastructure
failures excepted), so a killed or crashed bench resumes without losing finished work. Reports are
written at the end."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections import deque
from typing import Protocol

from kernelwright.evals.bench.options import BenchError, BenchOptions
from kernelwright.evals.bench.records import RETRIED, TaskRecord, append_record, latest, read_records, write_json_atomic
from kernelwright.tools.task import Task

__all__ = ["BenchError", "BenchOptions", "check_settings", "run_bench", "select"]

SETTINGS = "bench.json"
RESULTS = "results.jsonl"
# What a record's meaning depends on: rerunning into the same directory with other values would mix results.
PINNED = ("suite", "model", "backend", "tolerance", "soc")


def select(opts: BenchOptions) -> list[Task]:
    from kernelwright.evals.bench.suite import filter_tasks, resolve_suite
    try:
        tasks = filter_tasks(resolve_suite(opts.suite), opts.filters)
    except ValueError as e:            # TaskError and bad filters are ValueErrors
        raise BenchError(str(e)) from None
    if not tasks:
        raise BenchError(f"no task of {opts.suite} matches --filter {' '.join(opts.filters)}")
    return tasks


def check_settings(opts: BenchOptions) -> None:
    """Pin the settings that give records their meaning to the output directory."""
    path = opts.out / SETTINGS
    mine = {k: (str(v) if v is not None else None) for k, v in opts.model_dump(include=set(PINNED)).items()}
    if path.exists():
        import json
        theirs = json.loads(path.read_text(encoding="utf-8"))
        diff = [f"{k}: {theirs.get(k)!r} there, {mine[k]!r} now" for k in PINNED if theirs.get(k) != mine[k]]
        if diff:
            raise BenchError(f"{opts.out} holds the results of a different bench ({'; '.join(diff)}); "
                             "use another --out, or delete it to start over")
    opts.out.mkdir(parents=True, exist_ok=True)
    write_json_atomic(path, mine)


class Executor(Protocol):
    """Runs tries; the driver asks for room, submits, and collects each try's record once."""

    def room(self) -> int: ...                               # tries it would take now
    def busy(self) -> bool: ...                              # tries in flight
    def submit(self, task: Task, attempt: int) -> None: ...
    def wait(self, timeout: float) -> list[TaskRecord]: ...  # records of tries that ended (at most ~timeout s)
    def close(self) -> None: ...                             # stop what is in flight (not recorded)


def make_executor(opts: BenchOptions, note) -> Executor:
    if opts.executor == "ray":
        from kernelwright.evals.bench.ray_driver import RayExecutor
        return RayExecutor(opts, note)
    from kernelwright.evals.bench.local import LocalExecutor
    return LocalExecutor(opts)


def run_bench(opts: BenchOptions, tasks: list[Task], progress=None, executor: Executor | None = None) -> list[TaskRecord]:
    """Run what is not recorded yet (on `executor`, default: the one `opts` names); returns the records of
    the selection (old and new)."""
    results = opts.out / RESULTS
    done = {k: r for k, r in latest(read_records(results)).items() if r.status not in RETRIED}
    todo = deque((t, a) for a in range(opts.attempts) for t in tasks if (t.name, a) not in done)
    total = len(tasks) * opts.attempts
    if progress is None:
        from kernelwright.evals.bench.progress import make_progress
        progress = make_progress(total, total - len(todo))
    tracer = pretrace([t for t, _ in todo], opts) if executor is None else None
    try:
        executor = executor or make_executor(opts, progress.note)
        while todo or executor.busy():
            while todo and executor.room() > 0:
                task, attempt = todo.popleft()
                executor.submit(task, attempt)
                progress.started(f"{task.name}#{attempt}")
            for record in executor.wait(1.0):
                append_record(results, record)
                done[record.key] = record
                progress.finished(record)
    finally:
        if executor is not None:       # interrupted: unfinished tries are not recorded and rerun next time
            executor.close()
        if tracer is not None:
            _end(tracer)
        progress.close()
    names = {t.name for t in tasks}
    return [rec for key, rec in done.items() if key[0] in names and key[1] < opts.attempts]


def pretrace(tasks: list[Task], opts: BenchOptions) -> subprocess.Popen | None:
    """Trace the tasks ahead of their tries (evals/bench/pretrace.py), in a process of its own session
    (task code runs there, as in a try) that the bench ends when it is done."""
    unique = list({t.name: t for t in tasks}.values())
    if not unique:
        return None
    listing = opts.out / ".pretrace.json"
    write_json_atomic(listing, [t.model_dump(mode="json") for t in unique])
    return subprocess.Popen([sys.executable, "-m", "kernelwright.evals.bench.pretrace", str(listing), str(os.getpid())],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)


def _end(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()
