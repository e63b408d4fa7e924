"""Load the API cards (`corpus/api/**.md`): front matter validated into `ApiCard`, body kept."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import ValidationError

from kernelwright.knowledge.frontmatter import FrontMatterError, split_front_matter
from kernelwright.knowledge.models import ApiCard
from kernelwright.knowledge.paths import CORPUS_DIR, package_relative

REQUIRED_SECTIONS = {
    "api": ["Signatures", "Supported dtypes", "Constraints", "Usage", "Common misuses"],
    "invented": ["Why it fails", "Use instead"],
}


class CardError(ValueError):
    """A card file whose front matter or sections break the card format."""


def load_card(path: Path) -> ApiCard:
    text = path.read_text(encoding="utf-8")
    rel = package_relative(path)
    try:
        meta, body, body_line = split_front_matter(text, rel)
        card = ApiCard(**meta)
    except (FrontMatterError, ValidationError, TypeError) as exc:
        raise CardError(f"{rel}: invalid card front matter: {exc}") from exc
    missing = [s for s in REQUIRED_SECTIONS[card.kind] if f"\n## {s}" not in "\n" + body]
    if missing:
        raise CardError(f"{rel}: card '{card.name}' (kind {card.kind}) lacks sections: {', '.join(missing)}")
    return card.model_copy(update={"id": f"api/{card.name}", "path": rel, "body": body, "body_line": body_line})


def corpus_stamp(corpus_dir: Path) -> tuple:
    """Cheap fingerprint of the corpus files (name, size, mtime) so caches notice edits."""
    return tuple((str(p), st.st_size, st.st_mtime_ns)
                 for p in sorted(corpus_dir.rglob("*.md")) for st in [p.stat()])


def load_cards(corpus_dir: Path = CORPUS_DIR) -> tuple[ApiCard, ...]:
    return _load_cards(corpus_dir, corpus_stamp(corpus_dir / "api"))


@lru_cache(maxsize=4)
def _load_cards(corpus_dir: Path, _stamp: tuple) -> tuple[ApiCard, ...]:
    cards = tuple(load_card(p) for p in sorted((corpus_dir / "api").rglob("*.md")))
    seen: dict[str, str] = {}
    for card in cards:
        for name in card.names:
            if name in seen:
                raise CardError(f"{card.path}: name '{name}' is already defined by {seen[name]}")
            seen[name] = card.path
    for card in cards:  # a covered name with a card of its own would hide that card from lookup
        for name in card.covered_names:
            if name in seen and seen[name] != card.path:
                raise CardError(f"{card.path}: covers '{name}', which has its own card {seen[name]}; "
                                "mention it in see_also instead")
    return cards
