"""The instruction trace the cost model reads: per launch, per block, the ordered records of what each
pipe of the AI Core did. Backend-neutral: the emulation writes it (tools/sim/trace.py reads its files
into this form), and tests or other tools can build one by hand (`TraceBuilder`).

A record is one row of `RECORD` (numpy structured dtype, the layout of the emulator's file):
  kind  COPY | VEC | CUBE | SCALAR | REL | ACQ | BARRIER | SYNCALL
  pipe  the pipe it runs on (index into PIPES; BARRIER/SYNCALL: len(PIPES) means every pipe)
  src, dst   memories of a COPY (index into MEMORIES)
  name, dtype   indices into the trace's string table (API names, dtype names)
  count  identical consecutive records merged into one
  x      COPY bursts | VEC repeats | CUBE fractals | REL/ACQ token
  w      COPY: the first GM byte's offset modulo 512
  gm     COPY: the first GM byte's 32-byte sector (address >> 5, 31 bits) with bit 31 set; 0 when not known
         (hand-made traces, older emulator builds): the L2 model (tools/perf/l2.py) finds re-reads by it
  y      COPY bytes | VEC elements | CUBE multiply-adds
  z      COPY: burst bytes | GM-side gap << 32 ; VEC: strides (bit 63 set: mask/repeat form) ;
         CUBE: m | n << 21 | k << 42
A REL says "every op issued so far on this pipe is done" and names it with a token; an ACQ makes its
pipe wait for a token (flags, queue EnQue/DeQue and AllocTensor/FreeTensor, unit flags, the scalar
unit's automatic syncs all become such pairs)."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from kernelwright.tools.dtypes import TABLE
PIPES = ("S", "V", "M", "MTE1", "MTE2", "MTE3", "FIX")
ALL_PIPES = len(PIPES)
MEMORIES = ("GM", "UB", "L1", "L0A", "L0B", "L0C", "BIAS", "FIXBUF")
COPY, VEC, CUBE, SCALAR, REL, ACQ, BARRIER, SYNCALL = range(1, 9)
KINDS = {COPY: "copy", VEC: "vector", CUBE: "cube", SCALAR: "scalar", REL: "release", ACQ: "acquire",
         BARRIER: "barrier", SYNCALL: "syncall"}

RECORD = np.dtype([("kind", "u1"), ("pipe", "u1"), ("src", "u1"), ("dst", "u1"), ("name", "<u2"), ("dtype", "<u2"),
                   ("count", "<u4"), ("x", "<u4"), ("w", "<u4"), ("gm", "<u4"), ("y", "<u8"), ("z", "<u8")])
assert RECORD.itemsize == 40


@dataclass
class BlockTrace:
    block: int                     # instance index (GetBlockIdx(): block * ratio + sub-block on MIX kernels)
    records: np.ndarray            # RECORD rows, in program order
    names: list[str]               # the string table `name` and `dtype` index into
    truncated: bool = False        # the emulator stopped recording (too many records): the estimate is partial
    # a trace-only run stopped the block at its budget of GM bytes (runtime/trace.cpp `trace_cut`): the records are a
    # prefix, which tools/referee/speed_extend.py extends by its steady state before anything is estimated
    cut: bool = False
    cut_out_bytes: int | None = None   # ... and the task's output bytes its copies had written by then (whole pages)
    # (start, length): records[start:] are whole repeats of one period (an extended block, speed_extend.py), equal
    # but for sync tokens shifted by a step and GM addresses advanced; the pipe model times it once steady (pipes.py)
    period: tuple[int, int] | None = None


@dataclass
class LaunchTrace:
    block_dim: int                 # blocks launched
    ratio: int = 1                 # vector-core instances per block (2 on a MIX kernel of a split-architecture SoC)
    blocks: list[BlockTrace] = field(default_factory=list)
    # a sampled launch (the emulator ran only some blocks, runtime/sample.cpp): the blocks that ran, whose traces
    # stand for the others (estimate.py); empty: every block was meant to run
    sampled: list[int] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        if any(b.truncated or b.cut for b in self.blocks):
            return False
        if self.sampled:
            ran = {b.block // self.ratio for b in self.blocks}
            return ran >= {g for g in self.sampled if g < self.block_dim}
        return len(self.blocks) == self.block_dim * self.ratio


@dataclass
class KernelTrace:
    """Every launch of one run (host code may launch several kernels)."""

    launches: list[LaunchTrace] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return bool(self.launches) and all(lt.complete for lt in self.launches)


class TraceBuilder:
    """Builds one block's trace by hand (tests, synthetic kernels, the eager baseline)."""

    def __init__(self) -> None:
        self.rows: list[tuple] = []
        self.names: list[str] = [""]
        self._tokens = 0

    def _name(self, s: str) -> int:
        if s not in self.names:
            self.names.append(s)
        return self.names.index(s)

    def _row(self, kind: int, pipe: int, *, src: int = 0, dst: int = 0, name: str = "", dtype: str = "", count: int = 1,
             x: int = 0, w: int = 0, gm: int = 0, y: int = 0, z: int = 0) -> "TraceBuilder":
        self.rows.append((kind, pipe, src, dst, self._name(name) if name else 0, self._name(dtype) if dtype else 0,
                          count, x, w, gm, y, z))
        return self

    def copy(self, src: str, dst: str, nbytes: int, *, bursts: int = 1, burst: int = 0, gm_gap: int = 0,
             count: int = 1, gm_addr: int | None = None) -> "TraceBuilder":
        """`gm_addr`: the GM address the copy starts at (as the emulator records it), for the L2 model."""
        pipe = copy_pipe(src, dst)
        return self._row(COPY, pipe, src=MEMORIES.index(src), dst=MEMORIES.index(dst), count=count, x=bursts,
                         w=(gm_addr or 0) % 512, gm=gm_sector(gm_addr), y=nbytes, z=(burst or nbytes) | gm_gap << 32)

    def vec(self, api: str, dtype: str, repeats: int, elements: int | None = None, count: int = 1) -> "TraceBuilder":
        return self._row(VEC, PIPES.index("V"), name=api, dtype=dtype, count=count, x=repeats,
                         y=elements if elements is not None else repeats * 256 // dtype_bytes(dtype))

    def cube(self, dtype: str, m: int, n: int, k: int, count: int = 1) -> "TraceBuilder":
        c0 = 32 // dtype_bytes(dtype)
        fractals = -(-m // 16) * -(-n // 16) * -(-k // c0)
        return self._row(CUBE, PIPES.index("M"), name="Mmad", dtype=dtype, count=count, x=fractals, y=m * n * k,
                         z=m | n << 21 | k << 42)

    def scalar(self, what: str, count: int = 1) -> "TraceBuilder":
        return self._row(SCALAR, PIPES.index("S"), name=what, count=count)

    def release(self, pipe: str) -> int:
        self._tokens += 1
        self._row(REL, PIPES.index(pipe), x=self._tokens)
        return self._tokens

    def acquire(self, pipe: str, token: int) -> "TraceBuilder":
        return self._row(ACQ, PIPES.index(pipe), x=token)

    def flag(self, src: str, dst: str) -> "TraceBuilder":
        """SetFlag<src_dst> immediately followed by its WaitFlag."""
        return self.acquire(dst, self.release(src))

    def barrier(self, pipe: str = "ALL") -> "TraceBuilder":
        return self._row(BARRIER, ALL_PIPES if pipe == "ALL" else PIPES.index(pipe))

    def sync_all(self) -> "TraceBuilder":
        return self.barrier()._row(SYNCALL, ALL_PIPES)

    def build(self, block: int = 0) -> BlockTrace:
        return BlockTrace(block=block, records=np.array(self.rows, dtype=RECORD), names=list(self.names))


GM_KNOWN = 0x80000000          # the `gm` field's flag: the address is known (0 means unknown)
GM_SECTOR = 0x7FFFFFFF         # ... and its 32-byte sector, modulo 2^31


def gm_sector(addr: int | None) -> int:
    """The `gm` field of a copy starting at GM address `addr` (runtime/state.cpp count_copy)."""
    return 0 if addr is None else (addr >> 5 & GM_SECTOR) | GM_KNOWN


def copy_pipe(src: str, dst: str) -> int:
    """The pipe a copy between two memories runs on (as the emulator assigns it)."""
    if src == "GM":
        name = "MTE2"
    elif src == "L0C":
        name = "FIX"
    elif src == "UB":
        name = "V" if dst == "UB" else "MTE3"
    elif src == "L1":
        name = "MTE3" if dst == "GM" else "MTE1"
    else:
        name = "MTE2"
    return PIPES.index(name)


# element sizes by NumPy-style name (the eager baseline's ops) and by AscendC type (the emulator's records)
_BYTES = {d.name: d.size for d in TABLE if d.size} | {d.ctype: d.size for d in TABLE if d.ctype and d.size}


def dtype_bytes(name: str) -> int:
    return _BYTES.get(name, 4)
