"""Run untrusted commands (compilers on generated code, kernel executables) in their own
process group with wall-clock, CPU-time, memory and output-size limits. Nothing a kernel
does can hang or crash the caller: the result always comes back as data."""
from __future__ import annotations

import os
import resource
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Limits:
    wall_s: float = 120.0
    cpu_s: int | None = 300
    memory_bytes: int | None = 8 << 30     # address space per process
    file_bytes: int | None = 256 << 20     # largest file the process may write (stdout included)


@dataclass
class Completed:
    cmd: list[str]
    returncode: int | None       # None when killed for the wall-clock limit
    stdout: str
    stderr: str
    seconds: float
    timed_out: bool = False

    @property
    def signal(self) -> int | None:
        return -self.returncode if self.returncode is not None and self.returncode < 0 else None


def _tail(path: Path, limit: int = 200_000) -> str:
    try:
        size = path.stat().st_size
        with open(path, "rb") as fh:
            if size > limit:
                fh.seek(size - limit)
            data = fh.read()
    except OSError:
        return ""
    text = data.decode(errors="replace")
    return ("[... output truncated ...]\n" + text) if size > limit else text


def run(cmd: list[str], *, cwd: str | Path, limits: Limits = Limits(), env: dict[str, str] | None = None,
        stdin_text: str | None = None) -> Completed:
    cwd = Path(cwd)
    out_path, err_path = cwd / f".out.{os.getpid()}.{time.monotonic_ns()}", cwd / f".err.{os.getpid()}.{time.monotonic_ns()}"

    def apply_limits() -> None:
        os.setsid()
        if limits.cpu_s:
            resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_s, limits.cpu_s + 5))
        if limits.memory_bytes:
            resource.setrlimit(resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes))
        if limits.file_bytes:
            resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_bytes, limits.file_bytes))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    start = time.monotonic()
    timed_out = False
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        proc = subprocess.Popen(cmd, cwd=cwd, stdout=out, stderr=err, env=env,
                                stdin=subprocess.PIPE if stdin_text is not None else subprocess.DEVNULL,
                                preexec_fn=apply_limits)
        try:
            if stdin_text is not None:
                proc.communicate(stdin_text.encode(), timeout=limits.wall_s)
            else:
                proc.wait(timeout=limits.wall_s)
        except subprocess.TimeoutExpired:
            timed_out = True
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait()
    seconds = time.monotonic() - start
    stdout, stderr = _tail(out_path), _tail(err_path)
    for p in (out_path, err_path):
        p.unlink(missing_ok=True)
    return Completed(cmd=cmd, returncode=None if timed_out else proc.returncode, stdout=stdout, stderr=stderr,
                     seconds=seconds, timed_out=timed_out)
