"""Content-addressed build cache: an unchanged kernel (or runtime) is never recompiled.

Entries are directories under $KERNELWRIGHT_HOME/<namespace> (default ~/.cache/kernelwright/sim;
the real toolchain's builds use the `cann` namespace),
created atomically (built in a temporary sibling, then renamed) and guarded by a lock file so
parallel builds of the same key wait for each other instead of racing.
"""
from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterable, Iterator

from kernelwright.tools.toolchain import BuildResult


def home() -> Path:
    return Path(os.environ.get("KERNELWRIGHT_HOME", Path.home() / ".cache" / "kernelwright"))


def cache_root(namespace: str = "sim") -> Path:
    root = home() / namespace
    root.mkdir(parents=True, exist_ok=True)
    return root


def digest(parts: Iterable[str | bytes]) -> str:
    h = hashlib.sha256()
    for p in parts:
        b = p.encode() if isinstance(p, str) else p
        h.update(len(b).to_bytes(8, "little"))
        h.update(b)
    return h.hexdigest()[:24]


def tree_digest(paths: Iterable[Path], root: Path) -> str:
    parts: list[str | bytes] = []
    for p in sorted(paths):
        parts.append(str(p.relative_to(root)))
        parts.append(p.read_bytes())
    return digest(parts)


@contextmanager
def locked(key: str, namespace: str = "sim") -> Iterator[None]:
    lock = cache_root(namespace) / f".{key}.lock"
    with open(lock, "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def entry(key: str, namespace: str = "sim") -> Path:
    return cache_root(namespace) / key


@contextmanager
def building(key: str, namespace: str = "sim") -> Iterator[Path]:
    """A scratch directory that becomes the cache entry `key` when the block exits cleanly."""
    tmp = Path(tempfile.mkdtemp(prefix=f".{key}.", dir=cache_root(namespace)))
    try:
        yield tmp
        final = entry(key, namespace)
        if final.exists():
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            os.replace(tmp, final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def load_cached(entry: Path) -> BuildResult | None:
    """The build result stored in a cache entry, marked as a cache hit (None when the entry is empty)."""
    result = entry / "result.json"
    if not result.exists():
        return None
    r = BuildResult.model_validate_json(result.read_text())
    r.cache_hits = 1
    return r
