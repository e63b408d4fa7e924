"""Progress of a bench: a live bar on a terminal, one plain line per finished task otherwise (no
escape codes, nothing animated: logs of CI jobs stay readable even under FORCE_COLOR). On Ray, each
line names the node and the end gives per-node counts."""
from __future__ import annotations

import sys
from collections import Counter
from typing import TextIO

from kernelwright.evals.bench.records import TaskRecord
from kernelwright.terminal_text import printable


def describe(r: TaskRecord) -> str:
    extra = []
    if r.status not in ("timeout", "crashed", "error", "infrastructure"):
        extra.append("compiled" if r.compiled else "not compiled")
        extra.append(f"{r.repairs} repair{'s' if r.repairs != 1 else ''}")
    head = f"{r.task}" + (f" (try {r.attempt + 1})" if r.attempt else "")
    reason = r.reason.splitlines()[0][:120] if r.reason and not r.correct else ""
    where = f" on {r.node}" if r.node else ""
    return f"{head}: {r.status} in {r.seconds:.1f} s{where}" + (f" ({', '.join(extra)})" if extra else "") + \
        (f": {reason}" if reason else "")


class NodeCounts:
    """Finished and passed tries per node (Ray only: local records name no node)."""

    def __init__(self):
        self.finished: Counter[str] = Counter()
        self.passed: Counter[str] = Counter()

    def add(self, r: TaskRecord) -> None:
        if r.node:
            self.finished[r.node] += 1
            self.passed[r.node] += r.correct

    def line(self) -> str:
        return ", ".join(f"{n} {c} done/{self.passed[n]} passed" for n, c in sorted(self.finished.items()))


class PlainProgress:
    def __init__(self, total: int, done: int, stream: TextIO | None = None):
        self.total, self.done, self.passed = total, done, 0
        self.nodes = NodeCounts()
        self.stream = stream or sys.stderr
        self._print(f"bench: {total} run(s), {done} already finished, {total - done} to go")

    def _print(self, line: str) -> None:
        print(printable(line), file=self.stream, flush=True)

    def started(self, label: str) -> None:
        pass

    def note(self, text: str) -> None:
        self._print(f"bench: {text}")

    def finished(self, r: TaskRecord) -> None:
        self.done += 1
        self.passed += r.correct
        self.nodes.add(r)
        self._print(f"[{self.done}/{self.total}] {describe(r)}")

    def close(self) -> None:
        if self.nodes.finished:
            self._print(f"bench: per node: {self.nodes.line()}")


class BarProgress:
    """rich's Progress: the bar plus the last finished task; finished tasks scroll above it."""

    def __init__(self, total: int, done: int):
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
        self.console = Console(stderr=True)
        self.progress = Progress(TextColumn("bench"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[passed]} passed"),
                                 TimeElapsedColumn(), TextColumn("{task.fields[running]}", markup=False),
                                 TextColumn("{task.fields[nodes]}", markup=False), console=self.console)
        self.running: list[str] = []
        self.passed = 0
        self.nodes = NodeCounts()
        self.bar = self.progress.add_task("bench", total=total, completed=done, passed=0, running="", nodes="")
        self.progress.start()

    def started(self, label: str) -> None:
        self.running.append(label)
        self.progress.update(self.bar, running=printable(", ".join(self.running[-3:])))

    def note(self, text: str) -> None:
        from rich.text import Text
        self.progress.console.print(Text(printable(f"bench: {text}"), style="dim"))

    def finished(self, r: TaskRecord) -> None:
        label = f"{r.task}#{r.attempt}"
        if label in self.running:
            self.running.remove(label)
        self.passed += r.correct
        self.nodes.add(r)
        from rich.text import Text
        self.progress.console.print(Text(printable(describe(r)), style="green" if r.correct else "red"))
        self.progress.update(self.bar, advance=1, passed=self.passed, running=printable(", ".join(self.running[-3:])),
                             nodes=printable(self.nodes.line()))

    def close(self) -> None:
        self.progress.stop()
        if self.nodes.finished:
            from rich.text import Text
            self.console.print(Text(printable(f"bench: per node: {self.nodes.line()}")))


def make_progress(total: int, done: int, tty: bool | None = None):
    tty = sys.stderr.isatty() if tty is None else tty
    return BarProgress(total, done) if tty else PlainProgress(total, done)
