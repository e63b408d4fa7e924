"""The Ray executor against the local one: the same bench (suite, filter, --jobs) run once with each,
the verdicts compared try by try, and the wall times. Per-try overhead = (Ray wall - local wall) /
tries; the Ray wall includes starting the local Ray instance (or joining --address), which the
driver reports and which is also shown apart.

Both runs share one KERNELWRIGHT_HOME, warmed by an unmeasured local run first, so neither pays for
building the emulation runtime or kernels the other built. Needs `kernelwright[ray]`.

    python -m kernelwright.evals.executor_overhead [--suite builtin] [--filter name=relu_ragged,abs_scale_shift]
        [--jobs 2] [--out overhead.json]
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


def _bench(kernelwright: Path, args: argparse.Namespace, executor: str, out: Path, env: dict[str, str]) -> dict[str, Any]:
    cmd = [str(kernelwright), "bench", args.suite, "--executor", executor, "--jobs", str(args.jobs), "--out", str(out)]
    cmd += [x for f in args.filter for x in ("--filter", f)]
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} exited {proc.returncode}:\n{proc.stderr[-2000:]}")
    ready = re.search(r"ray: .*\(ready in ([0-9.]+) s\)", proc.stderr)
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines() if line.strip()]
    return {"command": " ".join(cmd), "wall_s": round(wall, 2), "ray_ready_s": float(ready.group(1)) if ready else 0.0,
            "tries": len(rows),
            "try_s": round(sum(r["seconds"] for r in rows), 2),
            "verdicts": {f"{r['task']}#{r['attempt']}": [r["status"], r["compiled"], r["correct"]] for r in rows}}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--suite", default="builtin")
    ap.add_argument("--filter", action="append", default=None, help="as bench --filter (default name=relu_ragged,abs_scale_shift)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", type=Path, help="write the measurements as JSON here")
    args = ap.parse_args(argv)
    args.filter = args.filter or ["name=relu_ragged,abs_scale_shift"]
    kernelwright = Path(sys.executable).with_name("kernelwright")

    with tempfile.TemporaryDirectory(prefix="kw-overhead-") as tmp:
        root = Path(tmp)
        env = dict(os.environ, KERNELWRIGHT_HOME=os.environ.get("KERNELWRIGHT_HOME") or str(root / "home"))
        warm = _bench(kernelwright, args, "local", root / "warm", env)
        print(f"warm-up (local, not measured): {warm['tries']} tries in {warm['wall_s']:.1f} s")
        runs = {e: _bench(kernelwright, args, e, root / e, env) for e in ("local", "ray")}

    local, ray = runs["local"], runs["ray"]
    same = local["verdicts"] == ray["verdicts"]
    overhead = (ray["wall_s"] - local["wall_s"]) / max(local["tries"], 1)
    steady = (ray["wall_s"] - ray["ray_ready_s"] - local["wall_s"]) / max(local["tries"], 1)
    for name, r in runs.items():
        print(f"{name:5}  wall {r['wall_s']:7.1f} s  tries {r['tries']}  sum of try times {r['try_s']:7.1f} s")
        print(f"       {r['command']}")
    print(f"verdicts {'identical' if same else 'DIFFER'}: " + ", ".join(f"{k} {v[0]}" for k, v in sorted(local["verdicts"].items())))
    if not same:
        print(f"  ray: {ray['verdicts']}")
    print(f"Ray overhead: {overhead:+.2f} s per try (at --jobs {args.jobs}), {ray['wall_s'] - local['wall_s']:+.1f} s in total; "
          f"starting Ray took {ray['ray_ready_s']:.1f} s, so {steady:+.2f} s per try once it runs")
    if args.out:
        args.out.write_text(json.dumps({"runs": runs, "same_verdicts": same, "overhead_per_try_s": round(overhead, 2),
                                        "overhead_per_try_after_start_s": round(steady, 2),
                                        "jobs": args.jobs, "filter": args.filter}, indent=1) + "\n")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
