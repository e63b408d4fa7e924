"""One bench per output directory: `bench` holds an exclusive lock on `<out>/.bench.lock` for its whole
run, so a second bench into the same `--out` refuses at once instead of deleting the first one's
artifacts and writing conflicting rows. The lock is the kernel's (flock): it is released when the
holder exits, even by a crash or kill, so a stale lock never blocks a rerun."""
from __future__ import annotations

import errno
import fcntl
import os
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from kernelwright.errors import UserError

LOCK = ".bench.lock"


class OutInUse(UserError):
    """Another bench is writing into this output directory."""


@contextmanager
def out_lock(out: Path) -> Iterator[None]:
    if out.exists() and not out.is_dir():
        raise OutInUse(f"--out {out}: exists and is not a directory; give a directory for the results")
    out.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(out / LOCK, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
    except OSError as e:
        raise OutInUse(f"--out {out}: cannot take its lock ({e.strerror}); check the directory") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            if e.errno not in (errno.EWOULDBLOCK, errno.EACCES):
                raise
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "unknown"
            raise OutInUse(f"--out {out} is in use by another bench (pid {holder}); wait for it to finish "
                           "or give another --out") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        yield
    finally:
        os.close(fd)
