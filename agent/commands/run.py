"""`kernelwright run TASK`: one task end to end; prints the verdict and where the kernel project and the
trajectory are. Exit 0 passed, 1 failed or out of budget, 2 bad input or environment, 3 interrupted."""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from kernelwright.agent.perf.speed import phase_line
from kernelwright.terminal_text import printable

EXIT = {"passed": 0, "failed": 1, "budget_exhausted": 1, "environment_error": 2, "interrupted": 3}


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="write, verify and repair a kernel for one task (plan -> DSL -> AscendC -> referee)",
                       description="Plan the kernel, write and check a DSL program, lower it to an AscendC project, "
                                   "verify it against the task's PyTorch reference and repair it until it passes or "
                                   "its budget runs out. Without a model the builtin writer covers the patterns it "
                                   "knows. Exit 0 passed, 1 failed or budget exhausted, 2 bad input or environment "
                                   "error, 3 interrupted (resume with --resume RUN_ID).")
    p.add_argument("task", nargs="?", help="a task .py (Model, get_inputs, get_init_inputs) or an NPUKernelBench task "
                                           "directory (omit with --resume)")
    p.add_argument("--model", default=None, help="builtin (no LLM), replay:FILE (a recorded model_calls.jsonl), or a "
                                                 "litellm model name (default: $KERNELWRIGHT_MODEL, else builtin)")
    p.add_argument("--backend", default=None, help="toolchain: sim (default, the CPU emulation), cann (needs CANN and "
                                                   "an NPU) or cann-syntax (compile check only)")
    p.add_argument("--out", default=None, help="artifact directory of this run (default: runs/<task>-<time>)")
    p.add_argument("--config", default=None, help="config file (.yaml or .toml); env and flags override it")
    p.add_argument("--resume", default=None, metavar="RUN_ID",
                   help="continue a checkpointed run (its directory name) with the settings it was started with")
    p.add_argument("--soc", default=None, help="SoC profile, e.g. Ascend910B2 (default)")
    p.add_argument("--tolerance", default=None, help="tolerance preset (default, mkb, npukb, kernelbench, akb)")
    p.add_argument("--max-steps", type=int, default=None, help="cap on node runs over the whole task")
    add_set_option(p)
    p.add_argument("--json", action="store_true", help="print the result as JSON (progress goes to stderr)")
    p.set_defaults(func=run)


def add_set_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="a setting by its config key (agent.max_llm_calls=50) or flag name (model=NAME, tolerance=mkb); "
                        "the only way to change a setting of a resumed run (the change is recorded in the run)")


def settings_asked(args: argparse.Namespace, flags: dict[str, Any]) -> dict[str, Any]:
    """The `--set` values, plus (on a new run) the setting flags. On --resume a setting flag is refused:
    the run keeps what it was started with unless the change is named with --set."""
    import yaml

    from kernelwright.agent.config import dotted
    from kernelwright.errors import ConfigError
    sets = {}
    for item in args.set:
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise ConfigError(f"--set {item}: expected KEY=VALUE, e.g. --set model=openai/gpt-4o")
        sets[dotted(key.strip())] = yaml.safe_load(value) if value.strip() else None
    given = [f"--{flag}" for flag, value in flags.items() if value is not None]
    if args.resume and given:
        raise ConfigError(f"--resume continues run {args.resume} with the settings it was started with; "
                          f"{' '.join(given)} would change them midway: name the change with --set (e.g. --set "
                          f"{given[0][2:]}=VALUE; it is recorded in the run) or leave {given[0]} out")
    return sets if args.resume else {dotted(flag): v for flag, v in flags.items()} | sets


def _progress(mode: str, chunk) -> None:
    from kernelwright.agent.events import describe
    line = describe(mode, chunk)
    if line:
        print(printable(line), file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> int:
    from kernelwright.agent.api import generate
    from kernelwright.agent.config import load_config

    if not args.task and not args.resume:
        print("kernelwright run: give a TASK (or --resume RUN_ID)", file=sys.stderr)
        return 2
    asked = settings_asked(args, {"model": args.model, "backend": args.backend, "soc": args.soc,
                                  "tolerance": args.tolerance, "max-steps": args.max_steps})
    # on --resume the config file and the environment only say where the runs are: the run has its settings
    cfg = load_config(args.config, overrides=None if args.resume else asked)
    try:
        result = generate(args.task, config=cfg, out=args.out, resume=args.resume, changes=asked if args.resume else None,
                          on_event=_progress)
    except KeyboardInterrupt:
        print("kernelwright run: interrupted; continue with --resume RUN_ID (the artifact directory's name)",
              file=sys.stderr)
        return 3
    if args.json:
        print(json.dumps(result.model_dump(mode="json"), indent=1))
    else:
        print(printable(f"{result.status.upper()}: {result.reason}"))
        if result.verdict:
            v = result.verdict
            print(printable(f"verdict: {v['status']} ({v['stage']}): {v['summary']}"))
        if result.perf:
            print(printable(phase_line(result.perf)))
        if result.kernel:
            print(f"kernel project: {result.kernel}")
        print(f"trajectory: {result.artifacts} (run.json, model_calls.jsonl, events.jsonl); run id {result.run_id}")
    return EXIT.get(result.status, 1)
