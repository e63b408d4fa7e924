"""Paths and the subprocess environment shared by the front-door tests (imported by file path, as the
other test folders do, since pytest runs with --import-mode=importlib)."""
from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
TRANSCRIPTS = HERE / "transcripts"
NO_RETRIEVAL = TRANSCRIPTS / "no_retrieval.yaml"
SUITE = ROOT / "evals" / "suite"
RELU = SUITE / "activation" / "relu_ragged.py"
ABS = SUITE / "math" / "abs_scale_shift.py"
KERNELWRIGHT = Path(sys.executable).with_name("kernelwright")
ESCAPES = ("\x1b", "\x9b")              # ESC and the 8-bit CSI: no colour, cursor or title sequences


def child_env(**extra: str) -> dict[str, str]:
    """The environment of a kernelwright subprocess: the session's cache, no model, no colour forced."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KERNELWRIGHT_MODEL", "FORCE_COLOR"))}
    env["KERNELWRIGHT_HOME"] = os.environ["KERNELWRIGHT_HOME"]     # set by tests/conftest.py
    env["PYTHONUNBUFFERED"] = "1"
    return env | extra


def bench_workers(out: Path | str) -> list[int]:
    """Bench worker processes still alive whose command line names `out` (a local bench's output
    directory; on Ray, where tries run in a node's scratch directory, a try's `TASK.aN`)."""
    pids = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                cmd = (proc / "cmdline").read_bytes()
            except OSError:
                continue
            if b"kernelwright.evals.bench.worker" in cmd and str(out).encode() in cmd:
                pids.append(int(proc.name))
    return pids
