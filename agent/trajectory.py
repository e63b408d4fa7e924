"""The artifact directory of a run: everything it saw and made, in files a person can read.

    run.json             exit status, reason, node path, usage, where the kernel is (written last)
    config.json          the settings the run was started with (RunSettings), and each change made on resume
    model_calls.jsonl    every prompt and reply (RecordingModel); `--model replay:` reads it back
    events.jsonl         one line per node run: what it did (and one per resume, with the settings it changed)
    trace.json           the traced reference
    plan.v<N>.json       plans
    dsl/v<N>.dsl.py      DSL versions, with dsl/v<N>.check.json
    project/v<N>/        kernel project versions (holes filled)
    verdicts/v<N>.json   full referee verdicts
    kernel/              the final project (the passing one, or the last one tried)
"""
from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any


class Artifacts:
    def __init__(self, root: str | Path):
        self.root = Path(root)

    @property
    def calls(self) -> Path:
        return self.root / "model_calls.jsonl"

    def write(self, rel: str, text: str) -> Path:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path

    def write_json(self, rel: str, data: Any) -> Path:
        return self.write(rel, json.dumps(data, indent=1, default=str, ensure_ascii=False) + "\n")

    def event(self, node: str, **fields: Any) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        with (self.root / "events.jsonl").open("a", encoding="utf-8") as f:
            f.write(json.dumps({"t": round(time.time(), 3), "node": node, **fields}, default=str, ensure_ascii=False) + "\n")

    def events(self) -> list[dict[str, Any]]:
        path = self.root / "events.jsonl"
        if not path.exists():
            return []
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]

    def save_project(self, project: Any, rel: str) -> Path:
        """Write a KernelProject below `rel` (replacing what was there)."""
        import shutil
        target = self.root / rel
        shutil.rmtree(target, ignore_errors=True)
        return project.write(target)

    def reset(self) -> None:
        """Remove what an earlier run left here (only our own files: --out may name a shared folder)."""
        import shutil
        for name in ("run.json", "config.json", "model_calls.jsonl", "events.jsonl", "trace.json"):
            (self.root / name).unlink(missing_ok=True)
        for f in self.root.glob("plan.v*.json"):
            f.unlink()
        for name in ("dsl", "project", "verdicts", "kernel"):
            shutil.rmtree(self.root / name, ignore_errors=True)

    def summary(self) -> dict[str, Any] | None:
        path = self.root / "run.json"
        return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None
