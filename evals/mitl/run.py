"""Model-in-the-loop eval: run one suite task through the agent's real litellm path, with the model played
through ../shared/tools/llm_bridge.py (an OpenAI-compatible endpoint whose replies are written by a helper
playing the model), and record verdict, exit status, model calls per node, estimated tokens and wall time.

    python -m evals.mitl.run --task index/gather --round r1 --player-dir /work/scratch/mitl/p1 \
        --out-root /work/scratch/mitl/out --port 18101 [--reference-root DIR] [--ledger FILE]

The bridge's --dir is PLAYER_DIR/<round>-<task>/ (the transcript); the run's artifacts go to
OUT_ROOT/<round>-<task>/ (outside the player's directory). The bridge is started for the task and stopped by
its pid when the task ends. One JSON line per task is appended to OUT_ROOT/results.jsonl, and a row to the
ledger (a markdown table) when --ledger is given. Runs on demand, never in the test suite.
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

BRIDGE = Path("/work/shared/tools/llm_bridge.py")
REFERENCE_ROOT = Path("/work/scratch/cube/mkb/reference")
CONFIG = "models:\n  default:\n    timeout_s: 3600\n    retries: 0\npaths:\n  runs: {runs}\n"
# --perf N: the performance phase on, with N optimiser rounds (the model proposes a faster program from the
# cost report after the knob search; agent/perf/optimiser.py)
PERF = "perf:\n  enabled: true\n  optimiser_rounds: {rounds}\n"


def slug(task: str) -> str:
    return task.split("/")[-1]


def calls_per_node(calls_file: Path) -> tuple[dict[str, int], int, int]:
    """(calls per node, estimated prompt+reply tokens, failed calls) from the run's model_calls.jsonl."""
    per_node: Counter[str] = Counter()
    tokens = errors = 0
    if not calls_file.exists():
        return {}, 0, 0
    for line in calls_file.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        entry = json.loads(line)
        per_node[entry.get("node") or "?"] += 1
        usage = entry.get("usage") or {}
        tokens += int(usage.get("prompt_tokens", 0)) + int(usage.get("completion_tokens", 0))
        errors += "error" in entry
    return dict(per_node), tokens, errors


def run_task(args: argparse.Namespace) -> dict:
    name = f"{args.round}-{slug(args.task)}"
    bridge_dir = Path(args.player_dir) / name
    out = Path(args.out_root) / name
    if bridge_dir.exists():
        raise SystemExit(f"{bridge_dir} exists: a player must never see the same task twice in one directory")
    bridge_dir.mkdir(parents=True)
    out.mkdir(parents=True, exist_ok=True)
    # its own checkpoint store and a run id named after the task: runs sharing a store and a run id ("run")
    # would resume from each other's checkpoints
    (out / "model.yaml").write_text(CONFIG.format(runs=out) + (PERF.format(rounds=args.perf) if args.perf else ""),
                                    encoding="utf-8")
    run_dir = out / f"kw-{name}"
    task_file = Path(args.reference_root) / f"{args.task}.py"
    bridge = subprocess.Popen([sys.executable, str(BRIDGE), "--dir", str(bridge_dir), "--port", str(args.port),
                               "--wait", "3600"], stdout=(out / "bridge.log").open("w"), stderr=subprocess.STDOUT)
    env = dict(os.environ, KERNELWRIGHT_CONFIG=str(out / "model.yaml"), KERNELWRIGHT_MODEL="openai/bridge",
               KERNELWRIGHT_API_BASE=f"http://127.0.0.1:{args.port}/v1", OPENAI_API_KEY="unused",
               KERNELWRIGHT_HOME=args.home or str(out / "home"))
    if args.code:   # a snapshot of the agent (DIR/kernelwright), so edits in the checkout do not reach a run
        env["PYTHONPATH"] = args.code
    kw = Path(sys.executable).with_name("kernelwright")
    start = time.monotonic()
    try:
        time.sleep(1.0)  # let the bridge bind
        with (out / "stdout.json").open("w") as so, (out / "stderr.log").open("w") as se:
            proc = subprocess.run([str(kw), "run", str(task_file), "--out", str(run_dir), "--json"],
                                  env=env, stdout=so, stderr=se)
        exit_status = proc.returncode
    finally:
        bridge.send_signal(signal.SIGTERM)
        try:
            bridge.wait(timeout=10)
        except subprocess.TimeoutExpired:
            bridge.kill()
    wall = round(time.monotonic() - start, 1)
    summary = {}
    run_json = run_dir / "run.json"
    if run_json.exists():
        summary = json.loads(run_json.read_text(encoding="utf-8"))
    per_node, tokens, errors = calls_per_node(run_dir / "model_calls.jsonl")
    stderr = (out / "stderr.log").read_text(encoding="utf-8", errors="replace")
    row = {"task": args.task, "round": args.round, "code": args.code, "perf": summary.get("perf"),
           "player_dir": str(bridge_dir), "out": str(out),
           "exit": exit_status, "status": summary.get("status"), "reason": summary.get("reason"),
           "calls": sum(per_node.values()), "calls_per_node": per_node, "failed_calls": errors,
           "est_tokens": tokens, "wall_s": wall, "traceback": "Traceback (most recent call last)" in stderr}
    with (Path(args.out_root) / "results.jsonl").open("a", encoding="utf-8") as f:
        f.write(json.dumps(row) + "\n")
    if args.ledger:
        ledger = Path(args.ledger)
        if not ledger.exists():
            ledger.write_text("| task | round | player dir | verdict | exit | calls (per node) | est. tokens | wall s |\n"
                              "|---|---|---|---|---|---|---|---|\n", encoding="utf-8")
        nodes = ", ".join(f"{k} {v}" for k, v in per_node.items())
        with ledger.open("a", encoding="utf-8") as f:
            f.write(f"| {args.task} | {args.round} | {bridge_dir} | {row['status']} ({row['reason']}) | {exit_status} "
                    f"| {row['calls']} ({nodes}) | {tokens} | {wall} |\n")
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--task", required=True, help="<category>/<stem> of a reference task")
    ap.add_argument("--round", required=True)
    ap.add_argument("--player-dir", required=True)
    ap.add_argument("--out-root", required=True)
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--reference-root", default=str(REFERENCE_ROOT))
    ap.add_argument("--home", default=None, help="KERNELWRIGHT_HOME (default: one per task under its out dir)")
    ap.add_argument("--ledger", default=None)
    ap.add_argument("--code", default=None, help="run the agent from DIR/kernelwright (a snapshot: git archive)")
    ap.add_argument("--perf", type=int, default=0, metavar="ROUNDS",
                    help="turn the performance phase on with this many optimiser rounds (0: phase off)")
    print(json.dumps(run_task(ap.parse_args())))


if __name__ == "__main__":
    main()
