"""Run untrusted steps (compilers on generated code, op_host and kernel executables, task references)
contained and limited: a scrubbed environment, a filesystem view of only what the step names (see
`containment`), no network, a process count, wall-clock, CPU-time, memory and file-size limits, and
every process of the step killed when it ends. Nothing a step does can hang or crash the caller: the
result always comes back as data.

`view=None` keeps the caller's environment and filesystem (limits and the process-group kill only):
for trusted tools the user installed and configured (CANN's build), never for generated code.
"""
from __future__ import annotations

import json
import os
import resource
import select
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kernelwright.tools.buildkit import containment
from kernelwright.tools.buildkit.containment import Status, View, status

__all__ = ["Limits", "Completed", "View", "Status", "run", "popen", "status", "environment"]

BASE_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/tmp", "TMPDIR": "/tmp", "LANG": "C.UTF-8",
            "LC_ALL": "C.UTF-8"}
# what a Python step may inherit: interpreter and thread-pool settings, never credentials
PYTHON_ENV = ("PYTHONPATH", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")


@dataclass(frozen=True)
class Limits:
    wall_s: float = 120.0
    cpu_s: int | None = 300
    memory_bytes: int | None = 8 << 30     # address space per process
    file_bytes: int | None = 256 << 20     # largest file the process may write (stdout included)
    processes: int | None = 1024           # processes and threads of the step (its forked blocks included)


@dataclass
class Completed:
    cmd: list[str]
    returncode: int | None       # None when killed for the wall-clock limit
    stdout: str
    stderr: str
    seconds: float
    timed_out: bool = False
    sandbox_error: str = ""      # the sandbox itself failed to start (the machine's fault, not the step's)

    @property
    def signal(self) -> int | None:
        return -self.returncode if self.returncode is not None and self.returncode < 0 else None

    @property
    def infrastructure_failure(self) -> bool:
        """A result that says nothing about the step's code (timeouts can be load): never cache it."""
        return self.timed_out or bool(self.sandbox_error)


def environment(view: View) -> dict[str, str]:
    """The whole environment of a contained step: nothing inherited but what it names."""
    env = dict(BASE_ENV)
    if view.python:
        env.update({k: os.environ[k] for k in PYTHON_ENV if k in os.environ})
        env.update(PYTHONUNBUFFERED="1", PYTHONDONTWRITEBYTECODE="1")
    env.update(dict(view.env))
    return env


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


def _prlimit_options(limits: Limits) -> list[str]:
    opts = ["--core=0:0"]
    if limits.cpu_s:
        opts.append(f"--cpu={limits.cpu_s}:{limits.cpu_s + 5}")
    if limits.memory_bytes:
        opts.append(f"--as={limits.memory_bytes}:{limits.memory_bytes}")
    if limits.file_bytes:
        opts.append(f"--fsize={limits.file_bytes}:{limits.file_bytes}")
    if limits.processes:
        opts.append(f"--nproc={limits.processes}:{limits.processes}")
    return opts


def _rlimits(limits: Limits):
    """The limits for an uncontained step (set in the child before exec)."""
    def apply() -> None:
        if limits.cpu_s:
            resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_s, limits.cpu_s + 5))
        if limits.memory_bytes:
            resource.setrlimit(resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes))
        if limits.file_bytes:
            resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_bytes, limits.file_bytes))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    return apply


def _command(cmd: list[str], cwd: Path, limits: Limits, view: View | None, status_fd: int | None,
             staging: Path) -> tuple[list[str], dict[str, Any]]:
    """The command line and the Popen arguments that contain `cmd` as well as this machine allows."""
    if view is None or not status().contained:
        return cmd, {"env": None if view is None else environment(view), "preexec_fn": _rlimits(limits)}
    containment.hand_over(view)
    argv = containment.bwrap_argv(cmd, view, str(cwd), _prlimit_options(limits), status_fd, staging)
    return argv, {"env": environment(view)}


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def popen(cmd: list[str], *, cwd: str | Path, view: View, limits: Limits = Limits(), **kwargs: Any) -> subprocess.Popen:
    """A long-lived contained process (a worker speaking over pipes; `limits.wall_s` is the caller's to
    enforce). End it with `kill`."""
    staging = Path(tempfile.mkdtemp(prefix="kw-staged-"))
    argv, how = _command(cmd, Path(cwd), limits, view, None, staging)
    # contained, bubblewrap dies with its parent; uncontained, the worker stays in the caller's process
    # group, so a caller killed with its group (a bench try at its timeout) does not leave it behind
    own_group = argv is not cmd
    proc = subprocess.Popen(argv, cwd=cwd, start_new_session=own_group, **how, **kwargs)
    proc.kw_staging = staging  # type: ignore[attr-defined]
    proc.kw_own_group = own_group  # type: ignore[attr-defined]
    return proc


