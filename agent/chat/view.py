"""What the chat shows: the agent's events as they stream (plan, DSL with syntax highlighting, the
AscendC kernel, verdicts), a spinner naming the node at work, and the review questions. On a
terminal it uses rich; otherwise plain lines with no escape codes at all (colour, cursor movement
and animation are off even under FORCE_COLOR)."""
from __future__ import annotations

import json
import sys
from typing import Any, TextIO

from kernelwright.agent.events import describe
from kernelwright.terminal_text import printable

CODE_LINES = 80                         # longer code is cut on screen; the files hold all of it


class View:
    def __init__(self, tty: bool | None = None, stream: TextIO | None = None):
        from rich.console import Console
        self.stream = stream or sys.stdout
        self.tty = self.stream.isatty() if tty is None else tty
        if self.tty:
            self.console = Console(file=self.stream, force_interactive=True)
        else:
            self.console = Console(file=self.stream, force_terminal=False, force_interactive=False, no_color=True,
                                   highlight=False, soft_wrap=True, emoji=False)
        self._status: Any = None
        self.shown: set[int] = set()    # code already on screen (not repeated at the review point)

    # plain text and headings
    def say(self, text: str, style: str | None = None) -> None:
        from rich.text import Text
        text = printable(text)
        self.console.print(Text(text, style=style or "") if self.tty else text, markup=False, highlight=False)

    def rule(self, title: str) -> None:
        if self.tty:
            self.console.rule(title)
        else:
            self.say(f"--- {title} ---")

    def code(self, text: str, lexer: str, title: str) -> None:
        self.shown.add(hash(text))
        lines = printable(text).rstrip("\n").splitlines()
        cut = len(lines) > CODE_LINES
        body = "\n".join(lines[:CODE_LINES])
        self.rule(title)
        if self.tty:
            from rich.syntax import Syntax
            self.console.print(Syntax(body, lexer, line_numbers=True, word_wrap=False))
        else:
            self.say(body)
        if cut:
            self.say(f"... ({len(lines) - CODE_LINES} more lines)", "dim")

    # the agent's stream
    def event(self, mode: str, chunk: Any) -> None:
        line = describe(mode, chunk)
        if mode == "custom":
            self.working(line.strip() if line else "")
            if not self.tty and line:
                self.say(line)
            return
        if mode != "updates" or not isinstance(chunk, dict):
            return
        for node, update in chunk.items():
            if node == "__interrupt__" or not isinstance(update, dict):
                continue
            self.say(describe(mode, {node: update}) or node, self._style(node, update))
            if node == "dsl_writer" and update.get("dsl") and update.get("dsl_check") and update["dsl_check"].ok:
                self.code(update["dsl"], "python", f"DSL v{update.get('dsl_version')}")
            elif node == "lowerer" and update.get("project"):
                self.kernel(update["project"].files, update.get("project_version"))
            elif node == "verify" and update.get("verdict"):
                self.verdict(update["verdict"].model_dump())

    @staticmethod
    def _style(node: str, u: dict[str, Any]) -> str:
        if u.get("halt") or u.get("failure"):
            return "red"
        return "green" if node in ("verify", "finish") else "cyan"

    def kernel(self, files: dict[str, str], version: Any) -> None:
        main = next((k for k in sorted(files) if k.startswith("op_kernel/") and k.endswith(".cpp")), None) or \
            next((k for k in sorted(files) if k.endswith((".cpp", ".asc"))), None)
        if main:
            text = files[main]
            start = text.find("\nclass ")          # the kernel class; the generated helpers above it are boilerplate
            if start > 0:
                text = text[start + 1:]
            self.code(text, "cpp", f"AscendC {main} (project v{version})" + (", from its kernel class" if start > 0 else ""))

    def verdict(self, v: dict[str, Any]) -> None:
        if self.tty:
            from rich.table import Table
            t = Table(title=f"verdict v{v.get('version')}", show_header=False)
            t.add_row("status", printable(v["status"]))
            t.add_row("stage", printable(v["stage"]))
            t.add_row("summary", printable(v["summary"]))
            for d in v.get("details", [])[:6]:
                t.add_row("", printable(d))
            self.console.print(t)
        else:
            for d in v.get("details", [])[:6]:
                self.say(f"  {d}")

    # the spinner
    def working(self, message: str) -> None:
        if not self.tty:
            return
        if self._status is None:
            self._status = self.console.status(message or "working")
            self._status.start()
        elif message:
            self._status.update(message)

    def idle(self) -> None:
        if self._status is not None:
            self._status.stop()
            self._status = None

    # review points
    def pending(self, payload: dict[str, Any]) -> None:
        kind = payload.get("kind", "")
        self.rule(f"review: {kind}")
        if kind == "plan" and payload.get("plan"):
            self.say(json.dumps(payload["plan"], indent=1))
        if kind in ("dsl", "accept") and payload.get("dsl") and hash(payload["dsl"]) not in self.shown:
            self.code(payload["dsl"], "python", "DSL under review")
        if kind == "accept" and payload.get("verdict"):
            self.say(f"verdict: {payload['verdict']['status']}: {payload['verdict']['summary']}", "green")
        self.say(payload.get("question", ""), "bold")
