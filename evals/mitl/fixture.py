"""Keep a model-in-the-loop run as a replay fixture: the replies of its model_calls.jsonl (node, reply, usage),
without the request texts (they quote the benchmark's task file, which stays out of the repository); the
replay tests run the replies against our own stand-in task of the same signature.

    python -m evals.mitl.fixture OUT_ROOT/<round>-<task>/kw-<round>-<task>/model_calls.jsonl \
        tests/agent/transcripts/mitl/<task>.jsonl --note "r1, player p1, agent bde3a4d: passed"
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path


def fixture_lines(calls: Path, note: str) -> list[str]:
    lines = [f"# model-in-the-loop transcript ({note}); replies as the model-playing helper wrote them"]
    for raw in calls.read_text(encoding="utf-8").splitlines():
        if not raw.strip():
            continue
        entry = json.loads(raw)
        kept = {"node": entry.get("node")}
        kept |= {"error": entry["error"]} if "error" in entry else {"reply": entry["reply"], "usage": entry.get("usage")}
        lines.append(json.dumps({k: v for k, v in kept.items() if v is not None}, ensure_ascii=False))
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("calls", type=Path)
    ap.add_argument("fixture", type=Path)
    ap.add_argument("--note", required=True)
    args = ap.parse_args()
    args.fixture.parent.mkdir(parents=True, exist_ok=True)
    args.fixture.write_text("\n".join(fixture_lines(args.calls, args.note)) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
