"""Which tasks a bench runs: SUITE is `builtin` (our own suite in evals/suite/), a benchmark tree
(MultiKernelBench, KernelBench, NPUKernelBench: read by the task loaders), one task file, or a list
file (one task path or tree per line, relative to the list; `#` comments). `--filter` narrows it."""
from __future__ import annotations

import ast
import fnmatch
from pathlib import Path

from kernelwright.tools.task import Task, TaskError

SUITE_DIR = Path(__file__).resolve().parent.parent / "suite"
LIST_SUFFIXES = (".txt", ".list", ".lst")


def header(path: Path) -> dict[str, str]:
    """`key: value` lines of a task file's docstring (our suite records category and level there)."""
    try:
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8", errors="replace"))) or ""
    except SyntaxError:
        return {}
    out = {}
    for line in doc.splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip() in ("category", "level") and value.strip():
            out[key.strip()] = value.strip()
    return out


def _level(value: str | None) -> str | None:
    return None if value is None else value if value.startswith("level") else f"level{value}"


def load_headed(root: Path) -> list[Task]:
    """Our suite's layout: `<category>/<name>.py`, each with a `category:`/`level:` header."""
    from kernelwright.tools.tasks.pyfile import load_py
    tasks = []
    for f in sorted(root.glob("*/*.py")):
        if f.name.startswith("_"):
            continue
        meta = header(f)
        tasks.append(load_py(f, category=meta.get("category", f.parent.name), level=_level(meta.get("level"))))
    return tasks


def _is_headed(root: Path) -> bool:
    files = [f for f in root.glob("*/*.py") if not f.name.startswith("_")]
    return bool(files) and all("category" in header(f) for f in files[:5])


def _load_path(p: Path) -> list[Task]:
    from kernelwright.tools.tasks import load_task, load_tasks
    if p.is_dir() and _is_headed(p):
        return load_headed(p)
    if p.is_file() and p.suffix == ".py":
        meta = header(p)
        task = load_task(p)
        return [task.model_copy(update={"category": task.category or meta.get("category"),
                                        "level": task.level or _level(meta.get("level"))})]
    return load_tasks(p)


def _load_list(p: Path) -> list[Task]:
    tasks: list[Task] = []
    for n, raw in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        entry = (p.parent / line) if not Path(line).is_absolute() else Path(line)
        if line == "builtin":
            entry = SUITE_DIR
        if not entry.exists():
            raise TaskError(f"{p}:{n}: {line}: no such file or directory")
        tasks += _load_path(entry)
    return tasks


def resolve_suite(spec: str) -> list[Task]:
    """The tasks SUITE names, in a stable order, each name once."""
    if spec == "builtin":
        tasks = load_headed(SUITE_DIR)
    else:
        p = Path(spec)
        if not p.exists():
            raise TaskError(f"{spec}: no such suite: give `builtin`, a benchmark tree (MultiKernelBench, KernelBench, "
                            "NPUKernelBench), a task .py, or a list file of task paths")
        tasks = _load_list(p) if p.is_file() and p.suffix in LIST_SUFFIXES else _load_path(p)
    seen: dict[str, Task] = {}
    for t in tasks:
        if t.name in seen and seen[t.name].source != t.source:
            raise TaskError(f"two tasks are named {t.name!r} ({seen[t.name].source} and {t.source}); task names key "
                            "the results, so they must be unique in a suite")
        seen[t.name] = t
    return list(seen.values())


FILTER_KEYS = ("category", "level", "name")


def _matches(task: Task, key: str, patterns: list[str]) -> bool:
    values = {"category": [task.category or ""], "name": [task.name],
              "level": [task.level or "", (task.level or "").removeprefix("level")]}
    keys = [key] if key else list(FILTER_KEYS)
    return any(fnmatch.fnmatch(v.lower(), pat.lower()) for k in keys for v in values[k] for pat in patterns)


def parse_filter(text: str) -> tuple[str, list[str]]:
    """`category=softmax,loss`, `level=1`, `name=relu*`, or a bare pattern matched against all three."""
    key, sep, value = text.partition("=")
    if not sep:
        return "", [p for p in text.split(",") if p]
    key = key.strip().lower()
    if key not in FILTER_KEYS:
        raise ValueError(f"--filter {text!r}: the key must be one of {', '.join(FILTER_KEYS)} (e.g. category=softmax)")
    return key, [p for p in value.split(",") if p]


def filter_tasks(tasks: list[Task], filters: list[str] | None) -> list[Task]:
    """Tasks matching every filter (patterns within one filter are alternatives)."""
    parsed = [parse_filter(f) for f in filters or []]
    return [t for t in tasks if all(_matches(t, key, pats) for key, pats in parsed)]
