"""`kernelwright dsl check FILE [--task T]` and `kernelwright dsl lower FILE --out DIR [--task T]`:
parse a DSL program (never executing it), hold it to the static rules, interpret it against a
task's PyTorch reference, and lower it to an msopgen project. Exit 0 when clean, 1 with findings,
2 on bad input."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from kernelwright.terminal_text import printable
from kernelwright.tools.contained_paths import input_problem


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("dsl", help="check a kernel DSL program, or lower it to an AscendC msopgen project",
                       description="The kernel DSL: `check` parses a program, applies the static rules and (with "
                                   "--task) interprets it on the task's shape cases against the PyTorch reference; "
                                   "`lower` writes the generated msopgen project. Exit 0 when clean, 1 with findings, "
                                   "2 on bad input.")
    actions = p.add_subparsers(dest="dsl_action", metavar="ACTION")
    for name, help_text in (("check", "parse, static rules, and interpret against --task"),
                            ("lower", "write the msopgen project (after the same checks)")):
        a = actions.add_parser(name, help=help_text)
        a.add_argument("file", metavar="FILE", help="a DSL program (.dsl.py)")
        a.add_argument("--task", default=None, help="a task .py (Model, get_inputs, get_init_inputs) to check against")
        a.add_argument("--dtype", action="append", default=None, help="also check each case in this dtype (repeatable)")
        a.add_argument("--tolerance", default="auto", help="tolerance preset: auto (the task's benchmark's; the default), "
                       "default, mkb, npukb, kernelbench, ...")
        a.add_argument("--soc", default=None, help="SoC profile (default Ascend910B2)")
        a.add_argument("--json", action="store_true", help="print the report as JSON")
        if name == "lower":
            a.add_argument("--out", required=True, help="directory to write the project into")
            a.add_argument("--name", default=None, help="operator type (default: the task's, else from the kernel name)")
        a.set_defaults(func=run)
    p.set_defaults(func=lambda args: _no_action(p))


def _no_action(p: argparse.ArgumentParser) -> int:
    p.print_help(sys.stderr)
    return 2


def _fail(message: str) -> int:
    print(printable(f"kernelwright dsl: {message}"), file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    from kernelwright.tools.dsl.check import check, expand_dtypes
    from kernelwright.tools.dsl.errors import DslError, findings
    from kernelwright.tools.dsl.lower import LowerError, lower
    from kernelwright.tools.dsl.parse_program import parse_program
    from kernelwright.tools.hardware import load_soc
    from kernelwright.tools.referee.tolerance import check_name
    from kernelwright.tools.tasks import load_task

    path = Path(args.file)
    problem = input_problem(path) or ("a directory" if path.is_dir() else None)
    if problem:
        return _fail(f"{args.file}: {problem}")
    source = path.read_text(encoding="utf-8", errors="replace")
    soc = load_soc(args.soc)
    check_name(args.tolerance)
    task = load_task(args.task) if args.task else None
    try:
        program = parse_program(source, path.name)
    except DslError as e:
        found = findings(e)
        _print(args, {"file": str(path), "ok": False, "diagnostics": [d.model_dump() for d in found]},
               "\n".join(f"{path.name}: {d.render(source)}" for d in found))
        return 1
    worker = None
    if task is not None:
        from kernelwright.tools.tasks.reference import ReferenceWorker
        worker = ReferenceWorker(task)
        expand_dtypes(task, worker, args.dtype)
    try:
        report = check(program, task, tolerance=args.tolerance, soc=soc, worker=worker)
    finally:
        if worker is not None:
            worker.close()
    text = report.render(source)
    payload = {"file": str(path), **report.model_dump()}
    if args.dsl_action == "lower" and report.ok:
        try:
            project = lower(program, args.name or (task.op_type if task else None))
        except LowerError as e:
            return _fail(str(e))
        out = project.write(args.out)
        payload["project"] = {"name": project.name, "dir": str(out), "files": sorted(project.files),
                              "holes": project.meta.get("holes", [])}
        text += f"\nwrote {project.name} to {out} ({', '.join(sorted(project.files))})"
        if project.meta.get("holes"):
            text += f"\n{len(project.meta['holes'])} hole(s) to fill: " + ", ".join(h["name"] for h in project.meta["holes"])
    elif args.dsl_action == "lower":
        text += "\nnot lowered: fix the findings above first"
    _print(args, payload, text)
    return 0 if report.ok else 1


def _print(args, payload: dict, text: str) -> None:
    print(json.dumps(payload, indent=1, default=str) if args.json else printable(text))
