"""One (task, attempt) of a bench, in its own process: `python -m kernelwright.evals.bench.worker SPEC`.

It runs the agent (`kernelwright.generate`) with its own artifact directory, checkpoint file and temp
directory, then writes `record.json` there. The parent decides what a missing record means (a crash,
or a hang it killed). If the parent dies, the worker stops too, and if the worker itself is killed
(a Ray worker kills its direct children when it exits), a sentinel in its process group kills what the
worker started: a killed bench leaves no orphans."""
from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time
import traceback
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from kernelwright.evals.bench.records import TaskRecord, write_json_atomic

RECORD = "record.json"


class WorkSpec(BaseModel):
    task: dict[str, Any]               # Task.model_dump()
    attempt: int = 0
    out: str                           # this attempt's artifact directory
    model: str | None = None
    backend: str | None = None
    tolerance: str | None = None
    soc: str | None = None
    config: str | None = None
    max_steps: int | None = None


PARENT_ENV = "KERNELWRIGHT_BENCH_PARENT"     # the bench's pid (or the Ray worker's), set by the runner
# Runs while both the worker (its parent) and the bench are alive, then kills the worker's process group.
SENTINEL = """
import os, sys, time
worker, bench = os.getppid(), int(sys.argv[1])
def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return True
while os.getppid() == worker and alive(bench):
    time.sleep(0.5)
os.killpg(0, 9)
"""


def watch_parent(parent: int) -> None:
    """Kill this worker's process group once the bench is gone. The bench's pid comes from the runner,
    not from getppid() here: a bench killed while this worker was still starting has already been
    replaced by init (or a subreaper) as our parent."""
    while True:
        if os.getppid() != parent:
            os.killpg(os.getpgrp(), signal.SIGKILL)
        time.sleep(0.5)


def _start_sentinel(parent: int) -> None:
    import subprocess
    subprocess.Popen([sys.executable, "-S", "-c", SENTINEL, str(parent)], stdin=subprocess.DEVNULL,
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, close_fds=True)


def _verdicts(art: Path) -> list[dict[str, Any]]:
    out = []
    for f in sorted((art / "verdicts").glob("v*.json"), key=lambda p: int(p.stem[1:] or 0)):
        try:
            out.append(json.loads(f.read_text(encoding="utf-8")))
        except (OSError, ValueError):
            continue
    return out


def _stage(verdict: dict[str, Any], name: str) -> dict[str, Any]:
    return next((s for s in verdict.get("stages", []) if s.get("name") == name), {})


def speedup_of(verdict: dict[str, Any], keys: tuple[str, ...] = ("speedup", "speedup_median")) -> float | None:
    """Eager time / kernel time from the measure stage, when the backend timed the kernel (the sim
    does not time; its estimate is `est_speedup`)."""
    metrics = _stage(verdict, "measure").get("metrics") or {}
    for key in keys:
        if isinstance(metrics.get(key), (int, float)):
            return float(metrics[key])
    return None


def estimate_at(verdict: dict[str, Any]) -> str | None:
    """At which shapes the measure stage estimated: task (the task's own) or shrunk; None without an estimate."""
    speed = (_stage(verdict, "measure").get("metrics") or {}).get("speed") or {}
    if speed.get("kind") != "estimate":
        return None
    return speed.get("at") or ("task" if speed.get("shapes") == "the task's own shapes" else "shrunk")


def before_phase(art: Path) -> dict[str, float | None]:
    """The speed-up of the kernel before the performance phase (run.json's `perf.before`), by kind."""
    try:
        before = (json.loads((art / "run.json").read_text(encoding="utf-8")).get("perf") or {}).get("before") or {}
    except (OSError, ValueError):
        return {}
    key = "speedup_before" if before.get("kind") == "measured" else "est_speedup_before"
    return {key: before.get("speedup")} if isinstance(before.get("speedup"), (int, float)) else {}


def record_of(spec: WorkSpec, result: Any, seconds: float) -> TaskRecord:
    from kernelwright.tools.task import Task
    task = Task.model_validate(spec.task)
    art = Path(result.artifacts)
    verdicts = _verdicts(art)
    passed = result.status == "passed"
    usage = result.usage or {}
    return TaskRecord(
        task=task.name, attempt=spec.attempt, category=task.category, level=task.level, status=result.status,
        reason=result.reason[:2000], compiled=any(_stage(v, "build").get("status") == "pass" for v in verdicts),
        correct=passed, repairs=result.path.count("debugger"), verifies=len(verdicts),
        speedup=speedup_of(verdicts[-1]) if passed and verdicts else None,
        est_speedup=speedup_of(verdicts[-1], ("est_speedup",)) if passed and verdicts else None,
        est_at=estimate_at(verdicts[-1]) if passed and verdicts else None,
        **(before_phase(art) if passed else {}),
        prompt_tokens=int(usage.get("prompt_tokens", 0)), completion_tokens=int(usage.get("completion_tokens", 0)),
        cost_usd=float(usage.get("cost_usd", 0.0)), model_calls=int(usage.get("calls", 0)), seconds=round(seconds, 2),
        model=spec.model or "builtin", backend=spec.backend or "sim", artifacts=str(art), path=result.path)


def run(spec: WorkSpec) -> TaskRecord:
    from kernelwright.agent.api import generate
    from kernelwright.agent.config import load_config
    from kernelwright.tools.task import Task

    out = Path(spec.out)
    cfg = load_config(spec.config, overrides={
        "models.default.name": spec.model, "toolchain.backend": spec.backend, "toolchain.tolerance": spec.tolerance,
        "toolchain.soc": spec.soc, "agent.max_steps": spec.max_steps, "paths.runs": str(out.parent),
        "paths.checkpoints": str(out / "checkpoints.sqlite")})
    task = Task.model_validate(spec.task)
    start = time.monotonic()
    try:
        result = generate(task, config=cfg, out=out)
    except Exception as e:        # our bug, or a replayed transcript that diverged: recorded, the batch goes on
        tail = "".join(traceback.format_exception(e)[-3:])
        return TaskRecord(task=task.name, attempt=spec.attempt, category=task.category, level=task.level,
                          status="error", reason=f"{type(e).__name__}: {e}\n{tail}"[:2000],
                          seconds=round(time.monotonic() - start, 2), model=spec.model or "builtin",
                          backend=spec.backend or "sim", artifacts=str(out))
    return record_of(spec, result, time.monotonic() - start)


def main(argv: list[str]) -> int:
    parent = int(os.environ.get(PARENT_ENV) or os.getppid())
    threading.Thread(target=watch_parent, args=(parent,), daemon=True).start()
    _start_sentinel(parent)
    spec = WorkSpec.model_validate_json(Path(argv[0]).read_text(encoding="utf-8"))
    record = run(spec)
    write_json_atomic(Path(spec.out) / RECORD, record.model_dump())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
