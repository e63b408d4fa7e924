"""Tasks that misbehave under a bench worker, written into a test's directory with a list file: one
hangs (and leaves its pid, to check it was killed), one kills its worker. Outside a bench worker's
process tree they are harmless ordinary tasks."""
from __future__ import annotations

from pathlib import Path

TEMPLATE = '''"""{doc}

category: hostile
level: 1
"""
import os
import signal
import time

import torch
import torch.nn as nn


def _bench_worker():
    """The bench worker this process runs under (itself, a parent or a grandparent), if any."""
    pid = os.getpid()
    for _ in range(4):
        try:
            cmd = open(f"/proc/{{pid}}/cmdline", "rb").read()
            stat = open(f"/proc/{{pid}}/stat").read()
        except OSError:
            return None
        if b"kernelwright.evals.bench.worker" in cmd:
            return pid
        pid = int(stat.rsplit(")", 1)[1].split()[1])
    return None


if _bench_worker():
    {action}


class Model(nn.Module):
    def forward(self, x):
        {forward}


def get_inputs():
    return [torch.randn(8, 64)]


def get_init_inputs():
    return []
'''

HOSTILE = {                            # in bench order: the crash runs after the hang was killed
    "hang_forever": ("Sleeps for an hour under a bench worker.",
                     "open(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'hang.pid'), 'w')"
                     ".write(str(os.getpid()))\n    time.sleep(3600)", "return torch.relu(x)"),
    "crash_worker": ("Kills the bench worker that runs it.", "os.kill(_bench_worker(), signal.SIGKILL)",
                     "return torch.relu(x)"),
}


def write_hostile(directory: Path) -> Path:
    """The tasks and `tasks.txt` listing them (relative paths, as a list file may)."""
    directory.mkdir(parents=True, exist_ok=True)
    for name, (doc, action, forward) in HOSTILE.items():
        (directory / f"{name}.py").write_text(TEMPLATE.format(doc=doc, action=action, forward=forward))
    listing = directory / "tasks.txt"
    listing.write_text("# tasks that misbehave\n" + "".join(f"{name}.py\n" for name in HOSTILE))
    return listing
