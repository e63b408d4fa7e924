"""Traces of task references kept by content under $KERNELWRIGHT_HOME/traces, so a task traced once (by a
bench before its tries start, by an earlier run, by another test) is not traced again: tracing starts a
Python that imports torch and torch._dynamo (FakeTensorMode), 4-5 s of CPU per try.

The key holds everything a trace depends on: the task as loaded, the bytes of its reference files, the
names, sizes and modification times of the files beside them (a task may import its neighbours), the
tracer's code and the torch it runs. Only successful traces are kept (a failure may be the machine's: a
tracer timed out under load). Entries are written whole and renamed into place, so concurrent runs read
either nothing or a complete trace; a sandboxed step never sees the home."""
from __future__ import annotations

import json
import os
import sys
import tempfile
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any

from kernelwright.tools.buildkit import cache
from kernelwright.tools.task import Task
from kernelwright.tools.tasks.reference import task_dirs

NAMESPACE = "traces"
MAX_NEIGHBOURS = 2000       # a task beside more files than this (a home directory) is traced every time


@lru_cache(maxsize=1)
def _tracer_digest() -> str:
    root = cache.PACKAGE_ROOT
    code = [root / "agent/builtin/trace.py", root / "agent/builtin/trace_worker.py", root / "tools/task.py",
            *sorted((root / "tools/tasks").glob("*.py"))]
    try:
        torch = metadata.version("torch")
    except metadata.PackageNotFoundError:
        torch = "none"
    return cache.digest([cache.tree_digest(code, root), torch, sys.version, *cache.install_parts()])


def _neighbours(directory: str) -> list[str] | None:
    out: list[str] = []
    for dirpath, dirnames, filenames in os.walk(directory):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for name in sorted(filenames):
            try:
                st = os.stat(os.path.join(dirpath, name))
            except OSError:
                continue
            out.append(f"{os.path.relpath(os.path.join(dirpath, name), directory)}:{st.st_size}:{st.st_mtime_ns}")
            if len(out) > MAX_NEIGHBOURS:
                return None
    return out


def key(task: Task) -> str | None:
    """The entry name of a task's trace (None: not cacheable)."""
    parts: list[str | bytes] = [_tracer_digest(), task.model_dump_json()]
    try:
        for f in (task.source, task.inputs_source):
            parts.append(Path(f).read_bytes() if f else b"")
    except OSError:
        return None
    for d in task_dirs(task):
        listing = _neighbours(d)
        if listing is None:
            return None
        parts += [d, *listing]
    return "trace-" + cache.digest(parts)


def load(k: str | None, task: Task) -> dict[str, Any] | None:
    if k is None:
        return None
    try:
        trace = json.loads((cache.cache_root(NAMESPACE) / f"{k}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return trace if isinstance(trace, dict) and trace.get("ok") and trace.get("task") == task.name else None


def store(k: str | None, task: Task, trace: dict[str, Any]) -> None:
    if k is None or not trace.get("ok") or trace.get("task") != task.name:
        return
    root = cache.cache_root(NAMESPACE)
    fd, tmp = tempfile.mkstemp(prefix=f".{k}.", dir=root)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(trace, fh)
        os.replace(tmp, root / f"{k}.json")
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
