"""What the sandbox costs per step (issue 13): the same command run uncontained (limits and a
process-group kill only), in a sandbox of its own (compiles, `describe`, the reference and trace
workers) and as a step of a build's long-lived run sandbox (host tiling and kernel runs), plus
what starting that run sandbox costs once per build.

Commands: `/usr/bin/true` (the pure overhead) and the Python interpreter starting (`-c pass`, the
reference and trace workers' start, their view holding the interpreter and its packages). Variants
are interleaved in random order so machine load falls on all of them alike; wall-clock median and
p90 per step (CPU time is not comparable: a sandboxed step's processes are reaped inside it).

    python -m kernelwright.evals.sandbox_overhead [--reps 30] [--out overhead.json]
"""
from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable


def _timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    out = fn()
    wall = time.perf_counter() - start
    if getattr(out, "returncode", 0) != 0 or getattr(out, "sandbox_error", ""):
        raise SystemExit(f"a measured step failed: {out}")
    return wall


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=30, help="steps per variant (default 30)")
    ap.add_argument("--out", type=Path, help="write the measurements as JSON here")
    args = ap.parse_args(argv)

    from kernelwright.tools.buildkit import sandbox
    from kernelwright.tools.buildkit.executor import Executor
    from kernelwright.tools.buildkit.sandbox import View

    st = sandbox.status()
    if not st.contained:
        print(f"the sandbox is not available here ({st.detail}): nothing to compare")
        return 2
    work = Path(tempfile.mkdtemp(prefix="kw-overhead-"))
    true, python = shutil.which("true") or "/usr/bin/true", sys.executable
    exe_view, py_view = View(writable=(str(work),), readable=(true,)), View(writable=(str(work),), python=True)
    start = time.perf_counter()
    executor = Executor((true,))
    executor_start = time.perf_counter() - start
    # the executor's init runs after Popen returns: the first step waits for it (measured apart)
    first_step = _timed(lambda: executor.run([true], cwd=executor.new_dir()))
    variants: dict[str, Callable[[], object]] = {
        "true: uncontained": lambda: sandbox.run([true], cwd=work),
        "true: own sandbox": lambda: sandbox.run([true], cwd=work, view=exe_view),
        "true: run-sandbox step": lambda: executor.run([true], cwd=executor.new_dir()),
        "python -c pass: uncontained": lambda: sandbox.run([python, "-c", "pass"], cwd=work),
        "python -c pass: own sandbox": lambda: sandbox.run([python, "-c", "pass"], cwd=work, view=py_view),
    }
    samples: dict[str, list[float]] = {k: [] for k in variants}
    try:
        for _ in range(args.reps):
            for name in random.sample(list(variants), len(variants)):
                samples[name].append(_timed(variants[name]))
    finally:
        executor.close()
        shutil.rmtree(work, ignore_errors=True)
    rows = []
    print(f"sandbox: {st.detail}; {args.reps} steps per variant")
    print(f"{'variant':32} {'median ms':>10} {'p90 ms':>8}")
    for name, got in samples.items():
        walls = sorted(got)
        row = {"variant": name, "median_ms": round(statistics.median(walls) * 1000, 1),
               "p90_ms": round(walls[int(0.9 * (len(walls) - 1))] * 1000, 1)}
        rows.append(row)
        print(f"{name:32} {row['median_ms']:>10} {row['p90_ms']:>8}")
    once = {"executor_start_ms": round(executor_start * 1000, 1), "executor_first_step_ms": round(first_step * 1000, 1)}
    print(f"run sandbox, once per build: start {once['executor_start_ms']} ms, first step {once['executor_first_step_ms']} ms")
    if args.out:
        args.out.write_text(json.dumps({"sandbox": st.detail, "reps": args.reps, "rows": rows, **once}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
