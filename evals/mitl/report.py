"""Summarise a model-in-the-loop suite: the last row per task of OUT_ROOT/results.jsonl (optionally only some
rounds) as a markdown table, with the pass count and the median model calls of the passing tasks.

    python -m evals.mitl.report /work/scratch/mitl/out [--rounds r1,r1b]
"""
from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path


def rows(out_root: Path, rounds: set[str] | None) -> dict[str, dict]:
    last: dict[str, dict] = {}
    for line in (out_root / "results.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if rounds is None or row["round"] in rounds:
            last[row["task"]] = row
    return last


def table(last: dict[str, dict]) -> str:
    out = ["| task | round | verdict | exit | calls | per node | est. tokens | wall s |", "|---|---|---|---|---|---|---|---|"]
    for task, r in last.items():
        nodes = ", ".join(f"{k} {v}" for k, v in r["calls_per_node"].items())
        out.append(f"| {task} | {r['round']} | {r['status']} | {r['exit']} | {r['calls']} | {nodes} | {r['est_tokens']} "
                   f"| {r['wall_s']:.0f} |")
    passed = [r for r in last.values() if r["status"] == "passed"]
    median = statistics.median(r["calls"] for r in passed) if passed else None
    crashes = sum(bool(r.get("traceback")) for r in last.values())
    out.append(f"\n{len(passed)}/{len(last)} passed; median calls of the passing tasks: {median}; "
               f"runs with a traceback: {crashes}")
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out_root", type=Path)
    ap.add_argument("--rounds", default=None)
    args = ap.parse_args()
    print(table(rows(args.out_root, set(args.rounds.split(",")) if args.rounds else None)))


if __name__ == "__main__":
    main()
