"""One line of `results.jsonl` per finished (task, attempt), and reading them back for a resume.

Lines are appended and flushed one at a time by the bench's parent process only, so a run killed at
any moment leaves every finished task on disk; a torn last line (killed mid-write) is cut off."""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, ValidationError

# The agent's exit statuses, plus what the bench itself observes about a worker; `infrastructure`: the
# try was lost with its node or Ray worker (not a kernel verdict; a rerun tries it again).
Status = Literal["passed", "failed", "budget_exhausted", "environment_error", "interrupted",
                 "timeout", "crashed", "error", "infrastructure"]
RETRIED = ("infrastructure",)          # statuses a rerun does not count as finished


class TaskRecord(BaseModel):
    task: str
    attempt: int = 0
    category: str | None = None
    level: str | None = None
    status: Status
    reason: str = ""
    compiled: bool = False             # some kernel of the run built
    correct: bool = False              # the run ended with a kernel the referee passed
    repairs: int = 0                   # debugger rounds the run used
    verifies: int = 0                  # referee verdicts the run got
    speedup: float | None = None       # eager time / kernel time, when the backend timed it
    est_speedup: float | None = None   # the same from the cost model's estimates (the sim backend; tools/perf)
    est_at: str | None = None          # the shapes of that estimate: task (the task's own) or shrunk (speed_shapes.py)
    speedup_before: float | None = None       # `speedup` / `est_speedup` of the kernel before the performance
    est_speedup_before: float | None = None   # phase (agent.perf), when the phase ran
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    model_calls: int = 0
    seconds: float = 0.0               # wall clock of the worker
    model: str = ""
    backend: str = ""
    artifacts: str = ""
    node: str = ""                     # the Ray node that ran it (ip/node id); "" on the local executor
    path: list[str] = Field(default_factory=list)

    @property
    def key(self) -> tuple[str, int]:
        return self.task, self.attempt


def read_records(path: Path) -> list[TaskRecord]:
    """Every complete record; a torn final line is removed from the file so appends stay well-formed."""
    if not path.exists():
        return []
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        cut = data.rfind(b"\n") + 1
        with path.open("r+b") as f:
            f.truncate(cut)
        data = data[:cut]
    out = []
    for line in data.decode("utf-8", errors="replace").splitlines():
        if not line.strip():
            continue
        try:
            out.append(TaskRecord.model_validate_json(line))
        except ValidationError:
            continue                   # a line from an older or foreign format: not ours to judge
    return out


def append_record(path: Path, record: TaskRecord) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as f:
        f.write(record.model_dump_json() + "\n")
        f.flush()
        os.fsync(f.fileno())


def latest(records: list[TaskRecord]) -> dict[tuple[str, int], TaskRecord]:
    """One record per (task, attempt): the last written wins (a rerun of an infrastructure failure)."""
    return {r.key: r for r in records}


def write_json_atomic(path: Path, data: object) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=1, default=str) + "\n", encoding="utf-8")
    os.replace(tmp, path)
