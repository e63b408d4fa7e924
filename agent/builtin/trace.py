"""Trace task references with torch.fx in a subprocess (the parent never imports torch), and render a
trace as the short text the planner and the writer prompts show."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from typing import Any

from kernelwright.agent.builtin import trace_cache
from kernelwright.tools.buildkit import sandbox
from kernelwright.tools.buildkit.sandbox import View
from kernelwright.tools.task import Task
from kernelwright.tools.tasks.reference import THREADS, task_dirs

TIMEOUT_S = 300


def trace_tasks(tasks: list[Task]) -> list[dict[str, Any]]:
    """One trace per task; one torch import for all those not traced before (`trace_cache`). Every trace
    has `ok`, `ops` and `summary` (empty when tracing failed, with `error` saying why), so prompts and
    recognisers read a failed trace (a tracer slowed past TIMEOUT_S on a loaded machine, say) like an
    empty one."""
    keys = [trace_cache.key(t) for t in tasks]
    found = [trace_cache.load(k, t) for k, t in zip(keys, tasks)]
    missing = [t for t, f in zip(tasks, found) if f is None]
    fresh = iter(_traced(missing) if missing else [])
    out = []
    for k, t, f in zip(keys, tasks, found):
        if f is None:
            f = next(fresh)
            trace_cache.store(k, t, f)
        out.append(f)
    return out


def _traced(tasks: list[Task]) -> list[dict[str, Any]]:
    def failed(why: str) -> list[dict[str, Any]]:
        return [_complete({"ok": False, "task": t.name, "error": f"the tracer failed: {why}"}) for t in tasks]
    with tempfile.TemporaryDirectory(prefix="kw-trace-") as scratch:
        # task code runs in the tracer: sandboxed like the reference worker (task directories read-only)
        view = View(writable=(scratch,), readable=tuple(sorted({d for t in tasks for d in task_dirs(t)})), python=True,
                    env=(("OMP_NUM_THREADS", os.environ.get("OMP_NUM_THREADS", "2")),))
        proc = sandbox.popen([sys.executable, "-m", "kernelwright.agent.builtin.trace_worker"], cwd=scratch, view=view,
                             limits=sandbox.Limits(cpu_s=None, file_bytes=None, processes=THREADS), stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            stdout, stderr = proc.communicate(json.dumps([t.model_dump() for t in tasks]), timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return failed(f"no answer within {TIMEOUT_S} s")
        finally:
            sandbox.kill(proc)
    try:
        traces = json.loads(stdout)
    except json.JSONDecodeError:
        return failed(f"exit {proc.returncode}: {stderr[-600:]}")
    for trace in traces:
        if trace.get("ok"):
            trace["ops"] = sorted({n["op"] for n in trace["nodes"] if n["kind"] not in ("placeholder", "output")})
            trace["summary"] = summary(trace)
    return [_complete(t) for t in traces]


def _complete(trace: dict[str, Any]) -> dict[str, Any]:
    if not trace.get("ok"):
        trace.setdefault("error", "unknown")
        trace.setdefault("ops", [])
        trace.setdefault("summary", "")
    return trace


def trace_task(task: Task) -> dict[str, Any]:
    return trace_tasks([task])[0]


def _arg(v: Any) -> str:
    if isinstance(v, dict) and "node" in v:
        return f"%{v['node']}"
    if isinstance(v, list):
        return "[" + ", ".join(_arg(x) for x in v) + "]"
    return repr(v)


def summary(trace: dict[str, Any]) -> str:
    lines = []
    for n in trace["nodes"]:
        meta = f"  # {n['dtype']}{n['shape']}" if "shape" in n else ""
        if n["kind"] == "placeholder":
            lines.append(f"%{n['name']} = input{meta}")
        elif n["kind"] == "output":
            lines.append(f"return {_arg(n['args'][0])}")
        elif n["kind"] == "get_attr":
            lines.append(f"%{n['name']} = self.{n['target']}{meta}")
        else:
            args = [_arg(a) for a in n["args"]] + [f"{k}={_arg(v)}" for k, v in n["kwargs"].items()]
            mod = f" {n['module']}" if n.get("module") else ""
            lines.append(f"%{n['name']} = {n['op']}({', '.join(args)}){mod}{meta}")
    init = ", ".join(f"{i['name']}={i['value']!r}" for i in trace["init"])
    return "\n".join(lines) + (f"\n(init: {init})" if init else "")
