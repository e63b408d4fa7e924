"""Run a corpus of other people's kernels through `kernelwright verify` and tabulate the verdicts.

Two kinds of corpus, neither part of the repository (fetch them yourself):

* an NPUKernelBench checkout (`weich97/NPUKernelBench`): every `tasks/<level>/<Category>/<Op>/answer/0`
  golden is verified against its own task directory with the `npukb` preset;
* a pairs file (JSON lines), e.g. MultiKernelBench answers that passed on a real NPU: one object per
  answer, `{"name", "answer", "task", "tolerance"?, "source"?, "group"?}`; relative paths are read from the
  file's directory; the default preset is `mkb`.

Each verdict is kept in `OUT/results.jsonl` (a rerun skips what is there; `--redo` runs it again), one
line per answer with its class: `pass`, or the stage that failed and the rule, compiler symbol or
mismatch behind it (`build: no member 'TOTAL_VEC_LOCAL_SIZE'`, `run: gm.out_of_bounds`,
`compare: tolerance`, ...). The table at the end counts classes per group (level or category).

`--kernel-only` judges only the operator of a benchmark answer (OpDef, tiling, kernel), bound by the
referee's static binding, without its ModelNew and pybind glue: it measures how far the emulation
gets when the answer's harness glue is set aside.

    python -m kernelwright.evals.corpus_verify npukb PATH/NPUKernelBench --out DIR [--levels level1 level2]
    python -m kernelwright.evals.corpus_verify pairs PAIRS.jsonl --out DIR [--filter SUBSTR] [--names FILE]
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from kernelwright.tools.formats.registry import load

_NO_MEMBER = re.compile(r"no (?:member|type|template) named '([^']+)'")
_UNDECLARED = re.compile(r"use of undeclared identifier '([^']+)'")
_NO_FILE = re.compile(r"'([^']+)' file not found")
_RULE = re.compile(r"\[([a-z0-9_]+\.[a-z0-9_.]+)[\],]")


def npukb_items(root: Path, levels: list[str]) -> list[dict[str, Any]]:
    items = []
    for answer in sorted((root / "tasks").glob("*/*/*/answer/0")):
        task = answer.parent.parent
        level = task.parent.parent.name
        if levels and level not in levels:
            continue
        items.append({"name": f"{level}/{task.parent.name}/{task.name}", "answer": str(answer), "task": str(task),
                      "tolerance": "npukb", "group": level, "source": "weich97/NPUKernelBench"})
    return items


def pairs_items(path: Path) -> list[dict[str, Any]]:
    items = []
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        item = json.loads(line)
        for key in ("answer", "task"):
            p = Path(item[key])
            item[key] = str(p if p.is_absolute() else (path.parent / p))
        item.setdefault("name", Path(item["answer"]).stem)
        item.setdefault("tolerance", "mkb")
        item.setdefault("group", "")
        items.append(item)
    return items


def _first_line(text: str) -> str:
    return (text or "").strip().splitlines()[0][:200] if (text or "").strip() else ""


def failure_class(verdict: dict[str, Any]) -> str:
    """`pass`, or `<stage>: <what>` naming the first failing stage's rule, symbol or mismatch."""
    if verdict.get("status") == "pass":
        return "pass"
    for stage in verdict.get("stages", []):
        if stage.get("status") not in ("fail", "error"):
            continue
        name = stage["name"]
        errors = [d for d in stage.get("diagnostics", []) if d.get("severity") == "error"]
        for d in errors:
            msg = d.get("message", "")
            for pattern, what in ((_NO_MEMBER, "no member"), (_UNDECLARED, "undeclared"), (_NO_FILE, "no file")):
                m = pattern.search(msg)
                if m:
                    return f"{name}: {what} '{m.group(1)}'"
        if errors:
            d = errors[0]
            return f"{name}: {d.get('rule') or d.get('category') or _first_line(d.get('message', ''))}"
        failed = [r for r in verdict.get("runs", []) if r.get("status") in ("fail", "error")]
        if name == "run" and failed:   # the run's own finding: `[rule]` in its reason, else the reason
            found = _RULE.search(failed[0].get("reason", ""))
            return f"run: {found.group(1) if found else _first_line(failed[0].get('reason', ''))}"
        if name == "compare":
            rules = [m["rule"] for r in verdict.get("runs", []) for m in r.get("mismatches", [])]
            if rules:
                return f"compare: {collections.Counter(rules).most_common(1)[0][0]}"
        if name == "run" and not failed and verdict.get("skipped_cases"):   # nothing judged: say why, not a note
            return f"run: not judged: {_first_line(next(iter(verdict['skipped_cases'].values())))[:160]}"
        if stage.get("findings"):
            return f"{name}: {_first_line(stage['findings'][0])}"
        return f"{name}: {_first_line(stage.get('summary', ''))}"
    return f"{verdict.get('status', 'error')}: {_first_line(verdict.get('summary', ''))}"


