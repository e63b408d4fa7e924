"""Run clang on a probe file (syntax only, CPU-debug defines) and sort its diagnostics by probe.

clang, not g++: the NPU compiler (bisheng) is clang-based, so its diagnostics are the texts a
kernel writer sees and the cards quote."""
from __future__ import annotations

import bisect
import os
import re
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from kernelwright.errors import UserError
from kernelwright.evals.cards_oracle.probes import Probe, ProbeFile

_LINE = re.compile(r"^(.*?):(\d+):(?:\d+:)? (fatal error|error|warning|note): (.*)$")
# Off: noise from the headers themselves. Kept: what a card may quote or a kernel writer would see.
FLAGS = ["-std=c++17", "-fsyntax-only", "-ferror-limit=0", "-fno-caret-diagnostics", "-fno-color-diagnostics",
         "-Wno-everything", "-Wdeprecated-declarations"]
TIMEOUT_S = 1800


@dataclass
class Diag:
    severity: str
    file: str
    line: int
    message: str
    notes: list[tuple[str, int, str]] = field(default_factory=list)

    def text(self) -> str:
        """The error and its notes, as clang printed them (file names shortened)."""
        return "\n".join([f"{self.severity}: {self.message}", *(f"note: {m}" for _, _, m in self.notes)])


@dataclass
class Outcome:
    diags: dict[int, list[Diag]]      # probe index -> diagnostics located in it
    unplaced: list[Diag]              # diagnostics in no probe (a broken header setup shows here)
    seconds: float
    command: list[str]


def find_clang(wanted: str | None = None) -> str:
    names = [wanted] if wanted else [os.environ.get("KERNELWRIGHT_ORACLE_CXX", ""), "clang++",
                                     *(f"clang++-{v}" for v in range(20, 13, -1))]
    for name in names:
        if name and shutil.which(name):
            return shutil.which(name)
    raise UserError("the cards oracle compiles with clang++ (as CANN's bisheng is clang-based) and none was found; "
                    "install clang (e.g. apt-get install clang-16) or pass --cxx")


def parse(stderr: str) -> list[Diag]:
    diags: list[Diag] = []
    for line in stderr.splitlines():
        m = _LINE.match(line)
        if not m:
            continue
        path, lineno, severity, message = m.group(1), int(m.group(2)), m.group(3), m.group(4)
        if severity == "note":
            if diags:
                diags[-1].notes.append((path, lineno, message))
        else:
            diags.append(Diag(severity, path, lineno, message))
    return diags


def run(unit: ProbeFile, path: Path, cxx: str, dirs: list[Path], defines: list[str]) -> Outcome:
    """Compile; the diagnostics are also kept beside the probe file (`.log`)."""
    path.write_text(unit.text())
    cmd = [cxx, *FLAGS, *defines, *[f"-I{d}" for d in dirs], str(path)]
    start = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT_S, env=dict(os.environ, LC_ALL="C"))
    seconds = time.monotonic() - start
    path.with_suffix(".log").write_text(proc.stderr)
    return place(parse(proc.stderr), unit.probes, str(path), seconds, cmd)


def place(diags: list[Diag], probes: list[Probe], main: str, seconds: float = 0.0, cmd: list[str] | None = None) -> Outcome:
    """Give each diagnostic to the probe containing its first location in the probe file (the
    error itself, or the `requested here` note of an error inside a header)."""
    starts = [p.first for p in probes]
    out: dict[int, list[Diag]] = {}
    unplaced: list[Diag] = []
    for d in diags:
        lines = [d.line] if d.file == main else []
        lines += [ln for f, ln, _ in d.notes if f == main]
        index = bisect.bisect_right(starts, lines[0]) - 1 if lines else -1
        if index >= 0 and lines[0] <= probes[index].last:
            out.setdefault(index, []).append(d)
        else:
            unplaced.append(d)
    return Outcome(out, unplaced, seconds, cmd or [])
