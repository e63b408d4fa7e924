"""YAML front matter at the top of a Markdown file (between `---` lines)."""
from __future__ import annotations

import yaml


class FrontMatterError(ValueError):
    pass


def split_front_matter(text: str, source: str = "") -> tuple[dict, str, int]:
    """Return (meta, body, line number of the body's first line); meta is {} when there is none."""
    if not text.startswith("---\n"):
        return {}, text, 1
    end = text.find("\n---\n", 4)
    if end == -1:
        raise FrontMatterError(f"{source}: front matter opened with '---' on line 1 is never closed")
    try:
        meta = yaml.safe_load(text[4:end]) or {}
    except yaml.YAMLError as exc:
        raise FrontMatterError(f"{source}: front matter is not valid YAML: {exc}") from exc
    if not isinstance(meta, dict):
        raise FrontMatterError(f"{source}: front matter must be a mapping, got {type(meta).__name__}")
    body_line = text.count("\n", 0, end + 5) + 1
    return meta, text[end + 5:], body_line
