"""Where the knowledge base lives: the built-in corpus in the package, the user's data under
KERNELWRIGHT_HOME (default ~/.cache/kernelwright)."""
from __future__ import annotations

import os
from pathlib import Path

CORPUS_DIR = Path(__file__).resolve().with_name("corpus")
PACKAGE_ROOT = CORPUS_DIR.parent.parent  # the `kernelwright` package root (the repository)


def kernelwright_home() -> Path:
    env = os.environ.get("KERNELWRIGHT_HOME")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "kernelwright"


def knowledge_home() -> Path:
    """User-side knowledge data: the vector index, added documents and the fix memory."""
    return kernelwright_home() / "knowledge"


def package_relative(path: Path) -> str:
    """A built-in file's path as shown in provenance (repository-relative, stable across machines)."""
    try:
        return path.resolve().relative_to(PACKAGE_ROOT).as_posix()
    except ValueError:
        return str(path)
