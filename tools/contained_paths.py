"""Writers stay inside their root: a file is written only where its resolved directory is under the
resolved root, and never through a symlink, so a link planted in `--out`, a build dir or a task dir
cannot redirect a write (or a read) to somewhere else on the machine."""
from __future__ import annotations

import os
import stat
from pathlib import Path

from kernelwright.errors import UserError


class OutsideRootError(UserError):
    """A path that would leave its root through `..` or a symlink."""


def inside(path: Path, root: Path) -> bool:
    """Whether `path` (resolved, links followed) lies under `root` (resolved)."""
    return path.resolve().is_relative_to(root.resolve())


def check_inside(path: Path, root: Path) -> Path:
    """`path` itself, when it is under root and not a link (root may be a link: the caller chose it)."""
    if (path != root and path.is_symlink()) or not inside(path, root):
        raise OutsideRootError(f"{path}: refused, it leads outside {root} (a symlink or `..`); "
                               "remove the link or choose another directory")
    return path


def write_inside(root: str | Path, rel: str | Path, text: str) -> Path:
    """Write `text` to root/rel, creating directories, refusing any step that leaves root."""
    root = Path(root)
    if root.exists() and not root.is_dir():
        raise OutsideRootError(f"{root}: exists and is not a directory; give a directory to write into")
    target = root / rel
    check_inside(target.parent, root)
    target.parent.mkdir(parents=True, exist_ok=True)
    check_inside(target.parent, root)
    check_inside(target, root)
    target.write_text(text)
    return target


MISSING = "no such file or directory"


def input_problem(path: str | Path) -> str | None:
    """Why `path` cannot be read as an input, or None: a NUL byte in it, nothing there, or a FIFO,
    socket or device (reading one blocks or never ends)."""
    if "\x00" in str(path):
        return "the path holds a NUL byte"
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return MISSING
    except OSError as e:
        return e.strerror or str(e)
    if stat.S_ISDIR(mode) or stat.S_ISREG(mode):
        return None
    return "not a regular file or directory (a FIFO, socket or device would block the read)"
