"""The error→fix memory: every successful repair can be recorded (error signature, diff,
explanation, provenance) in a JSONL file and found again for a similar error."""
from __future__ import annotations

import hashlib
import json
import re
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from kernelwright.knowledge.lookup import clean_query
from kernelwright.knowledge.models import Chunk
from kernelwright.knowledge.paths import knowledge_home
from kernelwright.knowledge.similarity import name_tokens

if TYPE_CHECKING:
    from kernelwright.knowledge.retriever import Retriever

_ERROR_LINE = re.compile(r"\b(?:error|Failed to|ERROR|fatal)\b")
_NUMBERS = re.compile(r"\b\d+\b")


def error_signature(error: str, max_lines: int = 3) -> str:
    """The error lines of a log without paths, line numbers and counts, so two runs that hit the
    same misuse in different files share one signature."""
    lines = [clean_query(line, 400) for line in error.splitlines() if line.strip()]
    picked = [line for line in lines if _ERROR_LINE.search(line)][:max_lines] or lines[:1]
    return _NUMBERS.sub("N", " | ".join(picked))


class FixRecord(BaseModel):
    id: str
    signature: str
    error: str
    diff: str
    explanation: str
    provenance: dict[str, str] = Field(default_factory=dict)  # task, run id, soc, stage, ...
    created: str

    @property
    def doc_id(self) -> str:
        return f"fix/{self.id}"

    def as_chunk(self) -> Chunk:
        text = (f"Past fix for: {self.signature}\nExplanation: {self.explanation}\n"
                f"Error:\n{self.error[:600]}\nDiff:\n{self.diff[:1200]}")
        return Chunk(doc_id=self.doc_id, kind="fix", title=f"fix {self.id}", heading=self.signature[:120],
                     text=text, source=f"fixes.jsonl#{self.id}", socs=None)


class FixMemory:
    def __init__(self, home: Path | None = None):
        self.path = (home or knowledge_home()) / "fixes.jsonl"

    def record(self, error: str, diff: str, explanation: str,
               provenance: dict[str, str] | None = None) -> FixRecord:
        """Store one repair; recording the same signature and diff again returns the stored one."""
        if not error.strip() or not diff.strip():
            raise ValueError("record a fix with a non-empty error text and diff "
                             f"(got {len(error)} and {len(diff)} characters)")
        signature = error_signature(error)
        fix_id = hashlib.sha1(f"{signature}\n{diff}".encode()).hexdigest()[:12]
        for existing in self.all():
            if existing.id == fix_id:
                return existing
        record = FixRecord(id=fix_id, signature=signature, error=error.strip(), diff=diff,
                           explanation=explanation.strip(), provenance=dict(provenance or {}),
                           created=datetime.now(timezone.utc).isoformat(timespec="seconds"))
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as out:
            out.write(record.model_dump_json() + "\n")
        return record

    def all(self) -> list[FixRecord]:
        if not self.path.exists():
            return []
        return [FixRecord(**json.loads(line)) for line in self.path.read_text(encoding="utf-8").splitlines()
                if line.strip()]

    def chunks(self) -> list[Chunk]:
        return [record.as_chunk() for record in self.all()]

    def similar(self, error: str, k: int = 3, retriever: Retriever | None = None) -> list[FixRecord]:
        """Past fixes for an error: same signature first, then the index's nearest fixes (or, with
        no retriever, the ones sharing most signature words)."""
        records = self.all()
        by_doc = {r.doc_id: r for r in records}
        signature = error_signature(error)
        ranked = [r for r in reversed(records) if r.signature == signature]
        if retriever is not None:
            ranked += [by_doc[p.doc_id] for p in retriever.search(error, k=k, kinds=["fix"]) if p.doc_id in by_doc]
        else:
            words = name_tokens(signature)
            overlap = sorted(records, key=lambda r: -len(words & name_tokens(r.signature)))
            ranked += [r for r in overlap if words & name_tokens(r.signature)]
        by_id = {r.id: r for r in records}
        return [by_id[fix_id] for fix_id in dict.fromkeys(r.id for r in ranked)][:k]
