"""Which host C++ compiler builds the emulation and the native bindings the referee runs, and with
which flags (shared, so the referee needs no backend).

bisheng (CANN's compiler) is clang-based, so clang is preferred: narrowing in brace
initialisers is an error there, as on the NPU. `half` is the builtin `_Float16`, which needs
clang >= 15 or g++ >= 12 on x86-64 (any recent compiler on aarch64).
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from functools import lru_cache

CANDIDATES = ["clang++-16", "clang++-17", "clang++-18", "clang++-15", "clang++", "g++-13", "g++-12", "g++"]


@dataclass(frozen=True)
class Compiler:
    path: str
    family: str      # "clang" | "gcc"
    version: str
    major: int

    @property
    def identity(self) -> str:
        return f"{self.family}-{self.version}"

    def common_flags(self) -> list[str]:
        flags = ["-std=c++17", "-O1", "-fno-omit-frame-pointer"]
        if self.family == "clang":
            # -fno-crash-diagnostics: a crashing compile (a template bomb at the memory limit) leaves no
            # multi-MB preprocessed reproducers in /tmp
            flags += ["-gline-tables-only", "-fno-caret-diagnostics", "-fno-color-diagnostics", "-ferror-limit=30",
                      "-fno-crash-diagnostics",
                      "-Wno-everything", "-Werror=c++11-narrowing"]
        else:
            flags += ["-g1", "-fno-diagnostics-show-caret", "-fdiagnostics-color=never", "-fmax-errors=30", "-w",
                      "-Werror=narrowing"]
        return flags


class NoCompiler(RuntimeError):
    pass


def _probe(path: str) -> Compiler | None:
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    family = "clang" if "clang" in out else "gcc"
    m = re.search(r"version (\d+)\.(\d+)\.?(\d*)", out) or re.search(r"\) (\d+)\.(\d+)\.?(\d*)", out)
    if not m:
        return None
    major = int(m.group(1))
    version = ".".join(g for g in m.groups() if g)
    if family == "clang" and major < 15:
        return None  # no _Float16 on x86-64 before clang 15
    if family == "gcc" and major < 12:
        return None
    return Compiler(path=path, family=family, version=version, major=major)


@lru_cache(maxsize=1)
def find_compiler() -> Compiler:
    """The first usable compiler: $KERNELWRIGHT_CXX, then clang++ (>=15), then g++ (>=12)."""
    wanted = os.environ.get("KERNELWRIGHT_CXX")
    names = [wanted] if wanted else CANDIDATES
    seen = []
    for name in names:
        path = shutil.which(name)
        if not path or path in seen:
            continue
        seen.append(path)
        c = _probe(path)
        if c:
            return c
    raise NoCompiler(
        "no usable C++ compiler: the CPU emulation needs clang++ >= 15 or g++ >= 12 "
        f"(looked for {', '.join(names)}). On Debian/Ubuntu: `sudo apt-get install clang-16`; "
        "or point KERNELWRIGHT_CXX at a compiler.")


def all_compilers() -> list[Compiler]:
    found, seen = [], set()
    for name in CANDIDATES:
        path = shutil.which(name)
        if path and os.path.realpath(path) not in seen:
            seen.add(os.path.realpath(path))
            c = _probe(path)
            if c:
                found.append(c)
    return found
