"""Read the instruction traces a run of the emulator left (`trace_<launch>_<block>.bin`, written by
runtime/trace.cpp) into the cost model's `KernelTrace`."""
from __future__ import annotations

import re
import struct
from pathlib import Path

import numpy as np

from kernelwright.tools.perf.trace import RECORD, BlockTrace, KernelTrace, LaunchTrace

MAGIC = 0x5254574B
VERSION = 1
_HEAD = struct.Struct("<6I")
_NAME = re.compile(r"trace_(\d+)_(\d+)\.bin$")


class TraceFormatError(ValueError):
    pass


def read_block(path: Path, block: int) -> tuple[BlockTrace, int]:
    """One block's trace and its launch's AIV instances per block."""
    data = path.read_bytes()
    if len(data) < _HEAD.size:
        raise TraceFormatError(f"{path.name}: {len(data)} bytes, shorter than the header")
    magic, version, n, n_names, flags, ratio = _HEAD.unpack_from(data)
    if magic != MAGIC or version != VERSION:
        raise TraceFormatError(f"{path.name}: not a version-{VERSION} trace (magic {magic:#x}, version {version})")
    end = _HEAD.size + n * RECORD.itemsize
    records = np.frombuffer(data, dtype=RECORD, count=n, offset=_HEAD.size) if n else np.zeros(0, dtype=RECORD)
    names = data[end:].decode("utf-8", errors="replace").split("\0")[:n_names]
    return BlockTrace(block=block, records=records, names=names, truncated=bool(flags & 1),
                      cut=bool(flags & 2)), max(int(ratio), 1)


def read_trace(run_dir: Path) -> KernelTrace | None:
    """The traces of every launch of a run, or None when it left none. A block writes its trace when it
    returns, so a launch whose blocks all finished has one file per block (and vector-core instance)."""
    found: dict[int, dict[int, Path]] = {}
    for p in run_dir.glob("trace_*_*.bin"):
        m = _NAME.search(p.name)
        if m:
            found.setdefault(int(m.group(1)), {})[int(m.group(2))] = p
    if not found:
        return None
    trace = KernelTrace()
    for launch in sorted(found):
        blocks, ratio = [], 1
        for b in sorted(found[launch]):
            bt, ratio = read_block(found[launch][b], b)
            touched = found[launch][b].with_name(f"cut_{launch}_{b}.txt")
            if bt.cut and touched.exists():     # written by runtime/trace.cpp beside a cut block's trace
                bt.cut_out_bytes = int(touched.read_text().split()[0])
            blocks.append(bt)
        dim = (max(found[launch]) + 1 + ratio - 1) // ratio
        trace.launches.append(LaunchTrace(block_dim=dim, ratio=ratio, blocks=blocks))
    return trace
