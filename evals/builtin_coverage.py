"""How far the builtin writer (no model) gets, end to end on the CPU emulation, over the built-in suite
(evals/suite, category = its folder) and the builtin writer's test tasks (tests/agent/builtin_tasks,
category = the file's prefix).

Every task is one `kernelwright run TASK --model builtin --backend sim --out DIR --json` in its own
process, one at a time, and is recorded as `passed`, `failed` (the stage that failed and why) or
`unsupported` (the writer said it cannot handle the task and named the ops). Results are appended to
`<out>/results.jsonl` as they come, so an interrupted or partial run resumes (`--resume`); the summary
goes to `<out>/summary.json` and stdout. An on-demand measurement, not a test.

    python -m kernelwright.evals.builtin_coverage --out cov [--only suite|tests] [--filter GLOB]
        [--resume] [--rerun-failed] [--timeout 900] [--home DIR]
"""
from __future__ import annotations

import argparse
import fnmatch
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SUITE = ROOT / "evals" / "suite"
TEST_TASKS = ROOT / "tests" / "agent" / "builtin_tasks"
UNSUPPORTED = re.compile(r"cannot handle (.+?) \(in |knows each op of \S+ \((.+?)\) but not this combination")


def tasks(only: str | None, pattern: str | None) -> list[tuple[str, str, Path]]:
    """(set, category, path) of every task, suite first."""
    found = []
    if only in (None, "suite"):
        found += [("suite", p.parent.name, p) for p in sorted(SUITE.glob("*/*.py")) if not p.name.startswith("_")]
    if only in (None, "tests"):
        found += [("tests", p.stem.split("_")[0], p) for p in sorted(TEST_TASKS.glob("*.py"))]
    return [t for t in found if not pattern or fnmatch.fnmatch(key(t), pattern)]


def key(t: tuple[str, str, Path]) -> str:
    return f"{t[0]}/{t[1]}/{t[2].stem}"


def classify(res: dict[str, Any]) -> dict[str, Any]:
    """A `kernelwright run --json` result -> outcome, stage, why, ops."""
    status, reason = res.get("status"), res.get("reason") or ""
    if status == "passed":
        return {"outcome": "passed", "stage": "pass", "why": reason}
    m = UNSUPPORTED.search(reason)
    if m and res.get("project_version", 0) in (0, None) and (res.get("verdict") is None):
        return {"outcome": "unsupported", "stage": "planner", "why": reason,
                "ops": [o.strip() for o in (m.group(1) or m.group(2)).split(",")]}
    path = [n for n in res.get("path") or [] if n not in ("finish", "debugger")]
    verdict = res.get("verdict") or {}
    if verdict and verdict.get("status") != "pass":
        stage = f"verify:{verdict.get('stage')}"
    else:
        stage = path[-1] if path else "?"
    return {"outcome": "failed", "stage": stage, "why": reason, "status": status}


def run_one(t: tuple[str, str, Path], out: Path, timeout: float, env: dict[str, str]) -> dict[str, Any]:
    run_dir = out / "runs" / key(t).replace("/", "__")
    cmd = [sys.executable, "-m", "kernelwright.agent.cli", "run", str(t[2]), "--model", "builtin",
           "--backend", "sim", "--out", str(run_dir), "--json"]
    row: dict[str, Any] = {"task": key(t), "set": t[0], "category": t[1], "path": str(t[2].relative_to(ROOT))}
    start = time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env, cwd=ROOT)
    except subprocess.TimeoutExpired:
        row.update(outcome="failed", stage="timeout", why=f"no result in {timeout:.0f} s")
    else:
        try:
            row.update(classify(json.loads(proc.stdout)))
        except (json.JSONDecodeError, AttributeError):
            tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
            row.update(outcome="failed", stage=f"crash(exit {proc.returncode})", why=" | ".join(tail))
    row["seconds"] = round(time.perf_counter() - start, 1)
    row["artifacts"] = str(run_dir)
    return row


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    summary: dict[str, Any] = {}
    for s in ("suite", "tests"):
        mine = [r for r in rows if r["set"] == s]
        if not mine:
            continue
        cats: dict[str, dict[str, int]] = {}
        for r in mine:
            c = cats.setdefault(r["category"], {"passed": 0, "failed": 0, "unsupported": 0})
            c[r["outcome"]] += 1
        summary[s] = {"tasks": len(mine), **{o: sum(r["outcome"] == o for r in mine)
                                            for o in ("passed", "failed", "unsupported")},
                      "by_category": dict(sorted(cats.items()))}
    return summary


def report(rows: list[dict[str, Any]], summary: dict[str, Any]) -> str:
    lines = []
    for s, sm in summary.items():
        lines.append(f"{s}: {sm['passed']}/{sm['tasks']} passed, {sm['failed']} failed, "
                     f"{sm['unsupported']} unsupported")
        for c, n in sm["by_category"].items():
            total = sum(n.values())
            lines.append(f"  {c:14} {n['passed']:3}/{total:<3} passed  {n['failed']} failed  {n['unsupported']} unsupported")
    bad = [r for r in rows if r["outcome"] != "passed"]
    if bad:
        lines.append("not passing:")
        for r in bad:
            what = ", ".join(r.get("ops", [])) if r["outcome"] == "unsupported" else r["why"][:160]
            lines.append(f"  {r['task']:42} {r['outcome']:11} {r['stage']:22} {what}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True, help="directory for results.jsonl, summary.json, runs/")
    ap.add_argument("--only", choices=("suite", "tests"), help="one task set")
    ap.add_argument("--filter", help="glob over set/category/name, e.g. 'suite/loss/*'")
    ap.add_argument("--resume", action="store_true", help="keep recorded results, run only the rest")
    ap.add_argument("--rerun-failed", action="store_true", help="with --resume: run again what did not pass")
    ap.add_argument("--timeout", type=float, default=900, help="seconds per task (default 900)")
    ap.add_argument("--home", type=Path, help="KERNELWRIGHT_HOME for the runs (default: a temporary one)")
    args = ap.parse_args(argv)

    args.out.mkdir(parents=True, exist_ok=True)
    results = args.out / "results.jsonl"
    done: dict[str, dict[str, Any]] = {}
    if args.resume and results.exists():
        for line in results.read_text().splitlines():
            r = json.loads(line)
            done[r["task"]] = r
    else:
        results.write_text("")
    todo = [t for t in tasks(args.only, args.filter) if key(t) not in done
            or (args.rerun_failed and done[key(t)]["outcome"] != "passed")]

    with tempfile.TemporaryDirectory(prefix="kw-coverage-") as tmp:
        env = dict(os.environ, KERNELWRIGHT_HOME=str(args.home or tmp), KERNELWRIGHT_MODEL="builtin")
        for i, t in enumerate(todo, 1):
            row = run_one(t, args.out, args.timeout, env)
            done[row["task"]] = row
            with results.open("a") as f:
                f.write(json.dumps(row) + "\n")
            print(f"[{i}/{len(todo)}] {row['task']:42} {row['outcome']:11} {row['stage']:22} {row['seconds']:6.1f}s",
                  flush=True)

    rows = [done[key(t)] for t in tasks(args.only, None) if key(t) in done]
    summary = summarise(rows)
    (args.out / "summary.json").write_text(json.dumps({"summary": summary, "tasks": rows}, indent=1))
    print(report(rows, summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
