"""`kernelwright doctor`: what this machine can do, and what each finding enables."""
from __future__ import annotations

import argparse
import json
import platform
import shutil


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("doctor", help="report compilers, CANN, NPU and LLM configuration",
                       description="Check the toolchains and services kernelwright can use on this machine.")
    p.add_argument("--json", action="store_true", help="print the findings as JSON")
    p.add_argument("--check", action="store_true", help="also build and run a tiny kernel on the CPU emulation")
    p.set_defaults(func=run)


def _line(name: str, ok: bool | None, found: str, enables: str) -> dict:
    return {"check": name, "status": {True: "ok", False: "missing", None: "info"}[ok], "found": found, "enables": enables}


def findings(check: bool = False) -> list[dict]:
    from kernelwright import __version__
    from kernelwright.agent.doctor_checks import (cann_install, llm_config, npu_devices, npu_state, retrieval_state,
                                                sandbox_state, sim_selftest)
    from kernelwright.tools.buildkit.compiler import NoCompiler, all_compilers, find_compiler

    out = [_line("kernelwright", None, f"{__version__} on Python {platform.python_version()} ({platform.machine()})",
                 "everything below")]
    try:
        chosen = find_compiler()
        others = [c.identity for c in all_compilers() if c.path != chosen.path]
        out.append(_line("C++ compiler", True, f"{chosen.path} ({chosen.identity})" + (f"; also {', '.join(others)}" if others else ""),
                         "the `sim` backend: building and running AscendC kernels on the CPU emulation"))
    except NoCompiler as e:
        out.append(_line("C++ compiler", False, str(e), "the `sim` backend (nothing can be built without it)"))
    sym = shutil.which("llvm-symbolizer") or shutil.which("addr2line")
    out.append(_line("symbolizer", bool(sym), sym or "none (install llvm or binutils)",
                     "file:line locations for run-time findings of the emulation"))
    out.append(sandbox_state())
    out.append(cann_install())
    out.append(npu_devices())
    out.append(npu_state())
    out.append(llm_config())
    out.append(retrieval_state())
    if check:
        out.append(sim_selftest())
    return out


def run(args: argparse.Namespace) -> int:
    rows = findings(check=args.check)
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        from rich.console import Console
        from rich.markup import escape
        from rich.table import Table

        console = Console(force_interactive=False)
        table = Table(title="kernelwright doctor", show_lines=False)
        for col in ("check", "status", "found", "enables"):
            table.add_column(col, overflow="fold")
        style = {"ok": "green", "missing": "yellow", "info": "cyan", "failed": "red"}
        for r in rows:
            table.add_row(escape(r["check"]), f"[{style.get(r['status'], 'white')}]{r['status']}[/]", escape(r["found"]),
                          escape(r["enables"]))
        console.print(table)
    return 1 if any(r["status"] == "failed" for r in rows) else 0


