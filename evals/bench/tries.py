"""One try of a bench as a worker process (`python -m kernelwright.evals.bench.worker SPEC`) in its own
artifact and temp directory and its own session, so a hang is killed with all its children. Both
executors use it: the local one polls several at once, a Ray task waits for one. What a missing
record means (a crash, or a hang that was killed) is decided here, the same way for both."""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from kernelwright.evals.bench.records import TaskRecord
from kernelwright.evals.bench.worker import PARENT_ENV, RECORD, WorkSpec
from kernelwright.tools.task import Task


def try_dir(root: Path, task: Task, attempt: int) -> Path:
    return root / f"{task.name}.a{attempt}"


class TryProcess:
    """Starts the worker at once; `record()` after it ended (or was killed) says how the try ended."""

    def __init__(self, spec: WorkSpec, env: dict[str, str] | None = None):
        self.spec, self.art = spec, Path(spec.out)
        shutil.rmtree(self.art, ignore_errors=True)        # what an unfinished earlier try left: started over
        (self.art / "tmp").mkdir(parents=True)
        (self.art / "spec.json").write_text(spec.model_dump_json(indent=1), encoding="utf-8")
        # The worker stops when this process is gone: the bench (local) or the Ray worker running the task.
        env = dict(os.environ, **(env or {}), TMPDIR=str((self.art / "tmp").resolve()), PYTHONUNBUFFERED="1",
                   **{PARENT_ENV: str(os.getpid())})
        self.log = (self.art / "worker.log").open("w", encoding="utf-8")
        self.proc = subprocess.Popen([sys.executable, "-m", "kernelwright.evals.bench.worker", str(self.art / "spec.json")],
                                     stdin=subprocess.DEVNULL, stdout=self.log, stderr=subprocess.STDOUT, env=env,
                                     start_new_session=True)
        self.started = time.monotonic()
        self.timed_out = False

    def done(self, timeout_s: float) -> bool:
        """Has it ended? One that ran past `timeout_s` is killed here and counts as ended."""
        if self.proc.poll() is None and time.monotonic() - self.started > timeout_s:
            self.timed_out = True
            self.kill()
        return self.proc.poll() is not None

    def wait(self, timeout_s: float) -> TaskRecord:
        """Block until it ends or is killed at `timeout_s`; its record."""
        try:
            self.proc.wait(timeout=max(0.0, timeout_s - (time.monotonic() - self.started)))
        except subprocess.TimeoutExpired:
            self.timed_out = True
            self.kill()
        return self.record(timeout_s)

    def kill(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait()
        self.log.close()

    def record(self, timeout_s: float) -> TaskRecord:
        self.log.close()
        spec = self.spec
        task = Task.model_validate(spec.task)
        seconds = round(time.monotonic() - self.started, 2)
        base = dict(task=task.name, attempt=spec.attempt, category=task.category, level=task.level, seconds=seconds,
                    model=spec.model or "builtin", backend=spec.backend or "sim", artifacts=str(self.art))
        if self.timed_out:
            return TaskRecord(status="timeout", reason=f"no result within {timeout_s:g} s (per-task limit); the "
                                                       "worker and its children were killed", **base)
        rec = self.art / RECORD
        if rec.exists():
            return TaskRecord.model_validate_json(rec.read_text(encoding="utf-8")).model_copy(update={"seconds": seconds})
        rc = self.proc.returncode
        how = f"signal {-rc} ({signal.Signals(-rc).name})" if rc < 0 else f"exit status {rc}"
        tail = _log_tail(self.art)
        return TaskRecord(status="crashed", reason=f"the worker died ({how}) without a result; "
                                                   + (f"its log ends with:\n{tail}" if tail.strip() else
                                                      f"its log ({self.art / 'worker.log'}) is empty"), **base)


def _log_tail(art: Path, lines: int = 6) -> str:
    try:
        return "\n".join((art / "worker.log").read_text(encoding="utf-8", errors="replace").splitlines()[-lines:])
    except OSError:
        return ""
