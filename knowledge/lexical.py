"""BM25 over the same chunks as the vector index, fused with the semantic ranking. Compiler
messages and API questions share rare literal tokens (`exceed limits`, `viable overloaded`,
`blockCount`) that a small sentence model blurs; BM25 keeps them decisive."""
from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable

from kernelwright.knowledge.models import Chunk

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\d+")
_PARTS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_STOP = frozenset("""a an and are as at be by can do does for from how i in is it its of on or the this to
what when which with without you your my me we use using""".split())
K1, B = 1.2, 0.75


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            word = word[: -len(suffix)]
            break
    return word[:-1] if len(word) > 4 and word.endswith("e") else word


def tokens(text: str) -> list[str]:
    """Lower-cased, lightly stemmed words; identifiers also yield their CamelCase/snake parts."""
    out: list[str] = []
    for word in _WORD.findall(text):
        parts = [p.lower() for p in _PARTS.findall(word)]
        whole = word.lower()
        for token in {whole, *parts} if len(parts) > 1 else {whole}:
            if token not in _STOP and len(token) > 1:
                out.append(_stem(token))
    return out


class Bm25:
    def __init__(self, chunks: Iterable[Chunk]):
        self.chunks = list(chunks)
        self.docs = [Counter(tokens(c.text)) for c in self.chunks]
        self.lengths = [sum(d.values()) for d in self.docs]
        self.avg = sum(self.lengths) / max(len(self.lengths), 1)
        df = Counter(term for doc in self.docs for term in doc)
        n = len(self.docs)
        self.idf = {term: math.log(1 + (n - f + 0.5) / (f + 0.5)) for term, f in df.items()}

    def search(self, query: str, n: int, keep=lambda chunk: True) -> list[tuple[Chunk, float]]:
        terms = [t for t in set(tokens(query)) if t in self.idf]
        scored = []
        for chunk, doc, length in zip(self.chunks, self.docs, self.lengths):
            if not keep(chunk):
                continue
            score = 0.0
            for term in terms:
                tf = doc.get(term)
                if tf:
                    score += self.idf[term] * tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / self.avg))
            if score > 0:
                scored.append((chunk, score))
        scored.sort(key=lambda pair: -pair[1])
        return scored[:n]
