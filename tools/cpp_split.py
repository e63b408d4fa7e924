"""Reading C++ source text: split a parameter or argument list at its top-level commas. Shared by the
CANN backend (kernel signatures) and the referee (pybind signatures), which may not import each other."""
from __future__ import annotations


def split_top_level(text: str) -> list[str]:
    """The comma-separated items of `text` that lie outside <>, (), {} and [], stripped; empty items dropped."""
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch in "<({[":
            depth += 1
        elif ch in ">)}]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return [p.strip() for p in parts if p.strip()]
