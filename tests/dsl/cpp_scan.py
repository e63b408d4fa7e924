"""A conservative model of what a C++ compiler sees before it parses: trigraph `??/`, line splices
(a backslash, optional blanks, then any newline), `//` and `/* */` comments and quoted literals.
`code_only` returns the text with comments removed and literals blanked, so two lowerings that differ
only in comment or message text must give the same code."""
from __future__ import annotations

import re


class Escape(AssertionError):
    """Generated text that a compiler would read differently from what the generator meant."""


def code_only(text: str) -> str:
    text = text.replace("??/", "\\").replace("\r\n", "\n").replace("\r", "\n")
    text = re.sub(r"\\[ \t\f\v]*\n", "", text)
    out, i = [], 0
    while i < len(text):
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = len(text) if j < 0 else j
            out.append(" ")
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            if j < 0:
                raise Escape(f"unterminated block comment at {i}")
            i = j + 2
            out.append(" ")
        elif text[i] in "\"'":
            q, j = text[i], i + 1
            while j < len(text) and text[j] != q:
                if text[j] == "\n":
                    raise Escape(f"a literal opened at {i} runs over its line: {text[i:j + 1]!r}")
                j += 2 if text[j] == "\\" else 1
            if j >= len(text):
                raise Escape(f"unterminated literal at {i}")
            out.append(q + q)
            i = j + 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def code_lines(text: str) -> list[str]:
    """The non-blank lines of `code_only` (a comment that spans more generated lines leaves blank ones)."""
    return [line.strip() for line in code_only(text).split("\n") if line.strip()]
