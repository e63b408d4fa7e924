"""Render the node prompts (`prompts/<node>.md.j2`) strictly, and gather what they show: few-shot DSL
examples per operator family (`prompts/examples/<family>/*.dsl.py`, the DSL's own tested examples)
and chip facts from the SoC profile data (`tools/hardware`), never from prose.

A template defines `{% block system %}` and `{% block user %}`; each becomes one chat message."""
from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from kernelwright.agent.models.base import Message

PROMPTS_DIR = Path(__file__).resolve().parent.parent / "prompts"
EXAMPLES_DIR = PROMPTS_DIR / "examples"


@lru_cache(maxsize=1)
def _env() -> Any:
    import jinja2
    return jinja2.Environment(loader=jinja2.FileSystemLoader(str(PROMPTS_DIR)), undefined=jinja2.StrictUndefined,
                              keep_trailing_newline=False, autoescape=False, trim_blocks=True, lstrip_blocks=True)


def render(name: str, **values: Any) -> list[Message]:
    """The messages of template `<name>.md.j2`: a system message (if the template has that block) and a
    user message. A variable the template uses and the caller did not pass is an error."""
    template = _env().get_template(f"{name}.md.j2")
    context = template.new_context(values)
    messages: list[Message] = []
    for role in ("system", "user"):
        if role in template.blocks:
            text = "".join(template.blocks[role](context)).strip()
            if text:
                messages.append({"role": role, "content": text})
    if not messages:
        raise ValueError(f"prompt template {name}.md.j2 has neither a system nor a user block")
    return messages


def render_text(name: str, **values: Any) -> str:
    """A template rendered whole (observations such as the format-error message)."""
    return _env().get_template(f"{name}.md.j2").render(**values).strip()


def families() -> list[str]:
    """Operator families that have DSL examples."""
    if not EXAMPLES_DIR.is_dir():
        return []
    return sorted(d.name for d in EXAMPLES_DIR.iterdir() if d.is_dir() and any(d.glob("*.dsl.py")))


def _words(text: str) -> set[str]:
    return {w for w in re.split(r"[^a-z0-9]+", text.lower()) if len(w) > 1}


def examples(family: str | None, limit: int = 2, about: str = "") -> list[dict[str, str]]:
    """Up to `limit` example programs of a family (the elementwise ones when the family has none), those
    whose names share the most words with `about` (the task's name and traced ops) first."""
    chosen = family if family in families() else ("elementwise" if "elementwise" in families() else None)
    if chosen is None:
        return []
    wanted = _words(about)

    def closeness(f: Path) -> tuple[int, str]:
        return -len(_words(f.name.removesuffix(".dsl.py")) & wanted), f.name
    files = sorted((EXAMPLES_DIR / chosen).glob("*.dsl.py"), key=closeness)[:limit]
    return [{"name": f"{chosen}/{f.name}", "source": f.read_text(encoding="utf-8")} for f in files]


def chip_facts(soc: str | None) -> dict[str, Any]:
    from kernelwright.tools.hardware import load_soc
    p = load_soc(soc)
    return {"name": p.name, "arch": p.npu_arch, "vector_cores": p.vector_cores, "cube_cores": p.aic_cores,
            "ub_bytes": p.ub_bytes, "ub_block_bytes": p.ub_block_bytes, "ub_reserved_bytes": p.ub_reserved_tail_bytes,
            "l1_bytes": p.l1_bytes, "notes": p.notes}

