"""What estimating a kernel adds to its emulation, over the good kernels of the corpus.

For every kernel and case: the emulated run with the instruction trace off (`KW_SIM_TRACE=0`) and on, interleaved
(recording in the emulator and reading it back are inside the run's wall time), then the cost model
over the trace (`estimate`) on its SoC. The overhead of a kernel is
(run with trace - run without + estimate) / run without; the goal is a median under 20 %. The
estimate alone over the untraced run is reported too: on a busy machine it is the steadier number.
Each run is repeated and its fastest time kept (the machine is shared). Runs in a temporary
KERNELWRIGHT_HOME so the user's cache is neither used nor touched.

    python -m kernelwright.evals.perf_overhead [--repeat 3] [--out overhead.json] [NAME ...]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any


def _fastest(tc: Any, build: Any, case: Any, repeat: int) -> dict[bool, tuple[float, Any]]:
    """The fastest of `repeat` runs with the trace off and on, interleaved so load drifts hit both alike."""
    best: dict[bool, tuple[float, Any]] = {False: (float("inf"), None), True: (float("inf"), None)}
    for _ in range(repeat):
        for trace in (False, True):
            os.environ["KW_SIM_TRACE"] = "1" if trace else "0"
            r = tc.run(build, case)
            if r.seconds < best[trace][0]:
                best[trace] = (r.seconds, r)
    os.environ.pop("KW_SIM_TRACE", None)
    return best


def _measure(tc: Any, entry: Any, repeat: int) -> list[dict[str, Any]]:
    from kernelwright.tools.perf import estimate
    build = tc.build(entry.project())
    rows = []
    for i, case in enumerate(entry.cases() if build.ok else []):
        runs = _fastest(tc, build, case, repeat)
        (off, plain), (on, traced) = runs[False], runs[True]
        if traced.status != "ok" or traced.trace is None:
            rows.append({"kernel": entry.name, "case": i, "status": traced.status})
            continue
        start = time.perf_counter()
        est = estimate(traced.trace, case.soc or tc.soc)
        est_s = time.perf_counter() - start
        records = sum(len(b.records) for lt in traced.trace.launches for b in lt.blocks)
        rows.append({"kernel": entry.name, "case": i, "status": traced.status, "untraced_off": plain.trace is None,
                     "run_s": round(off, 4), "traced_run_s": round(on, 4), "estimate_s": round(est_s, 4),
                     "records": records, "overhead": round((on - off + est_s) / off, 4),
                     "estimate_share": round(est_s / off, 4),
                     "estimate_us": est.kernel_us})
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", type=Path, help="write the measurements as JSON here")
    ap.add_argument("names", nargs="*", help="only these corpus kernels")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="kw-overhead-") as home:
        os.environ["KERNELWRIGHT_HOME"] = home
        from kernelwright.tools.sim import corpus
        from kernelwright.tools.sim.toolchain import SimToolchain
        tc = SimToolchain()
        entries = [e for e in corpus.load(kind="good") if not args.names or e.name in args.names]
        rows: list[dict[str, Any]] = []
        print(f"{'kernel':26} {'case':>4} {'run s':>7} {'traced':>7} {'estimate':>8} {'records':>8} {'overhead':>8}")
        for e in entries:
            for r in _measure(tc, e, args.repeat):
                rows.append(r)
                if r["status"] != "ok":
                    print(f"{r['kernel']:26} {r['case']:4d}  {r['status']}")
                    continue
                print(f"{r['kernel']:26} {r['case']:4d} {r['run_s']:7.3f} {r['traced_run_s']:7.3f} "
                      f"{r['estimate_s']:8.4f} "
                      f"{r['records']:8d} {100 * r['overhead']:7.1f}%")
    ok = [r for r in rows if r["status"] == "ok"]
    if not ok:
        print("nothing measured")
        return 1
    over = sorted(r["overhead"] for r in ok)
    summary = {"runs": len(ok), "median_overhead": statistics.median(over),
               "p90_overhead": over[int(0.9 * (len(over) - 1))],
               "max_overhead": over[-1], "median_estimate_s": statistics.median(r["estimate_s"] for r in ok),
               "median_estimate_share": statistics.median(r["estimate_share"] for r in ok),
               "switch_worked": all(r["untraced_off"] for r in ok)}
    print(f"{len(ok)} runs: median overhead {100 * summary['median_overhead']:.1f}% (goal < 20%), "
          f"p90 {100 * summary['p90_overhead']:.1f}%, max {100 * summary['max_overhead']:.1f}%; "
          f"median estimate {1000 * summary['median_estimate_s']:.1f} ms "
          f"({100 * summary['median_estimate_share']:.1f}% of the untraced run alone)")
    if args.out:
        args.out.write_text(json.dumps({"summary": summary, "runs": rows}, indent=1))
    return 0 if summary["median_overhead"] < 0.2 else 1


if __name__ == "__main__":
    raise SystemExit(main())
