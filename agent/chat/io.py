"""Reading lines (prompt-toolkit with history on a terminal, plain stdin otherwise) and editing text
in the user's $EDITOR."""
from __future__ import annotations

import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path


class LineReader:
    """`read(prompt)` -> the line, or None at end of input (Ctrl-D, or stdin closed)."""

    def __init__(self, history: Path | None, tty: bool | None = None):
        self.tty = sys.stdin.isatty() and sys.stdout.isatty() if tty is None else tty
        self._session = None
        if self.tty:
            from prompt_toolkit import PromptSession
            from prompt_toolkit.history import FileHistory, InMemoryHistory
            self._session = PromptSession(history=FileHistory(str(history)) if history else InMemoryHistory())

    def read(self, prompt: str) -> str | None:
        if self._session is not None:
            while True:
                try:
                    return self._session.prompt(prompt)
                except KeyboardInterrupt:       # Ctrl-C clears the line, as in a shell
                    continue
                except EOFError:
                    return None
        sys.stdout.write(prompt)
        sys.stdout.flush()
        line = sys.stdin.readline()
        if not line:
            return None
        if not self.tty:                        # echo, so a transcript of a piped session reads like one
            sys.stdout.write(line if line.endswith("\n") else line + "\n")
        return line.rstrip("\n")


class EditorError(RuntimeError):
    pass


def edit_text(text: str, suffix: str) -> str:
    """Open `text` in $VISUAL / $EDITOR (default vi) and return what was saved."""
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    with tempfile.NamedTemporaryFile("w", suffix=suffix, prefix="kernelwright-", delete=False, encoding="utf-8") as f:
        f.write(text)
        path = f.name
    try:
        done = subprocess.run(shlex.split(editor) + [path])
        if done.returncode != 0:
            raise EditorError(f"the editor ({editor}) exited with status {done.returncode}; nothing changed")
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise EditorError(f"cannot start the editor {editor!r}; set $EDITOR") from None
    finally:
        os.unlink(path)
