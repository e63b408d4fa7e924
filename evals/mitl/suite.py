"""Run the model-in-the-loop suite (evals/mitl/tasks.txt, or the tasks named) a few tasks at a time, each
through evals.mitl.run with its own bridge port; tasks are dealt to the player directories in turn.

    python -m evals.mitl.suite --round r1 --players /work/scratch/mitl/p1,/work/scratch/mitl/p2 \
        --out-root /work/scratch/mitl/out --ledger /work/scratch/mitl/LEDGER.md --jobs 3 [--port 18101] \
        [TASK[@PLAYER_DIR] ...]

A player must never see the same task twice: a rerun of a task goes to a player that has not seen it.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

TASKS = Path(__file__).with_name("tasks.txt")


def suite_tasks(path: Path = TASKS) -> list[str]:
    return [line.strip() for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip() and not line.startswith("#")]


def dealt(task: str, player: str) -> tuple[str, str]:
    """`category/stem@PLAYER_DIR` names the player; otherwise the next one in turn."""
    task, _, named = task.partition("@")
    return task, named or player


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    return True


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("tasks", nargs="*")
    ap.add_argument("--tasks-file", type=Path, default=TASKS, help="one task a line (default: tasks.txt)")
    ap.add_argument("--round", required=True)
    ap.add_argument("--players", required=True, help="comma-separated player directories, dealt in turn")
    ap.add_argument("--out-root", required=True)
    ap.add_argument("--ledger", default=None)
    ap.add_argument("--home", default=None)
    ap.add_argument("--code", default=None, help="run the agent from DIR/kernelwright (see evals.mitl.run)")
    ap.add_argument("--skip", type=int, default=0, help="leave out the first N tasks (already started)")
    ap.add_argument("--also-running", default="", help="comma-separated pids of task runs started elsewhere: "
                                                        "they count against --jobs until they end")
    ap.add_argument("--perf", type=int, default=0, metavar="ROUNDS",
                    help="the performance phase on with this many optimiser rounds (see evals.mitl.run)")
    ap.add_argument("--jobs", type=int, default=3)
    ap.add_argument("--port", type=int, default=18101)
    args = ap.parse_args()
    players = args.players.split(",")
    queue = [(*dealt(task, players[i % len(players)]), args.port + i)
             for i, task in enumerate(args.tasks or suite_tasks(args.tasks_file))][args.skip:]
    running: list[subprocess.Popen] = []
    others = [int(p) for p in args.also_running.split(",") if p]
    while queue or running:
        running = [p for p in running if p.poll() is None]
        others = [pid for pid in others if alive(pid)]
        while queue and len(running) + len(others) < args.jobs:
            task, player, port = queue.pop(0)
            cmd = [sys.executable, "-m", "evals.mitl.run", "--task", task, "--round", args.round,
                   "--player-dir", player, "--out-root", args.out_root, "--port", str(port)]
            cmd += ["--ledger", args.ledger] if args.ledger else []
            cmd += ["--home", args.home] if args.home else []
            cmd += ["--code", args.code] if args.code else []
            cmd += ["--perf", str(args.perf)] if args.perf else []
            print(f"start {task} on {player} port {port}", flush=True)
            running.append(subprocess.Popen(cmd))
        time.sleep(2)


if __name__ == "__main__":
    main()
