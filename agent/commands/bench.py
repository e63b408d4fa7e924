"""`kernelwright bench SUITE`: the agent over a whole benchmark, headless and resumable. Exit 0 when
every selected run has a result (whatever the pass rate), 2 on bad input, 3 when interrupted
(rerun the same command to finish)."""
from __future__ import annotations

import argparse
import sys


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("bench", help="run the agent over a benchmark suite (parallel, resumable) and report rates",
                       description="Run every task of SUITE (each try in its own worker process, here or as a Ray task "
                                   "on a cluster), append one line per finished try to OUT/results.jsonl, and write "
                                   "OUT/summary.json, OUT/summary.csv and OUT/report.html. Rerunning the same command "
                                   "skips finished tries. Exit 0 when all tries have results, 2 on bad input, 3 when "
                                   "interrupted.")
    p.add_argument("suite", metavar="SUITE", help="`builtin` (our suite), a MultiKernelBench / KernelBench / "
                                                  "NPUKernelBench tree, a task .py, or a list file of task paths")
    p.add_argument("--model", default=None, help="builtin (no LLM), replay:FILE, or a litellm name; `{task}` in it is "
                                                 "replaced by each task's name (default: $KERNELWRIGHT_MODEL, else builtin)")
    p.add_argument("--backend", default="sim", choices=["sim", "cann", "cann-syntax"], help="toolchain (default sim)")
    p.add_argument("--jobs", "-j", type=int, default=None, help="tries run in parallel (default 1; with --executor ray, "
                                                                "as many as the cluster's resources hold)")
    p.add_argument("--attempts", "-k", type=int, default=1, help="independent tries per task, for pass@k (default 1)")
    p.add_argument("--filter", action="append", default=[], metavar="KEY=PATTERNS",
                   help="category=softmax,loss | level=1 | name=relu* | a bare pattern; repeat to narrow further")
    p.add_argument("--tolerance", default="auto", help="tolerance preset: auto (the default: each task's benchmark "
                   "preset, ours for a task from no benchmark), default, mkb, npukb, kernelbench, akb, mere")
    p.add_argument("--soc", default=None, help="SoC profile (default Ascend910B2)")
    p.add_argument("--config", default=None, help="agent config file (.yaml or .toml)")
    p.add_argument("--timeout", type=float, default=1800.0, help="wall-clock seconds per try before it is killed and "
                                                                  "recorded as timeout (default 1800)")
    p.add_argument("--max-steps", type=int, default=None, help="cap on node runs per try")
    p.add_argument("--executor", choices=["local", "ray"], default=None,
                   help="local worker processes, or Ray tasks (default: the config's bench.executor, else local)")
    p.add_argument("--address", default=None, help="Ray cluster to join (default: the config's bench.address, else a "
                                                   "local Ray instance)")
    p.add_argument("--out", default="bench-out", help="results and reports directory (default ./bench-out)")
    p.add_argument("--list", action="store_true", help="print the selected tasks and exit")
    p.set_defaults(func=run)


def _fail(message: str) -> int:
    print(f"kernelwright bench: {message}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from pydantic import ValidationError

    from kernelwright.agent.config import load_config
    from kernelwright.evals.bench.lock import out_lock
    from kernelwright.evals.bench.reports import text_summary, write_reports
    from kernelwright.evals.bench.runner import BenchOptions, check_settings, run_bench, select

    import os
    model = args.model or os.environ.get("KERNELWRIGHT_MODEL") or "builtin"
    try:
        opts = BenchOptions(suite=args.suite, out=Path(args.out), model=model, backend=args.backend, jobs=args.jobs,
                            attempts=args.attempts, filters=args.filter, tolerance=args.tolerance, soc=args.soc,
                            config=args.config, timeout_s=args.timeout, max_steps=args.max_steps)
    except ValidationError as e:
        return _fail("; ".join(f"--{'-'.join(str(x) for x in err['loc'])}: {err['msg']}" for err in e.errors()))
    tasks = select(opts)
    if args.list:
        for t in tasks:
            print(f"{t.name}\t{t.category or ''}\t{t.level or ''}\t{t.source}")
        return 0
    # every try loads this configuration: a bad value stops the bench here, not once per task
    model_name = None if "{task}" in model else model            # per-task transcripts are checked by each try
    cfg = load_config(opts.config, overrides={"models.default.name": model_name, "toolchain.backend": opts.backend,
                                              "toolchain.tolerance": opts.tolerance, "toolchain.soc": opts.soc,
                                              "agent.max_steps": opts.max_steps, "bench.executor": args.executor,
                                              "bench.address": args.address})
    opts = opts.model_copy(update=cfg.bench.model_dump())
    interrupted = False
    with out_lock(opts.out):           # held for the whole run, whichever executor runs the tries
        check_settings(opts)
        try:
            records = run_bench(opts, tasks)
        except KeyboardInterrupt:
            interrupted = True
            from kernelwright.evals.bench.records import latest, read_records
            names = {t.name for t in tasks}
            records = [r for r in latest(read_records(opts.out / "results.jsonl")).values()
                       if r.task in names and r.attempt < opts.attempts]
        summary = write_reports(opts.out, records, suite=opts.suite, model=model, backend=opts.backend,
                                tolerance=opts.tolerance, attempts=opts.attempts, total_tasks=len(tasks))
    print(text_summary(summary))
    print(f"reports: {opts.out / 'summary.json'}, {opts.out / 'summary.csv'}, {opts.out / 'report.html'}")
    if interrupted:
        print("kernelwright bench: interrupted; rerun the same command to finish the remaining tries", file=sys.stderr)
        return 3
    return 0
