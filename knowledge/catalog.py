"""The API catalog: every name the cards declare (names, aliases, covered names, class members),
derived from the cards' front matter. The linter and exact symbol lookup both read it."""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path

from kernelwright.knowledge.cards import corpus_stamp, load_cards
from kernelwright.knowledge.models import ApiCard
from kernelwright.knowledge.paths import CORPUS_DIR
from kernelwright.knowledge.similarity import similarity

NAMESPACE_PREFIXES = ("AscendC::", "::", "optiling::", "gert::", "platform_ascendc::", "ops::", "matmul_tiling::")


@dataclass(frozen=True)
class Suggestion:
    name: str
    score: float
    card: ApiCard


class ApiCatalog:
    def __init__(self, cards: tuple[ApiCard, ...]):
        self.cards = cards
        self._by_name: dict[str, ApiCard] = {}
        self._by_lower: dict[str, list[str]] = {}
        self._member_owners: dict[str, list[ApiCard]] = {}
        for card in cards:
            for name in [*card.names, *card.covered_names]:
                self._by_name.setdefault(name, card)
                self._by_lower.setdefault(name.lower(), []).append(name)
            for member in card.methods:
                self._member_owners.setdefault(member, []).append(card)

    @staticmethod
    def bare(name: str) -> str:
        name = name.strip()
        for prefix in NAMESPACE_PREFIXES:
            if name.startswith(prefix):
                return name[len(prefix):]
        return name

    def get(self, name: str) -> ApiCard | None:
        """Exact lookup of a card by its name, an alias or a covered name (namespace prefix ignored)."""
        return self._by_name.get(self.bare(name))

    def get_ignoring_case(self, name: str) -> ApiCard | None:
        names = self._by_lower.get(self.bare(name).lower(), [])
        return self._by_name[names[0]] if len(names) == 1 else None

    def owners_of_member(self, member: str) -> list[ApiCard]:
        return self._member_owners.get(member, [])

    def names(self) -> list[str]:
        return sorted(self._by_name)

    def name_set(self) -> frozenset[str]:
        return frozenset(self._by_name)

    def real_names(self) -> list[str]:
        return [n for n, card in self._by_name.items() if card.kind == "api"]

    def nearest(self, name: str, n: int = 3, min_score: float = 0.45, callable_only: bool = False,
                version: str | None = None) -> list[Suggestion]:
        """The real API names closest to `name` (invented names are never suggested); with
        `callable_only`, only names of cards that document a call (for a misspelt call site); with a
        CANN `version`, only names that exist in it."""
        bare = self.bare(name)
        candidates = ([m for c in self.cards if c.kind == "api" and c.arity for m in c.names] if callable_only
                      else self.real_names())
        if version:
            candidates = [c for c in candidates if self._by_name[c].holds_for(version)]
        scored = [(similarity(bare, cand), cand) for cand in candidates if cand != bare]
        scored.sort(key=lambda pair: (-pair[0], pair[1]))
        return [Suggestion(cand, round(score, 3), self._by_name[cand])
                for score, cand in scored[:n] if score >= min_score]

    @cached_property
    def dtype_misnames(self) -> dict[str, ApiCard]:
        """Type names that look right but are not AscendC types (`float16`, `bool_t`, ...)."""
        return {name: card for card in self.cards
                if card.kind == "invented" and card.category == "dtype" for name in card.names}

    @cached_property
    def dtype_words(self) -> frozenset[str]:
        return frozenset(self.dtype_misnames)


def load_catalog(corpus_dir: Path = CORPUS_DIR) -> ApiCatalog:
    return _load_catalog(corpus_dir, corpus_stamp(corpus_dir / "api"))


@lru_cache(maxsize=4)
def _load_catalog(corpus_dir: Path, _stamp: tuple) -> ApiCatalog:
    return ApiCatalog(load_cards(corpus_dir))
