"""What the speed estimate at the task's own shapes adds to a verify, on kernels an older bench kept.

Each kernel is verified as the agent verifies it (three trials and a recheck on a one-case task): the emulated runs
that judge it are timed apart from the trace-only run at the task's shapes (tools/referee/speed_shapes.py), and
the estimating after it (the reference's ATen ops on fake tensors, the cost model on every SoC) is timed too. The
added share of a kernel is (trace-only run + estimating at the task's shapes) / the judging runs. Wall seconds and
CPU seconds (this process and every process under it, the sandboxed runs included) are both reported: on a shared
machine the CPU seconds are the steadier number (each kernel is measured in a fresh process). With --full the
trace-only run is made once more with every traced block run whole (no cut and extension, speed_extend.py), and the
two estimates are compared.

    python -m kernelwright.evals.task_shape_cost --mkb MKB/reference --results OLD/results.jsonl \
        --out DIR [--filter name=relu,elu] [--full]

Writes DIR/cost.jsonl (one row per kernel, appended) and prints a table and the median added share. Works on an
older checkout too (PYTHONPATH at it): what it times is found by name, not by fields that checkout lacks."""
from __future__ import annotations

import argparse
import fnmatch
import json
import os
import queue
import statistics
import time
from pathlib import Path
from typing import Any


def _cpu_tree(pid: int | None = None) -> float:
    """CPU seconds of a process's live children and their finished children (recursively); with no pid, this
    process's own, its finished children's and its live children's."""
    if pid is None:
        t = os.times()
        return t.user + t.system + t.children_user + t.children_system + sum(_cpu_tree(c) for c in _children(os.getpid()))
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    ticks = sum(int(f) for f in fields[11:15])          # utime, stime, cutime, cstime
    return ticks / os.sysconf("SC_CLK_TCK") + sum(_cpu_tree(c) for c in _children(pid))


def _children(pid: int) -> list[int]:
    out = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            out += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            pass
    return out


class _Timed:
    """Wall and CPU seconds of calls, summed by kind."""

    def __init__(self) -> None:
        self.wall: dict[str, float] = {}
        self.cpu: dict[str, float] = {}

    def wrap(self, f, kind):
        def call(*a, **k):
            w, c = time.monotonic(), _cpu_tree()
            try:
                return f(*a, **k)
            finally:
                name = kind(*a, **k) if callable(kind) else kind
                self.wall[name] = self.wall.get(name, 0.0) + time.monotonic() - w
                self.cpu[name] = self.cpu.get(name, 0.0) + _cpu_tree() - c
        return call


def _measure(task_file: Path, project: Path, full: bool) -> dict[str, Any]:
    import importlib
    from kernelwright.tools.backends import get_toolchain
    from kernelwright.tools.project import KernelProject
    from kernelwright.tools.tasks import load_task
    verify_mod = importlib.import_module("kernelwright.tools.referee.verify")
    speed = importlib.import_module("kernelwright.tools.referee.speed")
    shapes_mod = importlib.import_module("kernelwright.tools.referee.speed_shapes")
    timed = _Timed()
    tc = get_toolchain("sim")
    tc.run = timed.wrap(tc.run, lambda build, case, *a, **k:
                        "trace_run" if getattr(case, "trace_only", False) else "judge_run")
    speed._at_task_shapes = timed.wrap(speed._at_task_shapes, "estimate")
    verify_mod.trace_at_task_shapes = timed.wrap(verify_mod.trace_at_task_shapes, "trace_python")
    if full and hasattr(shapes_mod, "TRACE_BUDGETS"):
        shapes_mod.TRACE_BUDGETS = ()
    w0, c0 = time.monotonic(), _cpu_tree()
    v = verify_mod.verify(load_task(task_file), KernelProject.from_path(project), tc,
                          trials=1 if full else None, recheck=not full)
    rec = next((s.metrics for s in v.stages if s.name == "measure"), {}).get("speed") or {}
    main = (rec.get("per_soc") or {}).get(rec.get("soc") or "") or {}
    return {"status": v.status, "at": rec.get("at"), "method": rec.get("method") or rec.get("why_not_task_shapes"),
            "kernel_us": main.get("kernel_us"), "speedup": main.get("speedup"),
            "judge_runs": sum(1 for r in v.runs if r.status in ("pass", "fail")),
            "verify_wall_s": round(time.monotonic() - w0, 2), "verify_cpu_s": round(_cpu_tree() - c0, 2),
            "wall_s": {k: round(x, 3) for k, x in timed.wall.items()},
            "cpu_s": {k: round(x, 3) for k, x in timed.cpu.items()}}


