"""Plain text → paragraph groups; the heading is the group's first line."""
from __future__ import annotations

from kernelwright.knowledge.chunking.sections import Section, split_long


def split_plain(text: str, first_line: int = 1) -> list[Section]:
    whole = Section("", text, first_line, first_line + text.count("\n"))
    pieces = split_long(whole)
    for piece in pieces:
        first = next((line.strip() for line in piece.text.split("\n") if line.strip()), "")
        piece.heading = first[:80]
    return pieces