def kill(proc: subprocess.Popen) -> None:
    """End a `popen` process and everything it started (once it has been reaped, a contained step has
    nothing left: its PID namespace died with it; an uncontained worker's children share its caller's
    process group)."""
    if proc.returncode is None:
        if getattr(proc, "kw_own_group", True):
            _kill_group(proc.pid)
        else:
            proc.kill()
        proc.wait()
    shutil.rmtree(getattr(proc, "kw_staging", "/nonexistent"), ignore_errors=True)


def run(cmd: list[str], *, cwd: str | Path, limits: Limits = Limits(), env: dict[str, str] | None = None,
        stdin_text: str | None = None, view: View | None = None) -> Completed:
    """`env` applies to uncontained runs (`view=None`) only; a contained step's environment is its view's."""
    cwd = Path(cwd)
    # the captured output lives where the step cannot reach it (not in its own directory, where it could
    # replace the files the caller reads back)
    staging = Path(tempfile.mkdtemp(prefix="kw-step-"))
    out_path, err_path, in_path = staging / "stdout", staging / "stderr", staging / "stdin"
    if stdin_text is not None:
        in_path.write_text(stdin_text)
    read_status, write_status = os.pipe()
    try:
        argv, how = _command(cmd, cwd, limits, view, write_status, staging)
        contained = argv is not cmd
        if view is None:
            how["env"] = env
        start = time.monotonic()
        with open(out_path, "wb") as out, open(err_path, "wb") as err, \
                open(in_path if stdin_text is not None else os.devnull, "rb") as stdin:
            proc = subprocess.Popen(argv, cwd=cwd, stdin=stdin, stdout=out, stderr=err, start_new_session=True,
                                    pass_fds=(write_status,) if contained else (), **how)
            os.close(write_status)
            write_status = -1
            timed_out = not _exited_within(proc, limits.wall_s)
            _kill_group(proc.pid)   # still ours until reaped: the step's leftovers (all of it on a timeout)
            proc.wait()
        seconds = time.monotonic() - start
        started = _read_status(read_status) if contained else True
    finally:
        if write_status >= 0:
            os.close(write_status)
        os.close(read_status)
        stdout, stderr = _tail(out_path), _tail(err_path)
        shutil.rmtree(staging, ignore_errors=True)
    failed = "" if started or timed_out else f"the sandbox did not start: {stderr.strip()[-500:] or 'no message'}"
    return Completed(cmd=cmd, returncode=None if timed_out else proc.returncode, stdout=stdout, stderr=stderr,
                     seconds=seconds, timed_out=timed_out, sandbox_error=failed)


def _exited_within(proc: subprocess.Popen, seconds: float) -> bool:
    """Wait for the process to exit without reaping it, so its process group cannot be reused yet."""
    fd = os.pidfd_open(proc.pid)
    try:
        return bool(select.select([fd], [], [], seconds)[0])
    finally:
        os.close(fd)


def _read_status(fd: int) -> bool:
    """Whether bubblewrap reported the step's process (it writes `child-pid` once the sandbox is up)."""
    chunks = []
    while True:
        data = os.read(fd, 65536)
        if not data:
            break
        chunks.append(data)
    for line in b"".join(chunks).decode(errors="replace").splitlines():
        try:
            if "child-pid" in json.loads(line):
                return True
        except (json.JSONDecodeError, TypeError):
            continue
    return False
