"""The user's own documentation (`kernelwright docs add`): files chunked with provenance and kept
under the user data dir, so the index can be rebuilt and entries removed again."""
from __future__ import annotations

import hashlib
import json
import re
from datetime import datetime, timezone
from pathlib import Path

from pydantic import BaseModel

from kernelwright.errors import UserError
from kernelwright.knowledge.chunking import SPLITTERS, UnsupportedDocument, split_document
from kernelwright.knowledge.models import Chunk
from kernelwright.knowledge.paths import knowledge_home


class DocError(UserError):
    """Bad input to docs add/remove: the message names the path and what to do."""


class UserDoc(BaseModel):
    id: str
    path: str
    sha256: str
    added: str
    chunks: list[Chunk]


def doc_id_for(path: Path) -> str:
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", path.stem).strip("-") or "doc"
    return f"user/{slug}-{hashlib.sha1(str(path).encode()).hexdigest()[:8]}"


class UserDocs:
    def __init__(self, home: Path | None = None):
        self.dir = (home or knowledge_home()) / "user_docs"

    def _file(self, doc_id: str) -> Path:
        return self.dir / (doc_id.split("/", 1)[1] + ".json")

    def add(self, path: Path) -> UserDoc:
        """Chunk one file and store it (re-adding a path replaces its earlier chunks)."""
        path = path.expanduser().resolve()
        if not path.is_file():
            raise DocError(f"{path}: no such file (docs add takes files or folders of "
                           f"{', '.join(sorted(SPLITTERS))})")
        raw = path.read_bytes()
        text = raw.decode("utf-8", errors="replace")
        try:
            sections = split_document(path, text)
        except UnsupportedDocument as exc:
            raise DocError(str(exc)) from exc
        if not sections:
            raise DocError(f"{path}: nothing to index (the file has no text)")
        doc_id = doc_id_for(path)
        chunks = [Chunk(doc_id=doc_id, kind="user", title=path.name, heading=s.heading,
                        text=f"{path.name} — {s.heading}\n{s.text}" if s.heading else s.text,
                        source=str(path), line_start=s.line_start, line_end=s.line_end)
                  for s in sections]
        doc = UserDoc(id=doc_id, path=str(path), sha256=hashlib.sha256(raw).hexdigest(),
                      added=datetime.now(timezone.utc).isoformat(timespec="seconds"), chunks=chunks)
        self.dir.mkdir(parents=True, exist_ok=True)
        self._file(doc_id).write_text(doc.model_dump_json(), encoding="utf-8")
        return doc

    def add_paths(self, paths: list[Path]) -> list[UserDoc]:
        """Files as given (an unsupported one is an error); folders walked for supported files."""
        files: list[Path] = []
        for path in paths:
            path = path.expanduser()
            if path.is_dir():
                files.extend(p for p in sorted(path.rglob("*")) if p.is_file() and p.suffix.lower() in SPLITTERS)
            elif path.is_file():
                files.append(path)
            else:
                raise DocError(f"{path}: no such file or folder")
        for file in files:  # validate every file before storing any of them
            if file.suffix.lower() not in SPLITTERS:
                raise DocError(f"{file}: unsupported document type '{file.suffix or '(none)'}'; "
                               f"supported: {', '.join(sorted(SPLITTERS))}")
        return [self.add(file) for file in files]

    def list(self) -> list[UserDoc]:
        if not self.dir.exists():
            return []
        return [UserDoc(**json.loads(p.read_text(encoding="utf-8"))) for p in sorted(self.dir.glob("*.json"))]

    def remove(self, path_or_id: str) -> list[UserDoc]:
        """Remove by id, by file path, or every document under a folder path."""
        target = str(Path(path_or_id).expanduser().resolve())
        gone = [doc for doc in self.list()
                if path_or_id in (doc.id, doc.path) or doc.path == target or doc.path.startswith(target + "/")]
        if not gone:
            known = ", ".join(doc.id for doc in self.list()) or "none"
            raise DocError(f"'{path_or_id}' matches no added document (ids: {known}); see `kernelwright docs list`")
        for doc in gone:
            self._file(doc.id).unlink()
        return gone

    def chunks(self) -> list[Chunk]:
        return [chunk for doc in self.list() for chunk in doc.chunks]

    def stamp(self) -> tuple:
        if not self.dir.exists():
            return ()
        return tuple((p.name, p.stat().st_mtime_ns) for p in sorted(self.dir.glob("*.json")))
