"""Split a document into sections with provenance (heading, line range), by file type."""
from __future__ import annotations

from pathlib import Path

from kernelwright.knowledge.chunking.cpp import split_cpp
from kernelwright.knowledge.chunking.html import split_html
from kernelwright.knowledge.chunking.markdown import split_markdown
from kernelwright.knowledge.chunking.plain import split_plain
from kernelwright.knowledge.chunking.sections import Section

SPLITTERS = {
    **dict.fromkeys([".md", ".markdown"], split_markdown),
    **dict.fromkeys([".html", ".htm"], split_html),
    **dict.fromkeys([".txt", ".text", ".rst"], split_plain),
    **dict.fromkeys([".h", ".hh", ".hpp", ".hxx", ".inc", ".inl", ".cppm", ".c", ".cc", ".cpp", ".cxx", ".asc"], split_cpp),
}


class UnsupportedDocument(ValueError):
    """A file type `docs add` cannot chunk."""


def split_document(path: Path, text: str) -> list[Section]:
    splitter = SPLITTERS.get(path.suffix.lower())
    if splitter is None:
        raise UnsupportedDocument(
            f"{path}: unsupported document type '{path.suffix or '(none)'}'; "
            f"supported: {', '.join(sorted(SPLITTERS))}")
    return splitter(text)


__all__ = ["SPLITTERS", "Section", "UnsupportedDocument", "split_document"]
