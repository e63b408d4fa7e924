"""The Retriever seam and its implementations.

`IndexRetriever.search` answers in two steps. First exact lookup: the cards of the AscendC symbols a
query or compiler message names (the nearest real names for invented ones) and the hardware profile
of any SoC it names. Then search fills the remaining slots: the Chroma embedding ranking and a BM25
ranking over the same chunks, fused by their max-normalised scores. The index is built on first use
and synced whenever the corpus, the user's documents or the fix memory change."""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

from kernelwright.knowledge.catalog import ApiCatalog, load_catalog
from kernelwright.knowledge.builtin import builtin_chunks, builtin_stamp
from kernelwright.knowledge.fixes import FixMemory
from kernelwright.knowledge.index import SyncReport, VectorIndex, soc_flag
from kernelwright.knowledge.lexical import Bm25
from kernelwright.knowledge.lookup import card_passage, clean_query, soc_passages, symbol_passages
from kernelwright.knowledge.models import KINDS, ApiCard, Chunk, Located, Passage
from kernelwright.knowledge.paths import CORPUS_DIR, knowledge_home
from kernelwright.knowledge.user_docs import UserDocs
from kernelwright.tools.hardware import load_soc

# Each ranking's scores are divided by its best score and the two are averaged with these weights.
# (Reciprocal-rank fusion was measured too: it ignores how far ahead BM25's top hit is, and lost 2-3
# of the 64 evaluation queries.)
LEX_WEIGHT = 0.5


@runtime_checkable
class Retriever(Protocol):
    def search(self, query: str, k: int = 5, kinds: Sequence[str] | None = None,
               soc: str | None = None, cann: str | None = None) -> list[Passage]: ...

    def api(self, name: str) -> ApiCard | None: ...


MAX_QUERY_CHARS = 2000


class NullRetriever:
    """Retrieval switched off: the agent must work without it."""

    def search(self, query: str, k: int = 5, kinds: Sequence[str] | None = None,
               soc: str | None = None, cann: str | None = None) -> list[Passage]:
        return []

    def api(self, name: str) -> ApiCard | None:
        return None


def check_kinds(kinds: Sequence[str] | None) -> list[str] | None:
    if kinds is None:
        return None
    bad = [k for k in kinds if k not in KINDS]
    if bad or not kinds:
        raise ValueError(f"unknown document kind(s) {bad or '(none given)'}; valid kinds: {', '.join(KINDS)}")
    return list(kinds)


def where_filter(kinds: list[str] | None, soc: str | None) -> dict | None:
    conditions: list[dict] = []
    if kinds:
        conditions.append({"kind": kinds[0]} if len(kinds) == 1 else {"kind": {"$in": kinds}})
    if soc:
        conditions.append({soc_flag(soc): True})
    if not conditions:
        return None
    return conditions[0] if len(conditions) == 1 else {"$and": conditions}


def _best_per_doc(passages: list[Passage]) -> list[Passage]:
    seen: dict[str, Passage] = {}
    for passage in passages:
        seen.setdefault(passage.doc_id, passage)
    return list(seen.values())


