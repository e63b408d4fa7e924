"""A small tmux driver for terminal tests: a private server (its own socket, so nobody else's
sessions are touched), send-keys, capture-pane of the whole history, and waiting for text."""
from __future__ import annotations

import re
import shutil
import subprocess
import time
from pathlib import Path


class TmuxTimeout(AssertionError):
    pass


class Tmux:
    def __init__(self, workdir: Path, env: dict[str, str], width: int = 160, height: int = 48):
        self.socket = str(workdir / "tmux.sock")
        self.env, self.width, self.height = env, width, height
        self.conf = workdir / "tmux.conf"
        self.conf.write_text("set -g history-limit 200000\nset -g remain-on-exit off\n")

    @staticmethod
    def available() -> bool:
        return shutil.which("tmux") is not None

    def _tmux(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        return subprocess.run(["tmux", "-S", self.socket, "-f", str(self.conf), *args], capture_output=True, text=True,
                              env=self.env, check=check, timeout=30)

    def start(self, name: str, command: list[str], cwd: Path) -> None:
        import shlex
        self._tmux("new-session", "-d", "-s", name, "-x", str(self.width), "-y", str(self.height), "-c", str(cwd),
                   " ".join(shlex.quote(c) for c in command))

    def send(self, name: str, text: str, enter: bool = True) -> None:
        self._tmux("send-keys", "-t", name, "-l", text)
        if enter:
            self._tmux("send-keys", "-t", name, "Enter")

    def capture(self, name: str, escapes: bool = False) -> str:
        """The whole pane, history included (-J joins wrapped lines; -e keeps colours and attributes)."""
        return self._tmux("capture-pane", "-p", "-J", *(["-e"] if escapes else []), "-S", "-", "-E", "-",
                          "-t", name).stdout

    def alive(self, name: str) -> bool:
        return self._tmux("has-session", "-t", name, check=False).returncode == 0

    def pid(self, name: str) -> int:
        return int(self._tmux("display-message", "-p", "-t", name, "#{pane_pid}").stdout.strip())

    def wait_for(self, name: str, pattern: str, count: int = 1, timeout: float = 180.0,
                 fail: str = r"the run stopped|Traceback \(most recent call last\)") -> str:
        """Wait until `pattern` (a regex) occurs `count` times on the pane; the pane's text. Text matching
        `fail` ends the wait at once."""
        deadline = time.monotonic() + timeout
        text = ""
        while time.monotonic() < deadline:
            if not self.alive(name):
                raise TmuxTimeout(f"tmux session {name} ended while waiting for {pattern!r}; it showed:\n{text[-3000:]}")
            text = self.capture(name)
            if len(re.findall(pattern, text)) >= count:
                return text
            if fail and re.search(fail, text):
                raise TmuxTimeout(f"tmux session {name} shows {fail!r} while waiting for {pattern!r}:\n{text[-3000:]}")
            time.sleep(0.25)
        raise TmuxTimeout(f"no {pattern!r} (x{count}) on tmux session {name} within {timeout:g} s; it shows:\n"
                          f"{text[-3000:]}")

    def kill_session(self, name: str) -> None:
        self._tmux("kill-session", "-t", name, check=False)

    def kill_server(self) -> None:
        self._tmux("kill-server", check=False)
