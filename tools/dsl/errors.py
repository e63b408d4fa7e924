"""Diagnostics of the DSL: every finding names its rule, the DSL line, the values and a fix hint.

`DslError` aborts a stage (parse, tiling, one interpreted case) with one diagnostic; the static
rules collect several `DslDiagnostic`s instead. Messages never name our own files: they point at
the DSL program (its line and the line's text), which is what the writer of the program can fix.
"""
from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field


class DslDiagnostic(BaseModel):
    rule: str                                   # e.g. "ub.capacity", "subset.construct"
    message: str
    line: int | None = None                     # 1-based line of the DSL program
    severity: Literal["error", "warning"] = "error"
    hint: str | None = None
    values: dict[str, Any] = Field(default_factory=dict)
    case: str | None = None                     # shape case it happened in (interpreter, per-case rules)
    block: int | None = None                    # block index (interpreter)

    def render(self, source: str | None = None) -> str:
        """`error [rule] at line N (case ..., block b): message`, the offending line, and the hint."""
        where = f" at line {self.line}" if self.line else ""
        ctx = ", ".join(x for x in (f"case {self.case}" if self.case else "",
                                    f"block {self.block}" if self.block is not None else "") if x)
        text = f"{self.severity} [{self.rule}]{where}{f' ({ctx})' if ctx else ''}: {self.message}"
        if source and self.line:
            lines = source.splitlines()
            if 0 < self.line <= len(lines):
                text += f"\n  {self.line:4d} | {lines[self.line - 1].rstrip()}"
        if self.hint:
            text += f"\n  hint: {self.hint}"
        return text


class DslError(Exception):
    """A finding that stops the current stage (parsing, tiling, one interpreted case)."""

    def __init__(self, rule: str, message: str, line: int | None = None, hint: str | None = None, **values: Any):
        super().__init__(message)
        self.diag = DslDiagnostic(rule=rule, message=message, line=line, hint=hint, values=values)

    def at(self, line: int | None) -> "DslError":
        """Attach a line when the raiser did not know it."""
        if self.diag.line is None:
            self.diag.line = line
        return self

    def __str__(self) -> str:
        return self.diag.render()


class DslErrors(DslError):
    """Several independent findings of one stage (every broken statement of a program's parse), so the writer
    fixes them in one round; `diag` is the first, `diags` all of them."""

    def __init__(self, diags: list[DslDiagnostic]):
        Exception.__init__(self, diags[0].message)
        self.diag, self.diags = diags[0], list(diags)

    def __str__(self) -> str:
        return "\n".join(d.render() for d in self.diags)


def findings(e: DslError) -> list[DslDiagnostic]:
    """Every diagnostic an error carries (one, or all of a DslErrors)."""
    return list(getattr(e, "diags", [e.diag]))


def errors(diags: list[DslDiagnostic]) -> list[DslDiagnostic]:
    return [d for d in diags if d.severity == "error"]
