"""Jinja templates of the files kernelwright writes around a project (CANN build scaffolding,
default glue). Rendered strictly: a missing variable is an error, not an empty string."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any


@lru_cache(maxsize=1)
def _env() -> Any:
    import jinja2
    return jinja2.Environment(loader=jinja2.FileSystemLoader(str(Path(__file__).parent)), undefined=jinja2.StrictUndefined,
                              keep_trailing_newline=True, autoescape=False)


def render_template(name: str, **values: Any) -> str:
    return _env().get_template(name).render(**values)
