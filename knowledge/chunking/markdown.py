"""Markdown → sections, one per heading (headings inside code fences do not count)."""
from __future__ import annotations

import re

from kernelwright.knowledge.chunking.sections import Section, split_long

HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")


def split_markdown(text: str, first_line: int = 1) -> list[Section]:
    sections: list[Section] = []
    stack: list[tuple[int, str]] = []
    current: list[str] = []
    start = first_line
    in_fence = False

    def flush(end: int) -> None:
        while current and not current[-1].strip():  # trailing blank lines are not part of the section
            current.pop()
            end -= 1
        body = [line for line in current if not HEADING.match(line)]
        if any(line.strip() for line in body):
            heading = " > ".join(title for _, title in stack)
            sections.extend(split_long(Section(heading, "\n".join(current).strip("\n"), start, end)))

    for offset, line in enumerate(text.split("\n")):
        lineno = first_line + offset
        if line.lstrip().startswith(("```", "~~~")):
            in_fence = not in_fence
        match = None if in_fence else HEADING.match(line)
        if match:
            flush(lineno - 1)
            level = len(match.group(1))
            stack = [h for h in stack if h[0] < level] + [(level, match.group(2))]
            current, start = [line], lineno
        else:
            current.append(line)
    flush(first_line + text.count("\n"))
    return sections
