"""The built-in corpus as chunks: API cards, every other Markdown page under `corpus/` (concepts,
examples, the DSL reference when it lands) and one hardware document per SoC."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from kernelwright.knowledge.cards import corpus_stamp, load_cards
from kernelwright.knowledge.chunking.markdown import HEADING, split_markdown
from kernelwright.knowledge.frontmatter import split_front_matter
from kernelwright.knowledge.hardware_docs import hardware_documents, socs_of_archs
from kernelwright.knowledge.models import KINDS, ApiCard, Chunk
from kernelwright.knowledge.paths import CORPUS_DIR, package_relative
from kernelwright.knowledge.versions import availability_line
from kernelwright.tools import hardware

# Pages outside api/ take their kind from front matter `kind:`, else from their top folder.
_FOLDER_KINDS = {"concepts": "concept", "examples": "example", "dsl": "concept"}
# Card sections left out of the vector index: mostly code, reached through exact lookup of the name
# (which returns the whole card). Embedding them tripled the build time for no retrieval gain.
_CARD_SECTIONS_NOT_EMBEDDED = {"Signatures", "Supported dtypes", "Usage"}


def card_chunks(card: ApiCard) -> list[Chunk]:
    socs = socs_of_archs(card.archs)
    label = f"{card.name} (not a real AscendC API)" if card.kind == "invented" else card.name
    if card.aliases:
        label += f" [also: {', '.join(card.aliases)}]"
    types = sorted({t for types in card.dtypes.values() for t in types})
    chunks = []
    for s in split_markdown(card.body, first_line=card.body_line):
        section = s.heading.split(" > ")[1] if " > " in s.heading else ""
        if section in _CARD_SECTIONS_NOT_EMBEDDED:
            continue
        if section:
            text = f"{label} — {s.text.lstrip('#').strip()}"
        else:  # the overview: name, summary and element types (the card's `# Name` line dropped)
            intro = s.text.split("\n", 1)[1].strip() if s.text.startswith("# ") else s.text
            summary = "" if card.summary in intro else f"{card.summary}\n"
            kinds = f"\nElement types: {', '.join(types)}." if types else ""
            text = f"{label}: {summary}{intro}{kinds}\n{availability_line(card)}"
        chunks.append(Chunk(doc_id=card.id, kind="api", title=card.name, heading=s.heading, text=text, source=card.path,
                            line_start=s.line_start, line_end=s.line_end, socs=socs))
    return chunks


def page_chunks(path: Path, corpus_dir: Path) -> list[Chunk]:
    rel = path.relative_to(corpus_dir)
    meta, body, body_line = split_front_matter(path.read_text(encoding="utf-8"), package_relative(path))
    kind = meta.get("kind") or _FOLDER_KINDS.get(rel.parts[0], "concept")
    if kind not in KINDS:
        raise ValueError(f"{package_relative(path)}: front matter kind '{kind}' is not one of {', '.join(KINDS)}")
    title = meta.get("title") or _first_heading(body) or path.stem
    socs = socs_of_archs(meta.get("archs") or [])
    return [Chunk(doc_id=rel.with_suffix("").as_posix(), kind=kind, title=title, heading=s.heading,
                  text=f"{title}\n{s.text}" if not s.text.startswith(f"# {title}") else s.text,
                  source=package_relative(path), line_start=s.line_start, line_end=s.line_end, socs=socs)
            for s in split_markdown(body, first_line=body_line)]


def hardware_chunks() -> list[Chunk]:
    # Rendered from socs.json at build time: the source is the profile's key, there are no file lines.
    return [Chunk(doc_id=f"hardware/{name}", kind="hardware", title=f"{name} hardware profile",
                  heading=s.heading, text=s.text, source=source, socs=[name])
            for name, source, text in hardware_documents() for s in split_markdown(text)]


def builtin_stamp(corpus_dir: Path = CORPUS_DIR) -> tuple:
    """Changes whenever a corpus file or the SoC profiles change."""
    socs_file = Path(hardware.__file__).with_name("socs.json").stat()
    return corpus_stamp(corpus_dir), socs_file.st_mtime_ns, socs_file.st_size


def builtin_chunks(corpus_dir: Path = CORPUS_DIR) -> tuple[Chunk, ...]:
    return _builtin_chunks(corpus_dir, builtin_stamp(corpus_dir))


@lru_cache(maxsize=4)
def _builtin_chunks(corpus_dir: Path, _stamp: tuple) -> tuple[Chunk, ...]:
    cards = {card.path: card for card in load_cards(corpus_dir)}
    chunks: list[Chunk] = []
    for path in sorted(corpus_dir.rglob("*.md")):
        card = cards.get(package_relative(path))
        chunks.extend(card_chunks(card) if card else page_chunks(path, corpus_dir))
    chunks.extend(hardware_chunks())
    return tuple(chunks)


def _first_heading(body: str) -> str:
    for line in body.split("\n"):
        match = HEADING.match(line)
        if match:
            return match.group(2)
    return ""
