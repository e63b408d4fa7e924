"""A short staged report of a verdict for people: plain text, or rich colours on a terminal."""
from __future__ import annotations

from kernelwright.terminal_text import printable
from kernelwright.tools.referee.verdict import CaseRun, Verdict

_MARK = {"pass": "green", "fail": "red", "error": "yellow", "skipped": "dim"}


def _shapes(run: CaseRun) -> str:
    if run.shrunk and run.original_shapes != run.run_shapes:
        return f"{run.original_shapes} -> {run.run_shapes}"
    return str(run.run_shapes or run.original_shapes)


def report_lines(v: Verdict, *, max_mismatches: int = 3) -> list[tuple[str, str]]:
    """(style, text) lines; style is a status name or "" for plain."""
    lines = [("", f"verify {v.project} against task {v.task} ({v.backend}, {v.soc}, tolerance {v.tolerance})")]
    for s in v.stages:
        lines.append((s.status, f"  {s.name:<8} {s.status:<7} {s.summary}"))
        for f in s.findings[:6]:
            lines.append(("fail" if f.startswith("cheat") else "", f"           {f}"))
        for d in s.diagnostics[:5]:
            lines.append(("", "           " + d.render().replace("\n", "\n           ")))
    if v.runs:
        lines.append(("", "cases:"))
    for r in v.runs:
        label = "recheck " if r.label == "recheck" else ""
        lines.append((r.status, f"  {r.case:<18} {label}trial {r.trial} seed {r.seed:<7} {r.status:<7} {_shapes(r)}"))
        if r.status in ("fail", "error", "skipped") and r.reason and not r.mismatches:
            lines.append(("", f"      {r.reason[:600]}"))
        for note in r.notes[:3] if r.status != "pass" else []:
            lines.append(("", f"      note: {note[:300]}"))
    for case, why in v.skipped_cases.items():
        if not any(r.case == case for r in v.runs):
            lines.append(("skipped", f"  {case:<18} not run: {why[:300]}"))
    shown = [m for r in v.runs for m in r.mismatches][:max_mismatches]
    if shown:
        lines.append(("", "mismatches:"))
        lines += [("", "  " + m.render().replace("\n", "\n  ")) for m in shown]
    lines.append((v.status, f"{v.status.upper()}: {v.summary} ({v.seconds:.1f} s)"))
    return lines


def print_report(v: Verdict, *, rich: bool) -> None:
    if not rich:
        for _, text in report_lines(v):
            print(printable(text))
        return
    from rich.console import Console
    from rich.text import Text
    console = Console(highlight=False)
    for style, text in report_lines(v):
        console.print(Text(printable(text), style=_MARK.get(style, "")))
