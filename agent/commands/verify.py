"""`kernelwright verify PROJECT --task TASK`: judge a kernel project against a task's PyTorch reference."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from kernelwright.terminal_text import printable


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("verify", help="check a kernel project against a task's PyTorch reference (the referee)",
                       description="Build the project, run it on the task's cases (seeded trials; shapes shrunk for the "
                                   "CPU emulation) and compare with the PyTorch reference. Exit 0 when the kernel passes, "
                                   "1 when it fails, 2 on bad input or when no case could be judged.")
    p.add_argument("project", help="a project directory (op_host/ + op_kernel/, or kernel-launch sources) or a "
                                   "kernel-launch source file")
    p.add_argument("--task", required=True, help="a task .py (Model, get_inputs, get_init_inputs) or an NPUKernelBench "
                                                 "task directory")
    p.add_argument("--backend", default="sim", choices=["sim", "cann", "cann-syntax"],
                   help="toolchain (default: sim, the CPU emulation; cann = CANN's compiler and an Ascend NPU; "
                        "cann-syntax only compile-checks, so it cannot verify)")
    p.add_argument("--msopgen", action="store_true",
                   help="cann backend: build msopgen operator projects too (custom OPP package in a private directory)")
    p.add_argument("--tolerance", default=None,
                   help="tolerance preset: auto, default, mkb, npukb, kernelbench, akb, mere (auto, the default: the task's "
                        "benchmark's own preset, e.g. mkb for a MultiKernelBench task; 'default' for a plain .py task)")
    p.add_argument("--soc", default=None, help="SoC profile, e.g. Ascend910B2 (default), Ascend910B4, Ascend910_93")
    p.add_argument("--launch", default=None, help="launch spec JSON for a kernel-launch project (kernel, block_dim, args)")
    p.add_argument("--trials", type=int, default=None, help="seeded trials per case (default: 3 for one case, else 1)")
    p.add_argument("--seed", type=int, default=0, help="base seed (trial t uses seed + t)")
    p.add_argument("--dtype", action="append", default=None, help="run each case in this dtype too (repeatable)")
    p.add_argument("--case", action="append", default=None, help="run only this case id (repeatable)")
    p.add_argument("--budget", type=int, default=None, help="elements per case on the emulation (default 1048576)")
    p.add_argument("--json", action="store_true", help="print the Verdict as JSON")
    p.set_defaults(func=run)


def _fail(message: str) -> int:
    print(printable(f"kernelwright verify: {message}"), file=sys.stderr)
    return 2


def _extra_glue(project_path: Path) -> dict[str, str]:
    """ModelNew modules next to the sources (older project readers do not keep them)."""
    if not project_path.is_dir():
        return {}
    return {f.name: f.read_text(errors="replace") for f in sorted(project_path.glob("*.py")) if "ModelNew" in f.read_text(errors="replace")}


def run(args: argparse.Namespace) -> int:
    from pydantic import ValidationError

    from kernelwright.tools.backends import get_toolchain
    from kernelwright.tools.project import KernelProject, LaunchSpec
    from kernelwright.tools.referee import verify
    from kernelwright.tools.referee.render import print_report
    from kernelwright.tools.referee.tolerance import get_tolerance
    from kernelwright.tools.referee.verify import DEFAULT_BUDGET
    from kernelwright.tools.tasks import load_task

    # None ("auto"): the task's benchmark decides
    tolerance = None if args.tolerance in (None, "auto") else get_tolerance(args.tolerance)
    task = load_task(args.task, dtypes=args.dtype)
    project = KernelProject.from_path(args.project)
    if args.launch:
        try:
            project.launch = LaunchSpec.model_validate_json(Path(args.launch).read_text())
        except (OSError, ValidationError, ValueError) as e:
            return _fail(f"--launch {args.launch}: not a launch spec ({str(e).splitlines()[0]}); expected JSON like "
                         '{"kernel": "add", "block_dim": "cores", "args": [{"kind": "input", "name": "x"}, ...]}')
    toolchain = get_toolchain(args.backend, soc=args.soc, msopgen=args.msopgen)
    problem = toolchain.runtime_problem()
    if problem:
        return _fail(f"--backend {args.backend} cannot run kernels here: {problem}")
    if args.case:
        unknown = [c for c in args.case if c not in {x.id for x in task.cases}]
        if unknown and task.cases:
            return _fail(f"--case {', '.join(unknown)}: task {task.name} has cases {', '.join(c.id for c in task.cases)}")
    try:
        verdict = verify(task, project, toolchain, tolerance=tolerance, trials=args.trials, seed=args.seed, soc=args.soc,
                         budget=args.budget or DEFAULT_BUDGET, cases=args.case, extra_glue=_extra_glue(Path(args.project)))
    finally:
        toolchain.close()   # the cann backend's NPU workers
    if args.json:
        print(verdict.model_dump_json(indent=1))
    else:
        print_report(verdict, rich=sys.stdout.isatty())
    if verdict.status == "error":
        print(printable(f"kernelwright verify: could not judge the kernel: {verdict.summary}"), file=sys.stderr)
        return 2
    return 0 if verdict.ok else 1
