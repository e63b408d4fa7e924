"""The persistent Chroma index of all chunks (built-in corpus, user documents, fixes).

`sync` makes the stored chunks equal to the wanted ones: chunk ids carry a content digest, so a
changed corpus re-embeds only what changed; a manifest with the overall hash makes the common
case (nothing changed) cost one small file read."""
from __future__ import annotations

import fcntl
import hashlib
import json
import re
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from kernelwright.knowledge.embedding import MODEL_ID, embed, embedding_function
from kernelwright.knowledge.models import Chunk
from kernelwright.tools.hardware import soc_names

COLLECTION = "kernelwright-knowledge"
SCHEMA = 4  # bump when chunk metadata or the embedded text changes shape
_BATCH = 256
_EMBED_CHARS = 700  # ~180 word pieces; MiniLM was trained on 128-token inputs
_FENCE = re.compile(r"```.*?(?:```|$)", re.S)


@dataclass
class SyncReport:
    chunks: int
    added: int  # embedded and stored
    removed: int
    seconds: float
    rebuilt: bool  # True when the collection was (re)created from scratch
    moved: int = 0  # unchanged text whose provenance (lines, title) changed: metadata updated only


@dataclass
class Hit:
    id: str
    text: str
    meta: dict
    score: float  # cosine similarity, higher is closer


def corpus_hash(chunks: list[Chunk]) -> str:
    """Hash of everything stored: content and provenance (a moved section changes it too)."""
    digest = hashlib.sha256(f"{SCHEMA}\n{MODEL_ID}\n".encode())
    for line in sorted(c.model_dump_json() for c in chunks):
        digest.update(line.encode() + b"\n")
    return digest.hexdigest()


def embedding_text(chunk: Chunk) -> str:
    """What the model reads: the prose of a chunk. Code blocks cost most of the embedding time and
    mostly add noise for MiniLM; the stored document keeps them (and exact lookup returns whole cards)."""
    prose = " ".join(_FENCE.sub(" ", chunk.text).split())
    return (prose if len(prose) >= 40 else " ".join(chunk.text.split()))[:_EMBED_CHARS]


def _ids_and_metadatas(result: dict) -> tuple[list[str], list[dict]]:
    return result["ids"], result["metadatas"] or [{} for _ in result["ids"]]


def soc_flag(name: str) -> str:
    return f"soc_{name}"


def _metadata(chunk: Chunk, all_socs: list[str]) -> dict:
    meta = {"doc_id": chunk.doc_id, "kind": chunk.kind, "title": chunk.title, "heading": chunk.heading,
            "source": chunk.source, "line_start": chunk.line_start, "line_end": chunk.line_end}
    applies = set(all_socs if chunk.socs is None else chunk.socs)
    meta.update({soc_flag(name): name in applies for name in all_socs})
    return meta


class VectorIndex:
    def __init__(self, directory: Path):
        self.dir = directory
        self.manifest_path = directory / "manifest.json"
        self._client = None
        self._collection = None

    def manifest(self) -> dict:
        try:
            return json.loads(self.manifest_path.read_text())
        except (FileNotFoundError, json.JSONDecodeError):
            return {}

    def is_current(self, chunks: list[Chunk]) -> bool:
        return self.manifest().get("hash") == corpus_hash(chunks)

    @contextmanager
    def _lock(self):
        self.dir.mkdir(parents=True, exist_ok=True)
        with open(self.dir / "lock", "w") as handle:  # other processes (batch jobs) wait here
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def client(self):
        if self._client is None:
            import chromadb
            from chromadb.config import Settings

            self._client = chromadb.PersistentClient(path=str(self.dir / "chroma"),
                                                     settings=Settings(anonymized_telemetry=False))
        return self._client

    def collection(self):
        if self._collection is None:
            self._collection = self.client().get_or_create_collection(
                COLLECTION, embedding_function=embedding_function(), metadata={"hnsw:space": "cosine"})
        return self._collection

    def sync(self, chunks: list[Chunk], force: bool = False) -> SyncReport:
        start = time.perf_counter()
        with self._lock():
            unique = len({c.id for c in chunks})
            if not force and self.is_current(chunks):
                return SyncReport(unique, 0, 0, time.perf_counter() - start, False)
            previous = self.manifest()
            if previous and (previous.get("schema"), previous.get("model")) != (SCHEMA, MODEL_ID):
                force = True  # stored vectors came from another model or embedding text: all stale
            if force and COLLECTION in [c.name for c in self.client().list_collections()]:
                self.client().delete_collection(COLLECTION)
                self._collection = None
            collection = self.collection()
            stored = dict(zip(*_ids_and_metadatas(collection.get(include=["metadatas"]))))
            all_socs = soc_names()
            wanted = {}
            for chunk in chunks:  # identical sections of one document collapse into one entry
                wanted.setdefault(chunk.id, chunk)
            metas = {i: _metadata(c, all_socs) for i, c in wanted.items()}
            stale = sorted(stored.keys() - wanted.keys())
            fresh = [i for i in wanted if i not in stored]
            moved = [i for i in wanted if i in stored and stored[i] != metas[i]]
            for i in range(0, len(stale), _BATCH):
                collection.delete(ids=stale[i:i + _BATCH])
            for i in range(0, len(moved), _BATCH):
                batch = moved[i:i + _BATCH]
                collection.update(ids=batch, metadatas=[metas[x] for x in batch])
            for i in range(0, len(fresh), _BATCH):
                batch = fresh[i:i + _BATCH]
                collection.add(ids=batch, documents=[wanted[x].text for x in batch],
                               embeddings=embed([embedding_text(wanted[x]) for x in batch]),
                               metadatas=[metas[x] for x in batch])
            seconds = time.perf_counter() - start
            self.manifest_path.write_text(json.dumps({
                "hash": corpus_hash(chunks), "schema": SCHEMA, "model": MODEL_ID, "chunks": len(chunks),
                "built_at": time.strftime("%Y-%m-%dT%H:%M:%S"), "seconds": round(seconds, 3)}, indent=1))
            return SyncReport(unique, len(fresh), len(stale), seconds, force or not stored, len(moved))

    def query(self, text: str, n: int, where: dict | None) -> list[Hit]:
        collection = self.collection()
        result = collection.query(query_embeddings=embed([text]), n_results=n, where=where,
                                  include=["documents", "metadatas", "distances"])
        return [Hit(i, doc, meta, 1.0 - dist) for i, doc, meta, dist in
                zip(result["ids"][0], result["documents"][0], result["metadatas"][0], result["distances"][0])]
