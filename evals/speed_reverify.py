"""Estimate again, with today's referee, the kernels an older `kernelwright bench` run kept: each correct
try's final project is judged once more (one trial, no recheck) and its measure stage gives the speed-up
at the task's own shapes (tools/referee/speed_shapes.py) beside the one at the shrunk shapes. Nothing is
written again: the kernels are the older run's, so a speed table over them (`ascendcraft_speed --tabulate`)
shows what the estimate at the task's shapes says about the same programs.

    python -m kernelwright.evals.speed_reverify --mkb MKB/reference --results OLD/bench/results.jsonl \
        --out DIR [--filter name=relu,elu] ; python -m kernelwright.evals.ascendcraft_speed --tabulate --out DIR

Writes DIR/results.jsonl (the older rows with `artifacts` pointing at DIR/runs/<task>, `est_speedup` and
`status` from the new verdict, `reverified_from` naming the older try) and DIR/runs/<task>/verdicts/v1.json.
Resumable: tasks already in DIR/results.jsonl are skipped. The performance phase is not run again: a row
whose phase kept a candidate has that candidate's program (the older run's final project). With --phase
(after the rows are in) each row whose older phase ran gets DIR/runs/<task>/run.json with the phase's
`before` and `after` at today's estimate: the kernel the phase started from (`project/v1`) is judged again
when the phase kept a candidate; when it kept the original, before is after."""
from __future__ import annotations

import argparse
import fnmatch
import json
import sys
import time
from pathlib import Path


def _rows(files: list[Path]) -> dict[str, dict]:
    """The newest row per task over the files (a later file wins)."""
    out: dict[str, dict] = {}
    for f in files:
        for line in f.read_text(encoding="utf-8").splitlines():
            if line.strip():
                r = json.loads(line)
                out[r["task"]] = r
    return out


def _wanted(r: dict, filters: list[str]) -> bool:
    for f in filters:
        key, _, pats = f.partition("=")
        if not any(fnmatch.fnmatch(str(r.get(key, "")), p) for p in pats.split(",")):
            return False
    return True


def _project(art: Path) -> Path | None:
    """The try's final project: `kernel/` (what the run handed back)."""
    p = art / "kernel"
    return p if (p / "op_host").is_dir() or (p / "op_kernel").is_dir() else None


def _judge(task_file: Path, project: Path):
    from kernelwright.tools.backends import get_toolchain
    from kernelwright.tools.project import KernelProject
    from kernelwright.tools.referee import verify
    from kernelwright.tools.tasks import load_task
    return verify(load_task(task_file), KernelProject.from_path(project), get_toolchain("sim"), trials=1, recheck=False)


def _speed(v) -> dict:
    """The phase record's form of a verdict's headline estimate (agent/perf/node.py `_record`)."""
    m = next((s.metrics for s in v.stages if s.name == "measure"), {})
    rec = m.get("speed") or {}
    e = (rec.get("per_soc") or {}).get(rec.get("soc") or "") or {}
    return {"kind": "estimate", "kernel_us": e.get("kernel_us"), "eager_us": e.get("eager_us"),
            "speedup": e.get("speedup"), "bottleneck": e.get("bottleneck"), "at": rec.get("at")}


def phase(out: Path, mkb: Path) -> None:
    """run.json with the phase's before/after at today's estimate, for rows whose older phase ran (see above)."""
    for name, row in sorted(_rows([out / "results.jsonl"]).items()):
        art, old = Path(row["artifacts"]), Path(row.get("reverified_from") or "")
        if not row.get("correct") or (art / "run.json").exists():
            continue
        try:
            perf = json.loads((old / "run.json").read_text(encoding="utf-8")).get("perf") or {}
        except (OSError, ValueError):
            perf = {}
        verdict = art / "verdicts" / "v1.json"
        if not perf or not verdict.exists():
            continue
        from kernelwright.tools.referee.verdict import Verdict
        after = _speed(Verdict.model_validate_json(verdict.read_text(encoding="utf-8")))
        before, kept = after, perf.get("kept") or "original"
        if kept != "original" and (old / "project" / "v1").is_dir():
            v = _judge(mkb / str(row.get("category")) / f"{name}.py", old / "project" / "v1")
            (art / "verdicts" / "v0.before.json").write_text(v.model_dump_json(indent=1), encoding="utf-8")
            before = _speed(v) if v.status == "pass" else {}
        record = {"before": before, "after": after, "kept": kept, "candidates": perf.get("candidates", []),
                  "stopped": "re-estimated by speed_reverify (the phase was not run again)"}
        (art / "run.json").write_text(json.dumps({"perf": record}, indent=1), encoding="utf-8")
        print(f"{name}: before {before.get('speedup')} after {after.get('speedup')} (kept {kept})", flush=True)


def reverify(r: dict, mkb: Path, out: Path) -> dict:
    row = dict(r) | {"reverified_from": r.get("artifacts"), "artifacts": str(out / "runs" / r["task"])}
    src = _project(Path(r.get("artifacts") or ""))
    task_file = mkb / str(r.get("category")) / f"{r['task']}.py"
    if src is None or not task_file.is_file():
        return row | {"status": "error", "correct": False, "est_speedup": None,
                      "reason": f"no project under {r.get('artifacts')} or no task file {task_file}"}
    start = time.monotonic()
    v = _judge(task_file, src)
    verdicts = out / "runs" / r["task"] / "verdicts"
    verdicts.mkdir(parents=True, exist_ok=True)
    (verdicts / "v1.json").write_text(v.model_dump_json(indent=1), encoding="utf-8")
    m = next((s.metrics for s in v.stages if s.name == "measure"), {})
    return row | {"status": "passed" if v.status == "pass" else "failed", "correct": v.status == "pass",
                  "est_speedup": m.get("est_speedup"), "reason": v.summary[:300],
                  "seconds": round(time.monotonic() - start, 1)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mkb", type=Path, required=True, help="MultiKernelBench's reference/ directory")
    ap.add_argument("--results", type=Path, action="append", required=True, help="an older results.jsonl (repeatable)")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--filter", action="append", default=[], metavar="KEY=PATTERNS")
    ap.add_argument("--phase", action="store_true", help="only write the phase records of the rows already in --out")
    a = ap.parse_args(argv)
    a.out.mkdir(parents=True, exist_ok=True)
    if a.phase:
        phase(a.out, a.mkb)
        return 0
    done_file = a.out / "results.jsonl"
    done = set(_rows([done_file])) if done_file.exists() else set()
    for name, r in sorted(_rows(a.results).items()):
        if name in done or not _wanted(r, a.filter):
            continue
        row = reverify(r, a.mkb, a.out) if r.get("correct") else r | {"reverified_from": r.get("artifacts")}
        with done_file.open("a", encoding="utf-8") as f:
            f.write(json.dumps(row) + "\n")
        print(f"{name}: {row['status']} est {row.get('est_speedup')} ({row.get('seconds', '-')} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
