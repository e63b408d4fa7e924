"""A section of a source document and the one rule every chunker shares: keep pieces small
enough for the embedding model (MiniLM reads ~256 word pieces), split at blank lines."""
from __future__ import annotations

from dataclasses import dataclass

MAX_CHARS = 1100


@dataclass
class Section:
    heading: str
    text: str
    line_start: int  # 1-based, inclusive
    line_end: int


def split_long(section: Section, max_chars: int = MAX_CHARS) -> list[Section]:
    """Split a section at blank lines outside code fences; each piece keeps its own line range."""
    if len(section.text) <= max_chars:
        return [section]
    pieces: list[Section] = []
    buf: list[str] = []
    buf_start = section.line_start
    in_fence = False
    for offset, line in enumerate(section.text.split("\n")):
        lineno = section.line_start + offset
        if line.lstrip().startswith(("```", "~~~")):
            in_fence = not in_fence
        at_break = not in_fence and not line.strip()
        if at_break and buf and sum(len(x) + 1 for x in buf) >= max_chars * 0.6:
            pieces.append(Section(section.heading, "\n".join(buf).strip(), buf_start, lineno - 1))
            buf, buf_start = [], lineno + 1
            continue
        if not buf and not line.strip():
            buf_start = lineno + 1
            continue
        buf.append(line)
    if buf:
        pieces.append(Section(section.heading, "\n".join(buf).strip(), buf_start, section.line_end))
    return [p for p in pieces if p.text]
