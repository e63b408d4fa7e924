"""Content-addressed build cache: an unchanged kernel (or runtime) is never recompiled.

Entries are directories under $KERNELWRIGHT_HOME/<namespace> (default ~/.cache/kernelwright/sim;
the real toolchain's builds use the `cann` namespace),
created atomically (built in a temporary sibling, then renamed) and guarded by a lock file so
parallel builds of the same key wait for each other instead of racing.

A key holds everything that changes the entry. Build products embed absolute paths into the install
that made them (a precompiled header records its headers' paths; debug info names our headers), so
two installs sharing one home (two checkouts, a pipx install beside a venv) key them apart by
`install_parts()`, and by `code_digest()` of the Python that writes the build's inputs.

The cache cannot be written by what it caches: when the builder is done, an entry is sealed (its
files made read-only and owned by the caller, their SHA-256 recorded in `seal.json`), and it is
verified against the seal before use; a tampered entry is thrown away and rebuilt. Sandboxed runs
never see the cache at all (`sandbox`); the seal also catches what an uncontained run could do.
A build that ended on an infrastructure failure (a timeout, a sandbox that did not start) raises
`Discard` inside `building` and is not cached.
"""
from __future__ import annotations

import fcntl
import hashlib
import json
import logging
import os
import shutil
import stat
import tempfile
from contextlib import contextmanager
from pathlib import Path
from functools import lru_cache
from typing import Iterable, Iterator

from kernelwright._version import __version__
from kernelwright.tools.toolchain import BuildResult

PACKAGE_ROOT = Path(__file__).resolve().parents[2]


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


def install_parts() -> list[str]:
    """Where this install of kernelwright lives and its version."""
    return [str(PACKAGE_ROOT), __version__]


@lru_cache(maxsize=None)
def code_digest(*modules: str) -> str:
    """A digest of our own source files (paths relative to the package root) that shape a build."""
    return tree_digest([PACKAGE_ROOT / m for m in modules], PACKAGE_ROOT)


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


class Discard(Exception):
    """Raised inside `building`: the build is not a result to keep (an infrastructure failure)."""


@contextmanager
def building(key: str, namespace: str = "sim") -> Iterator[Path]:
    """A scratch directory that becomes the sealed cache entry `key` when the block exits cleanly."""
    tmp = Path(tempfile.mkdtemp(prefix=f".{key}.", dir=cache_root(namespace)))
    try:
        yield tmp
        final = entry(key, namespace)
        if final.exists():
            remove(tmp)
        else:
            seal(tmp)
            os.replace(tmp, final)
    except Discard:
        remove(tmp)
    except BaseException:
        remove(tmp)
        raise


def remove(path: Path) -> None:
    """Delete a (possibly sealed) entry."""
    shutil.rmtree(path, ignore_errors=True)


SEAL = "seal.json"
LINK = "link:"                      # a symlink in the seal: its target, not a hash


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def seal(root: Path) -> None:
    """The builder's products become read-only and the caller's own (sandboxed steps wrote them under
    a uid of their own), with the hash of every file recorded."""
    hashes: dict[str, str] = {}
    uid, gid = os.getuid(), os.getgid()
    for path in sorted(root.rglob("*")):
        if path.is_symlink():        # a library's version links stay; a link out of the entry does not
            if _inside(path, root):
                hashes[str(path.relative_to(root))] = LINK + os.readlink(path)
            else:
                path.unlink()
            continue
        if not (path.is_dir() or path.is_file()):     # nothing a build makes is a FIFO or a device
            path.unlink()
            continue
        if os.geteuid() == 0:
            os.lchown(path, uid, gid)
        mode = path.stat().st_mode
        if path.is_dir():
            path.chmod(0o755)           # writable dirs keep `rm -rf` working; the hashes guard the files
        else:
            hashes[str(path.relative_to(root))] = _sha256(path)
            path.chmod(0o444 | (0o111 if mode & stat.S_IXUSR else 0))
    if os.geteuid() == 0:
        os.lchown(root, uid, gid)
    root.chmod(0o755)
    (root / SEAL).write_text(json.dumps(hashes, indent=0, sort_keys=True))
    (root / SEAL).chmod(0o444)


def _inside(link: Path, root: Path) -> bool:
    target = os.readlink(link)
    return not os.path.isabs(target) and os.path.realpath(link).startswith(os.path.realpath(root) + os.sep)


def tampered(root: Path, only: Iterable[str] | None = None) -> list[str]:
    """Files of a sealed entry whose contents no longer match the seal (all, or those named)."""
    try:
        hashes = json.loads((root / SEAL).read_text())
    except (OSError, json.JSONDecodeError):
        return [f"{root.name}/{SEAL} (missing or unreadable)"]
    names = list(hashes) if only is None else list(only)
    bad = []
    for name in names:
        p = root / name
        try:
            if name in hashes and hashes[name].startswith(LINK):
                ok = p.is_symlink() and LINK + os.readlink(p) == hashes[name]
            else:
                ok = name in hashes and not p.is_symlink() and _sha256(p) == hashes[name]
        except OSError:
            ok = False
        if not ok:
            bad.append(name)
    return bad


def sealed_root(path: Path) -> Path | None:
    """The cache entry holding `path` (the nearest directory above it with a seal)."""
    for parent in path.parents:
        if (parent / SEAL).exists():
            return parent
    return None


def load_cached(entry: Path) -> BuildResult | None:
    """The build result stored in a cache entry, marked as a cache hit (None when the entry is empty,
    or was changed after it was sealed: then it is removed, to be rebuilt)."""
    result = entry / "result.json"
    if not result.exists():
        return None
    changed = tampered(entry)
    if changed:
        logging.getLogger(__name__).warning("cache entry %s was changed after it was built (%s); rebuilding it",
                                            entry, ", ".join(changed[:5]))
        remove(entry)
        return None
    r = BuildResult.model_validate_json(result.read_text())
    r.cache_hits = 1
    return r
