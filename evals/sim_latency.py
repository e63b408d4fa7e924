"""Build + run latency of the CPU emulation over the good kernels of the corpus.

For every kernel: the wall time of build + run of its first case with the runtime already
built but the kernel not cached (cold), then the same again from the build cache (cached).
Runs in a temporary KERNELWRIGHT_HOME so the user's cache is neither used nor touched.

    python -m kernelwright.evals.sim_latency [--out latency.json] [NAME ...]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


def _measure(tc: Any, entry: Any) -> dict[str, Any]:
    project, case = entry.project(), entry.cases()[0]
    row: dict[str, Any] = {"kernel": entry.name, "kind": project.kind}
    for phase in ("cold", "cached"):
        start = time.perf_counter()
        build = tc.build(project)
        built = time.perf_counter()
        run = tc.run(build, case) if build.ok else None
        done = time.perf_counter()
        row[f"{phase}_build_s"] = round(built - start, 3)
        row[f"{phase}_run_s"] = round(done - built, 3)
        row[f"{phase}_s"] = round(done - start, 3)
        row[f"{phase}_status"] = run.status if run else build.status
    return row


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, help="write the measurements as JSON here")
    ap.add_argument("names", nargs="*", help="only these corpus kernels")
    args = ap.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="kw-latency-") as home:
        os.environ["KERNELWRIGHT_HOME"] = home  # read at call time by the cache
        from kernelwright.tools.sim import corpus
        from kernelwright.tools.buildkit.compiler import find_compiler
        from kernelwright.tools.sim.runtime_lib import ensure_runtime
        from kernelwright.tools.sim.toolchain import SimToolchain

        tc = SimToolchain()
        start = time.perf_counter()
        ensure_runtime(find_compiler(), tc.soc.cce_aicore)   # warm runtime: built once, not measured per kernel
        runtime_s = time.perf_counter() - start
        entries = [e for e in corpus.load(kind="good") if not args.names or e.name in args.names]
        rows = []
        print(f"runtime built in {runtime_s:.1f} s ({find_compiler().identity}); {len(entries)} kernels")
        print(f"{'kernel':28} {'kind':14} {'cold':>7} {'(build':>7} {'run)':>6} {'cached':>7}  status")
        for e in entries:
            r = _measure(tc, e)
            rows.append(r)
            print(f"{r['kernel']:28} {r['kind']:14} {r['cold_s']:7.2f} {r['cold_build_s']:7.2f} {r['cold_run_s']:6.2f} "
                  f"{r['cached_s']:7.2f}  {r['cold_status']}")
    if not rows:
        print("no kernels measured", file=sys.stderr)
        return 1
    summary: dict[str, Any] = {
        "kernels": len(rows), "runtime_build_s": round(runtime_s, 2), "compiler": find_compiler().identity,
        "median_cold_s": round(statistics.median(r["cold_s"] for r in rows), 3),
        "median_cached_s": round(statistics.median(r["cached_s"] for r in rows), 3),
    }
    for kind in sorted({r["kind"] for r in rows}):
        mine = [r for r in rows if r["kind"] == kind]
        summary[f"median_cold_s_{kind}"] = round(statistics.median(r["cold_s"] for r in mine), 3)
    print("medians: cold {median_cold_s:.2f} s, cached {median_cached_s:.2f} s".format(**summary),
          "| " + ", ".join(f"{k.removeprefix('median_cold_s_')} cold {v:.2f} s" for k, v in summary.items()
                           if k.startswith("median_cold_s_")))
    if args.out:
        args.out.write_text(json.dumps({"summary": summary, "kernels": rows}, indent=1))
    return 0 if all(r["cold_status"] == "ok" for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
