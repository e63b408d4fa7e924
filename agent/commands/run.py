"""`kernelwright run TASK`: one task end to end; prints the verdict and where the kernel project and the
trajectory are. Exit 0 passed, 1 failed or out of budget, 2 bad input or environment, 3 interrupted."""
from __future__ import annotations

import argparse
import json
import sys

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
    p.add_argument("--backend", default=None, choices=["sim", "cann", "cann-syntax"],
                   help="toolchain (default: sim, the CPU emulation; cann needs CANN and an NPU)")
    p.add_argument("--out", default=None, help="artifact directory of this run (default: runs/<task>-<time>)")
    p.add_argument("--config", default=None, help="config file (.yaml or .toml); env and flags override it")
    p.add_argument("--resume", default=None, metavar="RUN_ID", help="continue a checkpointed run (its directory name)")
    p.add_argument("--soc", default=None, help="SoC profile, e.g. Ascend910B2 (default)")
    p.add_argument("--tolerance", default=None, help="tolerance preset (default, mkb, npukb, kernelbench, akb)")
    p.add_argument("--max-steps", type=int, default=None, help="cap on node runs over the whole task")
    p.add_argument("--json", action="store_true", help="print the result as JSON (progress goes to stderr)")
    p.set_defaults(func=run)


def _progress(mode: str, chunk) -> None:
    from kernelwright.agent.events import describe
    line = describe(mode, chunk)
    if line:
        print(line, file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> int:
    from kernelwright.agent.api import NoSuchRun, generate
    from kernelwright.agent.config import load_config
    from kernelwright.tools.tasks import TaskError

    if not args.task and not args.resume:
        print("kernelwright run: give a TASK (or --resume RUN_ID)", file=sys.stderr)
        return 2
    try:
        cfg = load_config(args.config, overrides={"models.default.name": args.model, "toolchain.backend": args.backend,
                                                  "toolchain.soc": args.soc, "toolchain.tolerance": args.tolerance,
                                                  "agent.max_steps": args.max_steps})
    except (ValueError, OSError) as e:          # pydantic's ValidationError is a ValueError
        print(f"kernelwright run: bad configuration: {e}", file=sys.stderr)
        return 2
    try:
        result = generate(args.task, config=cfg, out=args.out, resume=args.resume, on_event=_progress)
    except (TaskError, NoSuchRun) as e:
        print(f"kernelwright run: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("kernelwright run: interrupted; continue with --resume RUN_ID (the artifact directory's name)",
              file=sys.stderr)
        return 3
    if args.json:
        print(json.dumps(result.model_dump(mode="json"), indent=1))
    else:
        print(f"{result.status.upper()}: {result.reason}")
        if result.verdict:
            print(f"verdict: {result.verdict['status']} ({result.verdict['stage']}): {result.verdict['summary']}")
        if result.kernel:
            print(f"kernel project: {result.kernel}")
        print(f"trajectory: {result.artifacts} (run.json, model_calls.jsonl, events.jsonl); run id {result.run_id}")
    return EXIT.get(result.status, 1)