def operator_only(answer: str, where: Path) -> str:
    """The answer's operator project without its harness glue (ModelNew, pybind), written to `where`."""
    project = load(answer).model_copy(update={"glue": {}})
    return str(project.write(where))


def verify_one(item: dict[str, Any], home: Path, timeout: float, operators: Path | None = None) -> dict[str, Any]:
    """One verdict; with `operators`, of the answer's operator alone, written under that directory."""
    answer = item["answer"]
    if operators is not None:
        try:
            answer = operator_only(answer, operators / item["name"].replace("/", "_"))
        except Exception as e:  # an answer our importer cannot read is a result, not a crash of the sweep
            return {**item, "status": "error", "class": f"import: {_first_line(str(e))}", "seconds": 0.0}
    cmd = [sys.executable, "-m", "kernelwright.agent.cli", "verify", answer, "--task", item["task"],
           "--tolerance", item["tolerance"], "--json"]
    env = dict(os.environ, KERNELWRIGHT_HOME=str(home))
    start = time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {**item, "status": "error", "class": f"harness: no verdict within {timeout:.0f} s",
                "seconds": round(time.perf_counter() - start, 1)}
    seconds = round(time.perf_counter() - start, 1)
    try:
        verdict = json.loads(proc.stdout)
    except json.JSONDecodeError:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or [""]
        kind = "traceback" if "Traceback" in proc.stderr else "no verdict"
        return {**item, "status": "error", "class": f"{kind}: {tail[0][:200]}", "seconds": seconds,
                "exit": proc.returncode}
    return {**item, "status": verdict.get("status"), "class": failure_class(verdict),
            "summary": verdict.get("summary", ""), "seconds": seconds, "exit": proc.returncode}


def _done(results: Path) -> dict[str, dict[str, Any]]:
    if not results.is_file():
        return {}
    rows = [json.loads(line) for line in results.read_text().splitlines() if line.strip()]
    return {r["name"]: r for r in rows}


def report(rows: list[dict[str, Any]]) -> str:
    lines = []
    groups = collections.defaultdict(list)
    for r in rows:
        groups[r.get("group", "")].append(r)
    total = sum(r["class"] == "pass" for r in rows)
    # a pass judged on a sample of blocks at the task's own shapes (referee/sampled.py) is said as such
    sampled = sum(r["class"] == "pass" and "on sampled blocks" in r.get("summary", "") for r in rows)
    lines.append(f"passed {total} of {len(rows)}" + (f" ({sampled} of them on sampled blocks)" if sampled else ""))
    for g, rs in sorted(groups.items()):
        lines.append(f"  {g or '(all)'}: {sum(r['class'] == 'pass' for r in rs)} of {len(rs)}")
    lines.append("failure classes:")
    for cls, n in collections.Counter(r["class"] for r in rows if r["class"] != "pass").most_common():
        lines.append(f"  {n:3}  {cls}")
    lines.append("failures:")
    for r in sorted(rows, key=lambda r: r["name"]):
        if r["class"] != "pass":
            lines.append(f"  {r['name']:55} {r['class']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("kind", choices=["npukb", "pairs"])
    ap.add_argument("path", type=Path, help="NPUKernelBench checkout, or a pairs .jsonl")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--levels", nargs="*", default=[], help="npukb: only these levels (level1 level2 level3)")
    ap.add_argument("--filter", default="", help="only answers whose name contains this")
    ap.add_argument("--names", type=Path, help="only the answers named in this file (one a line), in its order")
    ap.add_argument("--home", type=Path, help="KERNELWRIGHT_HOME for the runs (default OUT/home; builds cached)")
    ap.add_argument("--timeout", type=float, default=1200.0, help="seconds per answer")
    ap.add_argument("--redo", action="store_true", help="run answers that already have a result again")
    ap.add_argument("--kernel-only", action="store_true", help="judge the operator of each answer without its ModelNew "
                    "and pybind glue (static binding)")
    args = ap.parse_args(argv)

    items = npukb_items(args.path, args.levels) if args.kind == "npukb" else pairs_items(args.path)
    items = [i for i in items if args.filter in i["name"]]
    if args.names:  # a chosen subset first (e.g. what failed last time), when a whole sweep does not fit the time
        order = [n.strip() for n in args.names.read_text().splitlines() if n.strip()]
        by_name = {i["name"]: i for i in items}
        items = [by_name[n] for n in order if n in by_name]
    args.out.mkdir(parents=True, exist_ok=True)
    results = args.out / "results.jsonl"
    done = {} if args.redo else _done(results)
    home = args.home or args.out / "home"
    for n, item in enumerate(items, 1):
        if item["name"] in done:
            continue
        row = verify_one(item, home, args.timeout, args.out / "operators" if args.kernel_only else None)
        with results.open("a") as f:
            f.write(json.dumps(row) + "\n")
        print(f"[{n}/{len(items)}] {item['name']}: {row['class']} ({row['seconds']} s)", flush=True)
    final = _done(results)
    text = report([final[i["name"]] for i in items if i["name"] in final])
    (args.out / "summary.txt").write_text(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
