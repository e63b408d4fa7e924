"""The example DSL programs under prompts/examples/<family>/ and the tasks (PyTorch references in
KernelBench form) each one is checked against. They are the writer's few-shot examples and the
tests' end-to-end cases at once (prompts/examples/index.json lists them)."""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, Field

ROOT = Path(__file__).resolve().parents[2] / "prompts" / "examples"


class ExampleTask(BaseModel):
    path: str                                   # relative to prompts/examples
    dtypes: list[str] = Field(default_factory=lambda: ["float32"])
    tolerance: str = "default"


class Example(BaseModel):
    family: str
    program: str                                # relative to prompts/examples
    tasks: list[ExampleTask]
    summary: str = ""

    @property
    def name(self) -> str:
        return Path(self.program).name.removesuffix(".dsl.py")

    def program_path(self) -> Path:
        return ROOT / self.program

    def task_path(self, t: ExampleTask) -> Path:
        return ROOT / t.path


@lru_cache(maxsize=1)
def examples() -> tuple[Example, ...]:
    doc = json.loads((ROOT / "index.json").read_text())
    return tuple(Example(**e) for e in doc["examples"])


def by_family() -> dict[str, list[Example]]:
    out: dict[str, list[Example]] = {}
    for e in examples():
        out.setdefault(e.family, []).append(e)
    return out
