"""ReplayModel: plays a recorded transcript (JSONL) back, one reply per request, in order.

Each line is one exchange: `{"node": "dsl_writer", "reply": "..."}` (or `"reply_file": "v1.md"`, a
file beside the transcript holding the reply), optionally `"expect": ["text", ...]` (strings the
request must contain) and `"usage"`. Files written by `RecordingModel` also hold the `messages`;
with `strict=True` they must match the request. Blank lines and lines starting with `#` are
comments. When the graph asks something the recording does not hold, `TranscriptDiverged` says
where and how the conversation left the recording."""
from __future__ import annotations

import difflib
import json
from pathlib import Path

from pydantic import BaseModel

from kernelwright.agent.models.base import Message, ModelError, Reply, TranscriptDiverged, Usage, estimated_usage
from kernelwright.errors import ConfigError


def load_transcript(path: str | Path) -> list[dict]:
    """The exchanges of a transcript; a file that is missing or malformed is bad input (ConfigError)."""
    p = Path(path)
    if not p.is_file():
        raise ConfigError(f"replay:{p}: no such transcript file (a model_calls.jsonl of an earlier run)")
    entries = []
    for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            entry = json.loads(line)
        except json.JSONDecodeError as e:
            raise ConfigError(f"{p}:{n}: not a JSON object ({e.msg}); each line is one exchange like "
                             '{"node": "planner", "reply": "..."}') from None
        if "reply_file" in entry:
            if not (p.parent / entry["reply_file"]).is_file():
                raise ConfigError(f"{p}:{n}: no reply file {entry['reply_file']} beside the transcript")
            entry["reply"] = (p.parent / entry["reply_file"]).read_text(encoding="utf-8")
        if "reply" not in entry and "error" not in entry:
            raise ConfigError(f"{p}:{n}: the exchange has neither `reply` nor `reply_file` nor `error`")
        entries.append(entry | {"_line": n})
    return entries


def _flat(messages: list[Message]) -> list[str]:
    return [f"[{m.get('role')}] {line.rstrip()}" for m in messages for line in m.get("content", "").splitlines()]


class ReplayModel:
    def __init__(self, path: str | Path, strict: bool = False):
        self.path = Path(path)
        self.entries = load_transcript(self.path)
        self.strict = strict
        self.position = 0
        self.name = f"replay:{self.path.name}"

    def seek(self, calls: int) -> None:
        """Resume after `calls` exchanges (a run restarted from its checkpoint)."""
        self.position = calls

    @property
    def remaining(self) -> int:
        return len(self.entries) - self.position

    def complete(self, messages: list[Message], *, node: str = "",
                 schema: type[BaseModel] | None = None) -> Reply:
        where = f"replay {self.path.name}"
        if self.position >= len(self.entries):
            raise TranscriptDiverged(f"{where}: node '{node}' asked for exchange {self.position + 1}, but the recording "
                                     f"has {len(self.entries)}; the graph went on where the recorded run had stopped")
        entry = self.entries[self.position]
        at = f"{where} line {entry['_line']} (exchange {self.position + 1})"
        if entry.get("node") and node and entry["node"] != node:
            raise TranscriptDiverged(f"{at}: the recording answers node '{entry['node']}' here, but node '{node}' "
                                     "asked; the conversation diverged from the recording")
        text = "\n".join(m.get("content", "") for m in messages)
        missing = [s for s in entry.get("expect", []) if s not in text]
        if missing:
            raise TranscriptDiverged(f"{at}: the request to '{node}' should contain {missing!r} and does not; "
                                     f"the conversation diverged (request ends with: {text[-300:]!r})")
        if self.strict and "messages" in entry:
            diff = list(difflib.unified_diff(_flat(entry["messages"]), _flat(messages), "recorded", "now", n=1, lineterm=""))
            if diff:
                raise TranscriptDiverged(f"{at}: the request to '{node}' differs from the recording:\n" + "\n".join(diff[:40]))
        self.position += 1
        if "error" in entry:
            raise ModelError(f"{at}: recorded error: {entry['error']}")
        usage = Usage(**entry["usage"]) if "usage" in entry else estimated_usage(messages, entry["reply"])
        return Reply(content=entry["reply"], usage=usage.model_copy(update={"calls": 1}), model=self.name)
