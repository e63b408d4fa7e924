"""A sandbox that stays up and runs many short steps over the same read-only files: the runs of one
build (its host tiling and kernel executables, every case and trial).

Why: starting a bubblewrap sandbox costs tens of milliseconds (hundreds of ms wall on a loaded machine),
as much as a whole emulated kernel run; one per build keeps the emulation's latency. The containment per
step is unchanged: each step is forked by the sandbox's init (`executor_main.py`, PID 1) into its own run
directory, as a uid of its own (root callers), with its own limits and no new privileges, its stdin,
stdout and stderr handed over as file descriptors (files outside the sandbox, which the step cannot
reach), and when it ends every process left in the namespace is killed before the next step starts.
The build is mounted read-only; run directories (the only writable place) live under one private root.
"""
from __future__ import annotations

import atexit
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import OrderedDict
from pathlib import Path

from kernelwright.tools.buildkit import containment, sandbox
from kernelwright.tools.buildkit.sandbox import Completed, Limits, View

MAIN = Path(__file__).with_name("executor_main.py")
_RLIMITS = {"cpu_s": "RLIMIT_CPU", "memory_bytes": "RLIMIT_AS", "file_bytes": "RLIMIT_FSIZE", "processes": "RLIMIT_NPROC"}


def _rlimits(limits: Limits) -> list[list]:
    out: list[list] = [["RLIMIT_CORE", 0, 0]]
    for field, name in _RLIMITS.items():
        value = getattr(limits, field)
        if value:
            out.append([name, value, value + 5 if field == "cpu_s" else value])
    return out


class Executor:
    def __init__(self, readable: tuple[str, ...]):
        self.root = Path(tempfile.mkdtemp(prefix="kw-runs-"))
        self.view = View(writable=(str(self.root),), readable=(*readable, str(MAIN), sys.base_prefix))
        self.uid = containment.sandbox_uid(self.view) if os.geteuid() == 0 else -1
        containment.hand_over(self.view)
        self.sock, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        python = os.path.realpath(sys.executable)
        argv = containment.bwrap_argv([python, "-I", "-S", str(MAIN), str(theirs.fileno()), str(self.uid)], self.view,
                                      str(self.root), [], None, as_init=True)
        self.proc = subprocess.Popen(argv, cwd=self.root, env=sandbox.environment(View()), start_new_session=True,
                                     pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE)
        theirs.close()
        self.lock = threading.Lock()

    def new_dir(self) -> Path:
        """A run directory of its own, writable by the steps."""
        d = Path(tempfile.mkdtemp(prefix="run-", dir=self.root))
        if self.uid >= 0:
            os.chown(d, self.uid, self.uid)
        return d

    def run(self, cmd: list[str], *, cwd: Path, limits: Limits = Limits()) -> Completed:
        with self.lock:   # one step at a time (callers on several threads share a build's sandbox)
            return self._run(cmd, cwd, limits)

    def _run(self, cmd: list[str], cwd: Path, limits: Limits) -> Completed:
        with tempfile.TemporaryDirectory(prefix="kw-step-") as private:
            out, err = Path(private) / "stdout", Path(private) / "stderr"
            start = time.monotonic()
            with open(out, "wb") as o, open(err, "wb") as e, open(os.devnull, "rb") as i:
                req = {"argv": cmd, "cwd": str(cwd), "env": sandbox.environment(View()), "rlimits": _rlimits(limits),
                       "timeout": limits.wall_s}
                answer = self._ask(req, [i.fileno(), o.fileno(), e.fileno()], limits.wall_s + 30)
            stdout, stderr = sandbox._tail(out), sandbox._tail(err)
        if "error" in answer:
            return Completed(cmd=cmd, returncode=None, stdout=stdout, stderr=stderr, seconds=time.monotonic() - start,
                             sandbox_error=answer["error"])
        return Completed(cmd=cmd, returncode=None if answer["timed_out"] else answer["returncode"], stdout=stdout,
                         stderr=stderr, seconds=answer["seconds"], timed_out=answer["timed_out"])

    def _ask(self, req: dict, fds: list[int], timeout: float) -> dict:
        try:
            self.sock.settimeout(timeout)
            socket.send_fds(self.sock, [json.dumps(req).encode()], fds)
            data = self.sock.recv(1 << 16)
            if data:
                return json.loads(data)
        except (OSError, json.JSONDecodeError) as e:
            self.close()
            return {"error": f"the run sandbox failed: {e}"}
        self.close()
        why = self.proc.stderr.read().decode(errors="replace").strip()[-500:] if self.proc.stderr else ""
        return {"error": f"the run sandbox ended: {why or 'no message'}"}

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def close(self) -> None:
        self.sock.close()
        sandbox.kill(self.proc)
        shutil.rmtree(self.root, ignore_errors=True)


class Pool:
    """The executors of the most recently run builds (each holds a sandbox; older idle ones are closed)."""

    def __init__(self, size: int = 4):
        self.size = size
        self.items: OrderedDict[tuple[str, ...], Executor] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, readable: tuple[str, ...]) -> Executor | None:
        """The executor over these files, or None where steps cannot be contained (one-shot limits then)."""
        if not sandbox.status().contained:
            return None
        key = tuple(f"{p}@{_identity(p)}" for p in readable)   # a rebuilt entry at the same path is new
        with self.lock:
            ex = self.items.pop(key, None)
            if ex is None or not ex.alive:
                ex = Executor(readable)
            self.items[key] = ex
            for key, old in list(self.items.items())[:-self.size]:
                if old.lock.acquire(blocking=False):      # never one a step is running in
                    del self.items[key]
                    old.close()
                    old.lock.release()
            return ex

    def close(self) -> None:
        with self.lock:
            while self.items:
                self.items.popitem()[1].close()


def _identity(path: str) -> str:
    try:
        st = os.stat(path)
    except OSError:
        return "-"
    return f"{st.st_dev}:{st.st_ino}:{st.st_ctime_ns}"


POOL = Pool()          # shared by every toolchain in the process
atexit.register(POOL.close)
