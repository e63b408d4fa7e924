"""`kernelwright build PROJECT`: compile a kernel project on a toolchain and report diagnostics."""
from __future__ import annotations

import argparse
import sys

from kernelwright.terminal_text import printable


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("build", help="compile a kernel project (msopgen directory or kernel-launch source)",
                       description="Compile a kernel project and print structured diagnostics. "
                                   "Exit 0 when it builds, 1 when the kernel fails to build, 2 on bad input.")
    p.add_argument("project", help="a project directory (op_host/ + op_kernel/) or a kernel-launch .cpp/.asc file")
    p.add_argument("--backend", default="sim", choices=["sim", "cann", "cann-syntax"],
                   help="toolchain (default: sim): sim = the CPU emulation; cann = CANN's compiler for the NPU; "
                        "cann-syntax = compile check against CANN's installed headers (no NPU)")
    p.add_argument("--msopgen", action="store_true",
                   help="cann backend: build msopgen operator projects too (custom OPP package in a private directory)")
    p.add_argument("--soc", default=None, help="SoC profile, e.g. Ascend910B2 (default), Ascend910B4, Ascend910_93, Ascend310P3")
    p.add_argument("--json", action="store_true", help="print the BuildResult as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from kernelwright.tools.backends import get_toolchain
    from kernelwright.tools.project import KernelProject

    project = KernelProject.from_path(args.project)
    toolchain = get_toolchain(args.backend, soc=args.soc, msopgen=args.msopgen)
    result = toolchain.build(project)
    if args.json:
        print(result.model_dump_json(indent=2))
    else:
        for d in result.diagnostics:
            print(printable(d.render()))
            for note in d.notes[:4]:
                print(printable(f"  note: {note}"))
        if result.status == "environment_error" and result.log:
            print(printable(result.log[-3000:]), file=sys.stderr)
        summary = {"ok": "built", "compile_error": "failed to compile", "environment_error": "could not build (environment)"}
        extra = f"; variants: {len(result.variants)}" if result.variants else ""
        cached = " (cached)" if result.cache_hits else ""
        print(printable(f"{project.name}: {summary[result.status]} on {result.toolchain} in {result.seconds:.2f} s"
                        f"{cached}{extra}"))
    if result.status == "environment_error":
        return 2
    return 0 if result.ok else 1


