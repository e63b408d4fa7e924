"""Chat sessions that outlive the terminal. The graph's SQLite checkpoints hold each run's state;
this small index (`sessions.json` in the chat home, `$KERNELWRIGHT_HOME/chat` by default) holds what
a person needs to find it again: id, name, task, review points, status, artifact directory."""
from __future__ import annotations

import fcntl
import json
import os
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from pydantic import BaseModel, Field


def chat_home(explicit: str | Path | None = None) -> Path:
    from kernelwright.knowledge.paths import kernelwright_home
    home = Path(explicit) if explicit else kernelwright_home() / "chat"
    home.mkdir(parents=True, exist_ok=True)
    return home


class Session(BaseModel):
    id: str                            # the run id (the graph's thread id and the artifact directory's name)
    name: str = ""                     # given with /save NAME
    task: str                          # the task's path
    task_name: str
    artifacts: str
    interrupts: list[str] = Field(default_factory=list)
    model: str = "builtin"
    status: str = "running"            # the agent's exit status, or "running" / "waiting" (at a review point)
    waiting_at: str | None = None      # the review point it is paused at
    pending: dict[str, Any] | None = None   # that review's question and what it shows (plan, DSL, verdict)
    created: float = Field(default_factory=time.time)
    updated: float = Field(default_factory=time.time)


class SessionIndex:
    def __init__(self, home: Path):
        self.path = home / "sessions.json"
        self.lock = home / "sessions.lock"

    @contextmanager
    def _locked(self) -> Iterator[dict[str, dict]]:
        """Read-modify-write under a lock: two terminals may save at once."""
        with self.lock.open("a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            data = json.loads(self.path.read_text(encoding="utf-8")) if self.path.exists() else {}
            yield data
            tmp = self.path.with_name(self.path.name + ".tmp")
            tmp.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
            os.replace(tmp, self.path)

    def all(self) -> list[Session]:
        if not self.path.exists():
            return []
        data = json.loads(self.path.read_text(encoding="utf-8"))
        return sorted((Session.model_validate(v) for v in data.values()), key=lambda s: s.updated)

    def put(self, session: Session) -> Session:
        session = session.model_copy(update={"updated": time.time()})
        with self._locked() as data:
            data[session.id] = session.model_dump()
        return session

    def find(self, key: str) -> Session | None:
        """By id, by name, or by a unique id prefix; the newest when a name was reused."""
        sessions = self.all()
        for s in reversed(sessions):
            if key in (s.id, s.name):
                return s
        matches = [s for s in sessions if s.id.startswith(key)]
        return matches[-1] if len(matches) == 1 else None
