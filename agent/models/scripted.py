"""ScriptedModel: replies from a list, for tests. An entry is the reply text, an exception to raise,
or a dict {"content": ..., "node": expected node, "raise": exception}."""
from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from kernelwright.agent.models.base import Message, Reply, TranscriptDiverged, estimated_usage


class ScriptedModel:
    def __init__(self, replies: list[Any], name: str = "scripted"):
        self.replies = list(replies)
        self.name = name
        self.calls: list[tuple[str, list[Message]]] = []     # (node, messages) of every request

    def complete(self, messages: list[Message], *, node: str = "",
                 schema: type[BaseModel] | None = None) -> Reply:
        i = len(self.calls)
        self.calls.append((node, messages))
        if i >= len(self.replies):
            raise TranscriptDiverged(f"scripted model: node '{node}' asked for reply {i + 1}, the script has "
                                     f"{len(self.replies)}; add a reply or check why the graph asked again")
        entry = self.replies[i]
        if isinstance(entry, BaseException):
            raise entry
        if isinstance(entry, dict):
            if entry.get("node") and entry["node"] != node:
                raise TranscriptDiverged(f"scripted model: reply {i + 1} is meant for node '{entry['node']}' but "
                                         f"node '{node}' asked")
            if entry.get("raise") is not None:
                raise entry["raise"]
            entry = entry["content"]
        return Reply(content=str(entry), usage=estimated_usage(messages, str(entry)), model=self.name)
