"""Turn the code addresses in emulator reports into file:line of the user's kernel."""
from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Callable


@dataclass(frozen=True)
class Frame:
    function: str
    file: str
    line: int
    column: int


def _tool() -> list[str] | None:
    for name in ("llvm-symbolizer", "llvm-symbolizer-16", "llvm-symbolizer-17", "llvm-symbolizer-15", "llvm-symbolizer-14"):
        if shutil.which(name):
            return [name, "--inlining", "--functions=short", "--demangle"]
    return None


def symbolize(exe: Path, addresses: list[str], return_addresses: bool = True) -> dict[str, list[Frame]]:
    """Map each address (hex string) to its inline frame chain, innermost first."""
    if not addresses:
        return {}
    uniq = list(dict.fromkeys(addresses))
    # return addresses point after the call; look up the call instruction itself
    lookups = [hex(max(int(a, 16) - (1 if return_addresses else 0), 0)) for a in uniq]
    tool = _tool()
    try:
        if tool:
            out = subprocess.run([*tool, f"--obj={exe}", *lookups], capture_output=True, text=True, timeout=60).stdout
            blocks = out.strip("\n").split("\n\n")
        elif shutil.which("addr2line"):
            out = subprocess.run(["addr2line", "-f", "-i", "-C", "-e", str(exe), *lookups], capture_output=True, text=True,
                                 timeout=60).stdout
            return {a: [f] for a, f in zip(uniq, _addr2line_pairs(out))}
        else:
            return {}
    except (OSError, subprocess.TimeoutExpired):
        return {}
    result: dict[str, list[Frame]] = {}
    for addr, block in zip(uniq, blocks):
        frames, lines = [], block.splitlines()
        for fn, loc in zip(lines[0::2], lines[1::2]):
            parts = loc.rsplit(":", 2)
            if len(parts) == 3 and parts[1].isdigit():
                frames.append(Frame(fn, parts[0], int(parts[1]), int(parts[2]) if parts[2].isdigit() else 0))
        result[addr] = frames
    return result


def _addr2line_pairs(out: str) -> list[Frame]:
    lines = out.splitlines()
    frames = []
    for fn, loc in zip(lines[0::2], lines[1::2]):
        path, _, line = loc.rpartition(":")
        line = line.split(" ")[0]
        frames.append(Frame(fn, path, int(line) if line.isdigit() else 0, 0))
    return frames


def first_user_frame(chains: list[list[Frame]], is_user: Callable[[str], bool]) -> Frame | None:
    """The outermost call site in user code closest to the fault: the first user frame when walking
    from the innermost frame of the innermost physical frame outwards."""
    for chain in chains:
        for frame in chain:
            if is_user(frame.file):
                return frame
    return None
