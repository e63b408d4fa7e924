"""The parent's handle on one NPU worker process: start it (its own process group, one visible
device), send a request, wait with a deadline, and turn silence or death into data. After a fault
the worker is gone; the next request starts a fresh one (a health check first)."""
from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kernelwright.tools.cann import protocol
from kernelwright.tools.cann.env import worker_env

WORKER_COMMAND = [sys.executable, "-m", "kernelwright.tools.cann.worker"]


@dataclass
class Reply:
    ok: bool
    data: dict[str, Any] = field(default_factory=dict)
    error: str = ""
    fault: bool = False              # the device state is suspect (the worker exits; restarted next time)
    died: bool = False               # the worker exited without answering
    hung: bool = False               # no answer before the deadline; the worker was killed
    signal: int | None = None
    stderr: str = ""

    @property
    def text(self) -> str:
        """Everything that may name the fault: the error and the worker's last stderr lines."""
        return "\n".join(x for x in (self.error, self.stderr) if x)


class NpuWorker:
    def __init__(self, device: int, env: dict[str, str], *, command: list[str] | None = None,
                 start_timeout_s: float = 300.0):
        self.device = device
        self.env = worker_env(env, device)
        self.command = list(command or WORKER_COMMAND)
        self.start_timeout_s = start_timeout_s
        self.proc: subprocess.Popen | None = None
        self.starts = 0
        self.lost = False                # the device did not come back after a fault
        self.info: dict[str, Any] = {}
        self._stderr_path = Path(tempfile.mkstemp(prefix=f"kw-npu{device}-", suffix=".log")[1])
        self._stderr = None

    # ---- process ----
    def _spawn(self) -> None:
        self._close_stderr()
        self._stderr = open(self._stderr_path, "w+b")
        self.proc = subprocess.Popen(self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr,
                                     env=self.env, start_new_session=True)
        self.starts += 1

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def start(self) -> Reply:
        """Start the worker (if it is not running) and check the device answers."""
        if self.alive():
            return Reply(ok=True, data=self.info)
        self._spawn()
        reply = self._exchange({"op": "hello"}, self.start_timeout_s)
        if reply.ok:
            self.info = reply.data
        else:
            self.kill()
        return reply

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if self.proc is not None:
            self.proc.wait()
            for pipe in (self.proc.stdin, self.proc.stdout):
                if pipe:
                    pipe.close()
        self.proc = None

    def close(self) -> None:
        self.kill()
        self._close_stderr()
        self._stderr_path.unlink(missing_ok=True)

    def _close_stderr(self) -> None:
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    def _stderr_tail(self, limit: int = 4000) -> str:
        try:
            data = self._stderr_path.read_bytes()
        except OSError:
            return ""
        return data[-limit:].decode(errors="replace")

    # ---- requests ----
    def request(self, req: dict[str, Any], timeout_s: float) -> Reply:
        started = self.start()
        if not started.ok:
            return started
        return self._exchange(req, timeout_s)

    def _exchange(self, req: dict[str, Any], timeout_s: float) -> Reply:
        assert self.proc and self.proc.stdin and self.proc.stdout
        try:
            protocol.send(self.proc.stdin, req)
        except (BrokenPipeError, OSError):
            pass
        deadline = time.monotonic() + timeout_s
        ready = False
        while time.monotonic() < deadline:
            r, _, _ = select.select([self.proc.stdout], [], [], min(1.0, max(0.0, deadline - time.monotonic())))
            if r:
                ready = True
                break
            if self.proc.poll() is not None:
                break
        msg = protocol.recv(self.proc.stdout) if ready else None
        if msg is None:
            hung = not ready and self.proc.poll() is None
            try:                     # end of stream: the worker is exiting; let it finish to learn how
                code = self.proc.wait(timeout=0.1 if hung else 10)
            except subprocess.TimeoutExpired:
                code = None
            self.kill()
            return Reply(ok=False, died=not hung, hung=hung, stderr=self._stderr_tail(),
                         signal=-code if code is not None and code < 0 else None,
                         error="" if hung else f"the worker exited with {code}")
        if not msg.get("ok"):
            reply = Reply(ok=False, data=msg, error=str(msg.get("error", "")), fault=bool(msg.get("fault")),
                          stderr=self._stderr_tail() if msg.get("fault") else "")
            if reply.fault:
                self.kill()                 # it exits by itself; make sure, and restart on the next request
            return reply
        return Reply(ok=True, data=msg)
