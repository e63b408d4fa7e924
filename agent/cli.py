"""The `kernelwright` command: a thin dispatcher over one module per subcommand.

Each module in `kernelwright.agent.commands` exposes `register(subparsers)` and sets
`func(args) -> int` on its parser. Modules are imported here, but each keeps its heavy
imports inside `func`, so `kernelwright --help` stays fast. Bad input of any command (a
`kernelwright.errors.UserError`) is reported here, once: one line on stderr, exit 2.
"""
from __future__ import annotations

import argparse
import importlib
import sys

from kernelwright import __version__
from kernelwright.errors import UserError
from kernelwright.terminal_text import printable

COMMANDS = ["doctor", "build", "docs", "lint", "export", "verify", "run", "bench", "chat", "mcp", "dsl"]


def make_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kernelwright",
        description="Write, check and repair AscendC kernels (CPU emulation by default; CANN/NPU when present).",
    )
    parser.add_argument("--version", action="version", version=f"kernelwright {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"kernelwright.agent.commands.{name}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = make_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        if args.command is None:          # plain `kernelwright`: the interactive session
            args = parser.parse_args(["chat"])
        else:
            parser.print_help()
            return 0
    try:
        return int(args.func(args) or 0)
    except UserError as e:
        message = "; ".join(line.strip() for line in str(e).splitlines() if line.strip())
        print(printable(f"kernelwright {args.command}: {message}"), file=sys.stderr)
        return e.exit_code


if __name__ == "__main__":
    sys.exit(main())
