"""A small C++ tokenizer for linting: comments, string/char literals and preprocessor lines are
dropped (macro names defined with #define are kept), every token carries its line and column."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

_IDENT = re.compile(r"[A-Za-z_]\w*")
_NUMBER = re.compile(r"(?:\d|\.\d)(?:[\w.]|'\d|[eEpP][+-])*")
_DEFINE = re.compile(r"#\s*define\s+([A-Za-z_]\w*)")
_RAW_STRING = re.compile(r'R"([^(\s]*)\(')


@dataclass(frozen=True)
class Token:
    text: str
    kind: str  # "ident" | "number" | "punct"
    line: int
    col: int


@dataclass
class Tokens:
    items: list[Token] = field(default_factory=list)
    macros: set[str] = field(default_factory=set)  # names the file #defines


def tokenize(source: str) -> Tokens:
    out = Tokens()
    i, line, line_start, n = 0, 1, 0, len(source)
    at_line_start = True
    while i < n:
        ch = source[i]
        if ch == "\n":
            line, line_start, at_line_start, i = line + 1, i + 1, True, i + 1
            continue
        if ch in " \t\r\f\v":
            i += 1
            continue
        if source.startswith("//", i):
            end = source.find("\n", i)
            i = n if end == -1 else end
            continue
        if source.startswith("/*", i):
            end = source.find("*/", i + 2)
            end = n if end == -1 else end + 2
            line, line_start = _advance(source, i, end, line, line_start)
            i = end
            continue
        if ch == "#" and at_line_start:
            end = i
            while True:  # a directive continues over lines ending in a backslash
                nl = source.find("\n", end)
                if nl == -1 or source[nl - 1] != "\\":
                    end = n if nl == -1 else nl
                    break
                end = nl + 1
            match = _DEFINE.match(source, i)
            if match:
                out.macros.add(match.group(1))
            line, line_start = _advance(source, i, end, line, line_start)
            i = end
            continue
        at_line_start = False
        raw = _RAW_STRING.match(source, i)
        if raw:
            end = source.find(f'){raw.group(1)}"', raw.end())
            end = n if end == -1 else end + len(raw.group(1)) + 2
            line, line_start = _advance(source, i, end, line, line_start)
            i = end
            continue
        if ch in "\"'":
            j = i + 1
            while j < n and source[j] != ch and source[j] != "\n":
                j += 2 if source[j] == "\\" else 1
            i = j + 1
            continue
        col = i - line_start + 1
        match = _IDENT.match(source, i) or _NUMBER.match(source, i)
        if match:
            kind = "ident" if match.re is _IDENT else "number"
            out.items.append(Token(match.group(0), kind, line, col))
            i = match.end()
            continue
        two = source[i:i + 2]
        text = two if two in ("::", "->") else ch
        out.items.append(Token(text, "punct", line, col))
        i += len(text)
    return out


def _advance(source: str, start: int, end: int, line: int, line_start: int) -> tuple[int, int]:
    newlines = source.count("\n", start, end)
    if newlines:
        line_start = source.rfind("\n", start, end) + 1
    return line + newlines, line_start
