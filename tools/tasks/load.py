"""Find and load tasks in each benchmark's layout: a single `.py`, an NPUKernelBench task directory,
a SOL-ExecBench task directory (definition.json + workload.jsonl), and the trees (`reference/<category>/<op>.py` of MultiKernelBench, `level1/*.py` of KernelBench,
`tasks/<level>/<Category>/<Op>/` of NPUKernelBench)."""
from __future__ import annotations

import re
from pathlib import Path

from kernelwright.tools.contained_paths import input_problem
from kernelwright.tools.task import Task, TaskError
from kernelwright.tools.tasks.npukb import is_npukb_task, load_npukb
from kernelwright.tools.tasks.pyfile import load_py
from kernelwright.tools.tasks.sol import is_sol_task, load_sol

_LEVEL = re.compile(r"level\d+$")


def load_task(path: str | Path, *, dtypes: list[str] | None = None) -> Task:
    """One task: a `.py` file (its place in a tree sets the layout) or an NPUKernelBench task directory."""
    p = Path(path)
    problem = input_problem(p)
    if problem:
        raise TaskError(f"{p}: {problem}")
    if p.is_dir():
        if is_npukb_task(p):
            return load_npukb(p, dtypes=dtypes)
        if is_sol_task(p):
            return load_sol(p, dtypes=dtypes)
        raise TaskError(f"{p}: not a task: expected a .py file with Model/get_inputs, an NPUKernelBench task "
                        "directory (with validation/module.py) or a SOL-ExecBench task directory (definition.json, "
                        "workload.jsonl); for a whole benchmark tree use load_tasks()")
    parent = p.resolve().parent
    if parent.parent.name == "reference":
        return load_py(p, layout="mkb", dtypes=dtypes, category=parent.name)
    if _LEVEL.match(parent.name):
        return load_py(p, layout="kernelbench", dtypes=dtypes, level=parent.name)
    return load_py(p, dtypes=dtypes)


def _task_files(root: Path) -> list[Path]:
    return sorted(f for f in root.glob("*.py") if not f.name.startswith("_"))


def load_tasks(root: str | Path, *, dtypes: list[str] | None = None) -> list[Task]:
    """Every task in a benchmark tree (or the one task `root` is)."""
    r = Path(root)
    if r.is_file() or is_npukb_task(r) or is_sol_task(r):
        return [load_task(r, dtypes=dtypes)]
    for base in (r / "reference", r):                      # MultiKernelBench
        if base.is_dir() and base.name == "reference":
            return [load_py(f, layout="mkb", dtypes=dtypes, category=d.name)
                    for d in sorted(base.iterdir()) if d.is_dir() for f in _task_files(d)]
    for base in (r / "KernelBench", r):                    # KernelBench: level1/*.py
        levels = sorted(d for d in base.glob("level*") if d.is_dir() and _LEVEL.match(d.name)) if base.is_dir() else []
        if any(_task_files(d) for d in levels):
            return [load_py(f, layout="kernelbench", dtypes=dtypes, level=d.name) for d in levels for f in _task_files(d)]
    if _LEVEL.match(r.name) and _task_files(r):
        return [load_py(f, layout="kernelbench", dtypes=dtypes, level=r.name) for f in _task_files(r)]
    base = r / "tasks" if (r / "tasks").is_dir() else r   # NPUKernelBench: tasks/<level>/<Category>/<Op>/
    found = sorted(d.parent for d in base.glob("**/validation") if is_npukb_task(d.parent))
    if found:
        return [load_npukb(d, dtypes=dtypes) for d in found]
    sol = sorted(d.parent for d in r.glob("**/definition.json"))   # SOL-ExecBench: <level>/<problem>/definition.json
    if sol:
        return [load_sol(d, dtypes=dtypes) for d in sol]
    raise TaskError(f"{r}: no tasks found (looked for reference/<category>/*.py, level<N>/*.py, NPUKernelBench "
                    "task directories with validation/module.py and SOL-ExecBench definition.json)")
