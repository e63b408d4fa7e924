"""A lint finding: rule id, place, message, fix hint and suggestions."""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

Rule = Literal["unknown-api", "invented-api", "cann9-only", "not-in-cann9", "deprecated", "wrong-namespace", "arity",
               "missing-template", "template-arg", "unknown-member", "dtype-name"]


class LintDiagnostic(BaseModel):
    rule: Rule
    file: str
    line: int
    col: int
    symbol: str
    message: str
    hint: str = ""
    suggestions: list[str] = Field(default_factory=list)
    severity: Literal["error", "warning"] = "error"

    def format(self) -> str:
        text = f"{self.file}:{self.line}:{self.col}: {self.severity} [{self.rule}] {self.message}"
        if self.suggestions:
            text += f"\n  did you mean: {', '.join(self.suggestions)}"
        if self.hint:
            text += f"\n  hint: {self.hint}"
        return text
