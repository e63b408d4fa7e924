"""The batch runner: every (task, attempt) in its own worker process with its own artifact and temp
directory, `jobs` at a time, each under a wall-clock limit. Records are appended to
`results.jsonl` as workers finish; rerunning the same command skips what is recorded, so a killed
or crashed bench resumes without losing finished work. Reports are written at the end."""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, Field

from kernelwright.errors import UserError
from kernelwright.evals.bench.records import TaskRecord, append_record, latest, read_records, write_json_atomic
from kernelwright.evals.bench.worker import PARENT_ENV, RECORD, WorkSpec
from kernelwright.tools.task import Task

SETTINGS = "bench.json"
RESULTS = "results.jsonl"
# What a record's meaning depends on: rerunning into the same directory with other values would mix results.
PINNED = ("suite", "model", "backend", "tolerance", "soc")


class BenchError(UserError):
    """Bad input (unknown suite, nothing selected, an --out holding another run's results)."""


class BenchOptions(BaseModel):
    suite: str
    out: Path
    model: str | None = None           # `{task}` is replaced by each task's name (per-task replay transcripts)
    backend: str = "sim"
    jobs: int = Field(1, ge=1)
    attempts: int = Field(1, ge=1)
    filters: list[str] = Field(default_factory=list)
    tolerance: str = "default"
    soc: str | None = None
    config: str | None = None
    timeout_s: float = Field(1800.0, gt=0)
    max_steps: int | None = None

    def model_for(self, task: Task) -> str | None:
        return self.model.replace("{task}", task.name) if self.model else None


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


@dataclass
class Running:
    task: Task
    attempt: int
    proc: subprocess.Popen
    art: Path
    started: float
    log: object


def _launch(opts: BenchOptions, task: Task, attempt: int) -> Running:
    art = opts.out / "runs" / f"{task.name}.a{attempt}"
    shutil.rmtree(art, ignore_errors=True)        # what an unfinished earlier try left: started over
    (art / "tmp").mkdir(parents=True)
    spec = WorkSpec(task=task.model_dump(mode="json"), attempt=attempt, out=str(art.resolve()), model=opts.model_for(task),
                    backend=opts.backend, tolerance=opts.tolerance, soc=opts.soc, config=opts.config,
                    max_steps=opts.max_steps)
    (art / "spec.json").write_text(spec.model_dump_json(indent=1), encoding="utf-8")
    env = dict(os.environ, TMPDIR=str((art / "tmp").resolve()), PYTHONUNBUFFERED="1", **{PARENT_ENV: str(os.getpid())})
    log = (art / "worker.log").open("w", encoding="utf-8")
    proc = subprocess.Popen([sys.executable, "-m", "kernelwright.evals.bench.worker", str(art / "spec.json")],
                            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=env,
                            start_new_session=True)      # its own process group: a hang is killed with its children
    return Running(task, attempt, proc, art, time.monotonic(), log)


def _kill(r: Running) -> None:
    try:
        os.killpg(r.proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    r.proc.wait()


def _log_tail(art: Path, lines: int = 6) -> str:
    try:
        return "\n".join((art / "worker.log").read_text(encoding="utf-8", errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


def _collect(opts: BenchOptions, r: Running, timed_out: bool) -> TaskRecord:
    r.log.close()
    seconds = round(time.monotonic() - r.started, 2)
    base = dict(task=r.task.name, attempt=r.attempt, category=r.task.category, level=r.task.level, seconds=seconds,
                model=opts.model_for(r.task) or "builtin", backend=opts.backend, artifacts=str(r.art))
    if timed_out:
        return TaskRecord(status="timeout", reason=f"no result within {opts.timeout_s:g} s (per-task limit); the "
                                                   "worker and its children were killed", **base)
    rec = r.art / RECORD
    if rec.exists():
        return TaskRecord.model_validate_json(rec.read_text(encoding="utf-8")).model_copy(update={"seconds": seconds})
    rc = r.proc.returncode
    how = f"signal {-rc} ({signal.Signals(-rc).name})" if rc < 0 else f"exit status {rc}"
    tail = _log_tail(r.art)
    return TaskRecord(status="crashed", reason=f"the worker died ({how}) without a result; "
                                               + (f"its log ends with:\n{tail}" if tail.strip() else
                                                  f"its log ({r.art / 'worker.log'}) is empty"), **base)


def run_bench(opts: BenchOptions, tasks: list[Task], progress=None) -> list[TaskRecord]:
    """Run what is not recorded yet; returns the records of the selection (old and new)."""
    results = opts.out / RESULTS
    done = latest(read_records(results))
    todo = deque((t, a) for a in range(opts.attempts) for t in tasks if (t.name, a) not in done)
    total = len(tasks) * opts.attempts
    if progress is None:
        from kernelwright.evals.bench.progress import make_progress
        progress = make_progress(total, total - len(todo))
    running: list[Running] = []
    try:
        while todo or running:
            while todo and len(running) < opts.jobs:
                task, attempt = todo.popleft()
                running.append(_launch(opts, task, attempt))
                progress.started(f"{task.name}#{attempt}")
            time.sleep(0.2)
            for r in list(running):
                timed_out = r.proc.poll() is None and time.monotonic() - r.started > opts.timeout_s
                if timed_out:
                    _kill(r)
                if r.proc.poll() is None:
                    continue
                running.remove(r)
                record = _collect(opts, r, timed_out)
                append_record(results, record)
                done[record.key] = record
                progress.finished(record)
    finally:
        for r in running:              # interrupted: unfinished tries are not recorded and rerun next time
            _kill(r)
            r.log.close()
        progress.close()
    names = {t.name for t in tasks}
    return [rec for key, rec in done.items() if key[0] in names and key[1] < opts.attempts]
