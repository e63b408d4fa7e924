"""Trace a bench's tasks ahead of its tries, into the trace cache (`python -m kernelwright.evals.bench.pretrace
TASKS.json PARENT_PID`): one torch import for a chunk of tasks instead of one per try. A try whose task is not
traced yet when it starts traces it itself, as before; nothing waits for this process. It stops when the
bench (PARENT_PID) is gone, and the bench ends it with its process group when the tries are done."""
from __future__ import annotations

import json
import sys
import threading
from pathlib import Path

from kernelwright.agent.builtin.trace import trace_tasks
from kernelwright.evals.bench.worker import watch_parent
from kernelwright.tools.task import Task

CHUNK = 8      # tasks per tracer process: a chunk's failure (one task hanging the tracer) costs only its traces


def main(argv: list[str]) -> int:
    threading.Thread(target=watch_parent, args=(int(argv[1]),), daemon=True).start()
    tasks = [Task.model_validate(t) for t in json.loads(Path(argv[0]).read_text(encoding="utf-8"))]
    for i in range(0, len(tasks), CHUNK):
        trace_tasks(tasks[i:i + CHUNK])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
