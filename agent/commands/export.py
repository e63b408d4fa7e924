"""`kernelwright export PROJECT --format F --out PATH`: write a kernel project in a benchmark's format."""
from __future__ import annotations

import argparse
import sys

from kernelwright.terminal_text import printable

FORMAT_NAMES = ["mkb", "mkb-direct", "npukb", "akb", "cann"]


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "export", help="write a kernel project in a benchmark's submission format",
        description="Read PROJECT in any form kernelwright knows (a project directory, a kernel source, or a "
                    "MultiKernelBench / NPUKernelBench / AscendKernelBench submission) and write it as FORMAT. "
                    "Exit 0 on success, 2 on bad input or a project the format cannot carry.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="formats:\n"
               "  mkb         MultiKernelBench six strings (.py file); msopgen operators\n"
               "  mkb-direct  MultiKernelBench direct-launch JSON; kernel-launch projects\n"
               "  npukb       NPUKernelBench three sections, or <kernel_impl> for kernel-only projects\n"
               "  akb         AscendKernelBench custom_op.asc + model_new.py (directory); kernel-launch projects\n"
               "  cann        CANN msopgen project directory with CMake files and build.sh")
    p.add_argument("project", help="project directory, kernel source, or submission file")
    p.add_argument("--format", "-f", required=True, choices=FORMAT_NAMES, dest="fmt", help="output format")
    p.add_argument("--out", "-o", required=True, help="output file (mkb, mkb-direct, npukb) or directory (akb, cann)")
    p.add_argument("--name", default=None,
                   help="operator name to export under (a task name such as `relu` or `10_relu`; sanitised)")
    p.add_argument("--generate-glue", action="store_true",
                   help="mkb: write a default aclnn binding and ModelNew when the project has none")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from kernelwright.tools.formats import export, load

    try:
        project = load(args.project)
        result = export(project, args.fmt, args.out, name=args.name, generate_glue=args.generate_glue)
    except OSError as e:
        print(f"kernelwright export: {e.filename or args.out}: {e.strerror}", file=sys.stderr)
        return 2
    for note in result.notes:
        print(printable(f"note: {note}"), file=sys.stderr)
    print(f"{project.name}: wrote {args.fmt} ({result.name}) to {', '.join(result.paths) if len(result.paths) <= 3 else args.out}")
    return 0
