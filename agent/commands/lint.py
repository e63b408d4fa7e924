"""`kernelwright lint FILE...`: check AscendC sources for invented or misused APIs before compiling."""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from kernelwright.agent.config import load_config
from kernelwright.errors import UserError
from kernelwright.knowledge.versions import target_cann
from kernelwright.terminal_text import printable


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("lint", help="check AscendC sources for invented APIs, wrong argument counts and dtype names",
                       description="Check AscendC sources against the API catalog (built from the knowledge base's "
                                   "API cards) before compiling. Exit 0 when clean, 1 with findings, 2 on bad input.")
    p.add_argument("files", nargs="+", metavar="FILE", help="AscendC sources (.cpp/.h/.asc/...) or folders of them")
    p.add_argument("--cann", choices=["8.x", "9.x"],
                   help="API level to check against (default: toolchain.cann from the config / KERNELWRIGHT_CANN, "
                        "else the installed CANN's major version, else 8.x)")
    p.add_argument("--config", help="config file (YAML/TOML); default $KERNELWRIGHT_CONFIG")
    p.add_argument("--json", action="store_true", help="print the findings as JSON")
    p.set_defaults(func=run)


def _sources(args: list[str], suffixes: tuple[str, ...]) -> list[Path]:
    files: list[Path] = []
    for arg in args:
        path = Path(arg)
        if path.is_dir():
            files.extend(sorted(p for p in path.rglob("*") if p.is_file() and p.suffix in suffixes))
        elif not path.is_file():
            raise UserError(f"{arg}: no such file or folder")
        elif path.suffix not in suffixes:
            raise UserError(f"{arg}: not an AscendC source (expected one of {', '.join(suffixes)})")
        else:
            files.append(path)
    if not files:
        raise UserError(f"no AscendC sources found in {', '.join(args)} (looked for {', '.join(suffixes)})")
    return files


def run(args: argparse.Namespace) -> int:
    from kernelwright.tools.lint import SOURCE_SUFFIXES, lint_file

    files = _sources(args.files, SOURCE_SUFFIXES)
    cann = args.cann or target_cann(load_config(args.config).toolchain.cann)
    found = [d for path in files for d in lint_file(path, cann=cann)]
    if args.json:
        print(json.dumps({"files": [str(f) for f in files], "cann": cann,
                          "diagnostics": [d.model_dump() for d in found]}, indent=1))
    else:
        for d in found:
            print(printable(d.format()))
        print(f"{len(found)} finding(s) in {len(files)} file(s) (CANN {cann})")
    return 1 if found else 0
