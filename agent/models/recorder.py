"""RecordingModel: wraps any ChatModel and appends every exchange of a run to a JSONL file
(node, messages, reply, usage, seconds; or the error). `ReplayModel` reads the same file back."""
from __future__ import annotations

import json
import time
from pathlib import Path

from pydantic import BaseModel

from kernelwright.agent.models.base import ChatModel, Message, Reply


class RecordingModel:
    def __init__(self, inner: ChatModel, path: str | Path):
        self.inner = inner
        self.path = Path(path)
        self.name = inner.name

    def complete(self, messages: list[Message], *, node: str = "",
                 schema: type[BaseModel] | None = None) -> Reply:
        entry: dict = {"node": node, "model": self.inner.name, "messages": messages,
                       "schema": schema.__name__ if schema else None}
        start = time.monotonic()
        try:
            reply = self.inner.complete(messages, node=node, schema=schema)
        except BaseException as e:
            entry |= {"error": f"{type(e).__name__}: {e}", "seconds": round(time.monotonic() - start, 3)}
            self._append(entry)
            raise
        entry |= {"reply": reply.content, "usage": reply.usage.model_dump(), "seconds": round(reply.seconds or
                                                                                              time.monotonic() - start, 3)}
        self._append(entry)
        return reply

    def _append(self, entry: dict) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as f:
            f.write(json.dumps(entry, ensure_ascii=False) + "\n")

    def seek(self, calls: int) -> None:
        """Resuming a run: let a replayed inner model skip the calls the checkpoint already holds."""
        if hasattr(self.inner, "seek"):
            self.inner.seek(calls)
