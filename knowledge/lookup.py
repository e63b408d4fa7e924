"""Exact symbol lookup: the cards of the symbols a query names (or, for names that do not exist,
the nearest real ones), ahead of any semantic search."""
from __future__ import annotations

import re
from functools import lru_cache

from kernelwright.knowledge.catalog import ApiCatalog
from kernelwright.knowledge.hardware_docs import hardware_documents, soc_aliases
from kernelwright.knowledge.models import ApiCard, Passage
from kernelwright.knowledge.symbols import SymbolRef, find_symbols
from kernelwright.knowledge.versions import availability_line
from kernelwright.tools.hardware import soc_names

MAX_MEMBER_OWNERS = 2  # `AllocTensor` belongs to TQue, TQueBind, TBuf...: show the first two
_PATHS = re.compile(r"(?:[\w.\-/~]+/)?[\w.\-]+\.(?:cpp|cc|cxx|h|hpp|asc|cppm|py):\d+(?::\d+)?:?\s*")


def clean_query(text: str, limit: int = 1000) -> str:
    """Drop file:line:col prefixes of compiler output (noise for embeddings) and cap the length."""
    return " ".join(_PATHS.sub("", text).split())[:limit]


def card_passage(card: ApiCard, match: str, score: float) -> Passage:
    """The whole card, headed by where it holds (CANN versions, SoCs) from its front matter."""
    text = card.body.strip()
    title, _, rest = text.partition("\n")
    text = f"{title}\n{availability_line(card)}\n{rest}" if title.startswith("# ") else f"{availability_line(card)}\n{text}"
    return Passage(doc_id=card.id, kind="api", title=card.name, heading="", text=text,
                   source=card.path, line_start=card.body_line,
                   line_end=card.body_line + card.body.count("\n"), score=score, match=match)


def resolve(ref: SymbolRef, catalog: ApiCatalog) -> list[tuple[ApiCard, str, float]]:
    """Cards for one symbol: exact when it exists, nearest real names when it does not."""
    card = catalog.get(ref.name)
    if card:
        return [(card, "exact", 1.0)]
    if ref.origin == "member":
        owner = catalog.get(ref.owner) if ref.owner else None
        if owner:
            return [(owner, "exact", 1.0)]
    owners = catalog.owners_of_member(ref.name)
    if owners:
        return [(o, "exact", 1.0) for o in owners[:MAX_MEMBER_OWNERS]]
    if ref.origin == "mention":
        return []
    folded = catalog.get_ignoring_case(ref.name)
    if folded:
        return [(folded, "nearest", 0.95)]
    min_score = 0.7 if ref.origin == "undeclared" else 0.45
    return [(s.card, "nearest", s.score) for s in catalog.nearest(ref.name, n=3, min_score=min_score)]


def symbol_passages(query: str, catalog: ApiCatalog, limit: int) -> list[Passage]:
    passages: list[Passage] = []
    seen: set[str] = set()
    for ref in find_symbols(query, catalog.name_set(), catalog.dtype_words):
        for card, match, score in resolve(ref, catalog):
            if card.id not in seen:
                seen.add(card.id)
                passages.append(card_passage(card, match, score))
    return passages[:limit]  # already in order of evidence (see find_symbols)


@lru_cache(maxsize=1)
def _soc_pattern() -> tuple[re.Pattern, dict[str, str]]:
    names = {name.lower(): name for name in soc_names()}
    names.update({alias.lower(): name for name in soc_names() for alias in soc_aliases(name)})
    words = sorted(names, key=len, reverse=True)  # longest first: Ascend910B2 before Ascend910B
    return re.compile(r"\b(" + "|".join(map(re.escape, words)) + r")\b", re.I), names


def soc_passages(query: str) -> list[Passage]:
    """The hardware profile of every SoC the query names (by name or alias)."""
    pattern, names = _soc_pattern()
    wanted = list(dict.fromkeys(names[m.group(1).lower()] for m in pattern.finditer(query)))
    documents = {name: (source, text) for name, source, text in hardware_documents()}
    return [Passage(doc_id=f"hardware/{name}", kind="hardware", title=f"{name} hardware profile",
                    text=documents[name][1], source=documents[name][0], score=1.0, match="exact")
            for name in wanted]