def _measure_into(out, task_file: Path, project: Path, full: bool) -> None:
    try:
        out.put(_measure(task_file, project, full))
    except BaseException as e:                      # said by the parent, which has no traceback of this process
        out.put(f"{type(e).__name__}: {e}")
        raise


def _in_own_process(task_file: Path, project: Path, full: bool) -> dict[str, Any]:
    """_measure in a fresh process: a process tree left from an earlier kernel (the build's long-lived sandbox,
    closed while the next kernel's runs are timed) takes its CPU seconds with it when it ends."""
    import multiprocessing
    ctx = multiprocessing.get_context("spawn")
    out = ctx.Queue()
    proc = ctx.Process(target=_measure_into, args=(out, task_file, project, full))
    proc.start()
    try:
        while True:
            try:
                got = out.get(timeout=5)
                break
            except queue.Empty:
                if not proc.is_alive():
                    raise RuntimeError(f"measuring {task_file.stem} ended with exit code {proc.exitcode}") from None
        if isinstance(got, str):
            raise RuntimeError(f"measuring {task_file.stem}: {got}")
        return got
    finally:
        proc.join()


def _added(row: dict, clock: str) -> float | None:
    t = row[clock]
    if not t.get("judge_run") or "trace_run" not in t:
        return None
    # trace_python holds the trace-only run and its Python side (describe, bind, extension); estimate the eager
    # recording and the cost model at the task's shapes
    return (t.get("trace_python", t["trace_run"]) + t.get("estimate", 0.0)) / t["judge_run"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mkb", type=Path, required=True, help="MultiKernelBench's reference/ directory")
    ap.add_argument("--results", type=Path, required=True, help="a results.jsonl whose rows name the kept kernels")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--filter", action="append", default=[], help="KEY=PATTERNS (name=relu,elu)")
    ap.add_argument("--full", action="store_true", help="trace the blocks whole (no cut): one trial, no recheck")
    ap.add_argument("--label", default="", help="a label for the rows (e.g. the checkout)")
    a = ap.parse_args(argv)
    a.out.mkdir(parents=True, exist_ok=True)
    rows = [json.loads(x) for x in a.results.read_text().splitlines() if x.strip()]
    for f in a.filter:
        key, _, pats = f.partition("=")
        rows = [r for r in rows if any(fnmatch.fnmatch(str(r.get("task" if key == "name" else key, "")), p)
                                       for p in pats.split(","))]
    done = []
    for r in rows:
        kernel = Path(r.get("reverified_from") or r["artifacts"]) / "kernel"
        if not r.get("correct") or not kernel.is_dir():
            continue
        row = {"task": r["task"], "label": a.label, "full": a.full} | _in_own_process(
            a.mkb / r["category"] / f"{r['task']}.py", kernel, a.full)
        row["added_wall"], row["added_cpu"] = _added(row, "wall_s"), _added(row, "cpu_s")
        with (a.out / "cost.jsonl").open("a") as fh:
            fh.write(json.dumps(row) + "\n")
        done.append(row)
        print(f"{row['task']:32} {row['status']:5} judge {row['wall_s'].get('judge_run', 0):6.1f}s "
              f"({row['cpu_s'].get('judge_run', 0):5.1f} cpu) trace {row['wall_s'].get('trace_run', 0):6.1f}s "
              f"({row['cpu_s'].get('trace_run', 0):5.1f} cpu) estimate {row['wall_s'].get('estimate', 0):5.2f}s "
              f"added {100 * (row['added_wall'] or 0):6.1f}% wall {100 * (row['added_cpu'] or 0):6.1f}% cpu "
              f"{row['kernel_us']} us at {row['at']}", flush=True)
    shares = [r["added_cpu"] for r in done if r["added_cpu"] is not None]
    walls = [r["added_wall"] for r in done if r["added_wall"] is not None]
    if shares:
        print(f"median added share over {len(shares)} kernels: {100 * statistics.median(shares):.1f}% of the judging "
              f"runs' CPU seconds, {100 * statistics.median(walls):.1f}% of their wall seconds")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