class IndexRetriever:
    def __init__(self, home: Path | None = None, corpus_dir: Path = CORPUS_DIR, cann: str | None = None):
        """`cann`: the target CANN version; search puts the replacement of an API absent from it in its
        place (None: every version's APIs as they are)."""
        self.home = home or knowledge_home()
        self.corpus_dir = corpus_dir
        self.cann = cann
        self.user_docs = UserDocs(self.home)
        self.fixes = FixMemory(self.home)
        self.index = VectorIndex(self.home / "index")
        self._synced: tuple | None = None
        self._lexical: tuple[tuple, Bm25] | None = None

    @property
    def catalog(self) -> ApiCatalog:
        return load_catalog(self.corpus_dir)

    def api(self, name: str) -> ApiCard | None:
        return self.catalog.get(name)

    def chunks(self) -> list[Chunk]:
        return [*builtin_chunks(self.corpus_dir), *self.user_docs.chunks(), *self.fixes.chunks()]

    def _stamp(self) -> tuple:
        fixes = self.fixes.path.stat() if self.fixes.path.exists() else None
        return builtin_stamp(self.corpus_dir), self.user_docs.stamp(), fixes and (fixes.st_size, fixes.st_mtime_ns)

    def build(self, force: bool = False) -> SyncReport:
        stamp = self._stamp()
        report = self.index.sync(self.chunks(), force=force)
        self._synced = stamp
        return report

    def is_current(self) -> bool:
        return self.index.is_current(self.chunks())

    def _bm25(self, stamp: tuple) -> Bm25:
        if self._lexical is None or self._lexical[0] != stamp:
            self._lexical = (stamp, Bm25(self.chunks()))
        return self._lexical[1]

    def search(self, query: str, k: int = 5, kinds: Sequence[str] | None = None,
               soc: str | None = None, cann: str | None = None) -> list[Passage]:
        """Up to k passages, one per document: exact lookups first, then fused search results.
        The SoC filter narrows the search part, and with a target CANN version an API absent from it gives
        its place to its replacement (Divs -> Muls on 8.x); an API card or SoC profile named in the query
        is always shown (a card says itself where its API holds). Only the first MAX_QUERY_CHARS
        characters are searched (a compiler log or a pasted file would otherwise cost minutes)."""
        query = query[:MAX_QUERY_CHARS]
        kinds = check_kinds(kinds)
        cann = cann or self.cann
        soc_name = load_soc(soc).name if soc else None
        passages: list[Passage] = []
        if kinds is None or "api" in kinds:
            passages += symbol_passages(query, self.catalog, k)
        if kinds is None or "hardware" in kinds:
            passages += soc_passages(query)
        passages = _best_per_doc(passages)
        if len(passages) >= k or not query.strip():
            return passages[:k]
        seen = {p.doc_id for p in passages}
        for passage in self._fused(query, max(6 * k, 30), kinds, soc_name, self._stamp()):
            if cann:
                passage = self._in_version(passage, cann)
            if passage is not None and passage.doc_id not in seen:
                seen.add(passage.doc_id)
                passages.append(passage)
                if len(passages) == k:
                    break
        return passages

    def _in_version(self, passage: Passage, cann: str) -> Passage | None:
        """The passage, or for an API absent from `cann` its first replacement there (None: no replacement).
        Invented APIs stay: their cards are what tells a model the name does not exist."""
        card = self.catalog.get(passage.title) if passage.kind == "api" else None
        if card is None or card.kind == "invented" or card.holds_for(cann):
            return passage
        replacements = (self.catalog.get(name) for name in card.cann[cann].use_instead or card.use_instead)
        found = next((r for r in replacements if r is not None and r.kind == "api" and r.holds_for(cann)), None)
        return card_passage(found, passage.match, passage.score) if found else None

    def _fused(self, query: str, n: int, kinds: list[str] | None, soc: str | None, stamp: tuple) -> list[Passage]:
        if self._synced != stamp:
            self.build()
        text = clean_query(query)
        semantic = _best_per_doc([
            Passage(**{key: value for key, value in h.meta.items() if key in Located.model_fields},
                    text=h.text, score=h.score, match="search")
            for h in self.index.query(text, n=n, where=where_filter(kinds, soc))])

        def keep(chunk: Chunk) -> bool:
            return (kinds is None or chunk.kind in kinds) and (soc is None or chunk.socs is None or soc in chunk.socs)

        lexical = _best_per_doc([Passage.of_chunk(c, s, "search") for c, s in self._bm25(stamp).search(text, n, keep)])
        fused: dict[str, float] = {}
        shown: dict[str, Passage] = {}
        for ranking, weight in ((semantic, 1 - LEX_WEIGHT), (lexical, LEX_WEIGHT)):
            top = max((p.score for p in ranking), default=0.0)
            for passage in ranking:
                fused[passage.doc_id] = fused.get(passage.doc_id, 0.0) + weight * (passage.score / top if top > 0 else 0.0)
                shown.setdefault(passage.doc_id, passage)
        order = sorted(fused, key=lambda doc: -fused[doc])
        return [shown[doc].model_copy(update={"score": round(fused[doc], 4)}) for doc in order]


def open_retriever(enabled: bool = True, home: Path | None = None, cann: str | None = None) -> Retriever:
    return IndexRetriever(home, cann=cann) if enabled else NullRetriever()
