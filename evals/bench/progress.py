"""Progress of a bench: a live bar on a terminal, one plain line per finished task otherwise (no
escape codes, nothing animated: logs of CI jobs stay readable even under FORCE_COLOR)."""
from __future__ import annotations

import sys
from typing import TextIO

from kernelwright.evals.bench.records import TaskRecord
from kernelwright.terminal_text import printable


def describe(r: TaskRecord) -> str:
    extra = []
    if r.status not in ("timeout", "crashed", "error"):
        extra.append("compiled" if r.compiled else "not compiled")
        extra.append(f"{r.repairs} repair{'s' if r.repairs != 1 else ''}")
    head = f"{r.task}" + (f" (try {r.attempt + 1})" if r.attempt else "")
    reason = r.reason.splitlines()[0][:120] if r.reason and not r.correct else ""
    return f"{head}: {r.status} in {r.seconds:.1f} s" + (f" ({', '.join(extra)})" if extra else "") + \
        (f": {reason}" if reason else "")


class PlainProgress:
    def __init__(self, total: int, done: int, stream: TextIO | None = None):
        self.total, self.done, self.passed = total, done, 0
        self.stream = stream or sys.stderr
        self._print(f"bench: {total} run(s), {done} already finished, {total - done} to go")

    def _print(self, line: str) -> None:
        print(printable(line), file=self.stream, flush=True)

    def started(self, label: str) -> None:
        pass

    def finished(self, r: TaskRecord) -> None:
        self.done += 1
        self.passed += r.correct
        self._print(f"[{self.done}/{self.total}] {describe(r)}")

    def close(self) -> None:
        pass


class BarProgress:
    """rich's Progress: the bar plus the last finished task; finished tasks scroll above it."""

    def __init__(self, total: int, done: int):
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
        self.console = Console(stderr=True)
        self.progress = Progress(TextColumn("bench"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[passed]} passed"),
                                 TimeElapsedColumn(), TextColumn("{task.fields[running]}"), console=self.console)
        self.running: list[str] = []
        self.passed = 0
        self.bar = self.progress.add_task("bench", total=total, completed=done, passed=0, running="")
        self.progress.start()

    def started(self, label: str) -> None:
        self.running.append(label)
        self.progress.update(self.bar, running=", ".join(self.running[-3:]))

    def finished(self, r: TaskRecord) -> None:
        label = f"{r.task}#{r.attempt}"
        if label in self.running:
            self.running.remove(label)
        self.passed += r.correct
        from rich.text import Text
        self.progress.console.print(Text(printable(describe(r)), style="green" if r.correct else "red"))
        self.progress.update(self.bar, advance=1, passed=self.passed, running=", ".join(self.running[-3:]))

    def close(self) -> None:
        self.progress.stop()


def make_progress(total: int, done: int, tty: bool | None = None):
    tty = sys.stderr.isatty() if tty is None else tty
    return BarProgress(total, done) if tty else PlainProgress(total, done)
