"""Name similarity for "did you mean": edit distance on the lower-cased names blended with
overlap of their CamelCase / snake_case tokens (so `ReduceMean` finds `ReduceMax`, `ReduceSum`)."""
from __future__ import annotations

import re

_TOKENS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")


def levenshtein(a: str, b: str) -> int:
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def name_tokens(name: str) -> set[str]:
    return {t.lower() for t in _TOKENS.findall(name)}


def similarity(a: str, b: str) -> float:
    """1.0 for names equal up to case, towards 0.0 for unrelated ones."""
    la, lb = a.lower(), b.lower()
    if la == lb:
        return 1.0
    edit = 1.0 - levenshtein(la, lb) / max(len(la), len(lb))
    ta, tb = name_tokens(a), name_tokens(b)
    overlap = len(ta & tb) / len(ta | tb) if ta | tb else 0.0
    return max(edit, 0.5 * edit + 0.5 * overlap)
