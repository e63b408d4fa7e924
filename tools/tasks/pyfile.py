"""Load a task from one Python file in the KernelBench form (`Model`, `get_inputs`,
`get_init_inputs`), optionally with `get_input_groups()` reading JSON lines next to it
(MultiKernelBench's NPUKernelBench port). The file is parsed, never imported, here."""
from __future__ import annotations

import ast
import json
from pathlib import Path

from kernelwright.tools.task import Layout, Task, TaskCase, TaskError, with_dtype_variants
from kernelwright.tools.tasks.names import op_names


def top_level_names(path: Path) -> set[str]:
    """Functions and classes a Python file defines at module level."""
    try:
        tree = ast.parse(path.read_text(errors="replace"), filename=str(path))
    except SyntaxError as e:
        raise TaskError(f"{path}:{e.lineno}: not valid Python ({e.msg})") from None
    return {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}


def group_cases(path: Path) -> list[TaskCase]:
    """One case per JSON line of `<stem>.json` (the MultiKernelBench convention), with the declared
    shapes and dtype; empty when there is no such file (the worker counts the groups then)."""
    sidecar = path.with_suffix(".json")
    if not sidecar.is_file():
        return []
    cases = []
    for i, text in enumerate(line for line in sidecar.read_text().splitlines() if line.strip()):
        try:
            entry = json.loads(text)
        except json.JSONDecodeError as e:
            raise TaskError(f"{sidecar}: line {i + 1} is not JSON ({e.msg})") from None
        inputs = entry.get("inputs", []) if isinstance(entry, dict) else None
        if not isinstance(inputs, list):
            raise TaskError(f"{sidecar}: line {i + 1} has no list of \"inputs\" (got {type(inputs).__name__})")
        # an optional tensor left out of a group has "shape": null; it adds no shape to the case
        tensors = [a for a in inputs if isinstance(a, dict) and a.get("type") == "tensor"
                   and isinstance(a.get("shape"), list)]
        dtypes = sorted({a["dtype"] for a in tensors if "dtype" in a})
        cases.append(TaskCase(id=f"group {i}" + (f" {'/'.join(dtypes)}" if dtypes else ""), index=i,
                              shapes=[list(a["shape"]) for a in tensors]))
    return cases


def load_py(path: str | Path, *, layout: Layout = "py", dtypes: list[str] | None = None,
            category: str | None = None, level: str | None = None) -> Task:
    p = Path(path)
    if not p.is_file() or p.suffix != ".py":
        raise TaskError(f"{p}: expected a Python task file defining Model and get_inputs")
    names = top_level_names(p)
    missing = [n for n in ("Model",) if n not in names]
    if "get_inputs" not in names and "get_input_groups" not in names:
        missing.append("get_inputs (or get_input_groups)")
    if missing:
        raise TaskError(f"{p}: not a KernelBench-style task: missing {', '.join(missing)} "
                        "(a task defines class Model(nn.Module), get_inputs() and get_init_inputs())")
    op_type, kernel = op_names(p.stem)
    notes = [] if "get_init_inputs" in names else ["no get_init_inputs(): Model() takes no arguments"]
    if "get_input_groups" in names:
        kind, cases = "input_groups", group_cases(p)
    else:
        kind, cases = "get_inputs", [TaskCase(id="default")]
    return Task(name=p.stem, op_type=op_type, kernel_name=kernel, layout=layout, source=str(p.resolve()),
                input_kind=kind, cases=with_dtype_variants(cases, dtypes), category=category, level=level, notes=notes)
