"""One AI Core running one block's trace: the scalar unit issues instructions in program order into
in-order queues, one per pipe; a pipe starts an instruction when the previous one has left it and
every wait in front of it is satisfied; releases and acquires (flags, queue hand-overs, barriers)
carry completion times between pipes, so double buffering shows as overlap. Time is in cycles."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from kernelwright.tools.perf import calibration as cal
from kernelwright.tools.perf.l2 import L2_HIT
from kernelwright.tools.perf.trace import (ACQ, ALL_PIPES, BARRIER, COPY, CUBE, MEMORIES, PIPES, REL, SCALAR, SYNCALL,
                                           VEC, BlockTrace, dtype_bytes)

S = PIPES.index("S")
BYTES_PER_CYCLE = 2 ** 30 / (cal.CLOCK_MHZ * 1e6)     # GB/s of the [mskpp] tables (2^30 bytes) -> bytes per cycle


@dataclass
class BlockTime:
    """What one block cost: the cycles of each SyncAll phase, each pipe's busy cycles, the work it moved."""

    phases: list[float]                       # cycles from the start (or the last SyncAll) to the next SyncAll or the end
    busy: list[float]                         # per pipe (PIPES order), cycles the pipe was occupied
    gm_bytes: int = 0                         # GM traffic, bursts rounded up to GM sectors
    l2_bytes: int = 0                         # the part of it that hit L2 (tools/perf/l2.py)
    vector_floor: float = 0.0                 # cycles of vector work at the measured peak rates (no first-repeat cost)
    cube_floor: float = 0.0                   # cycles of cube work at one fractal per k-step
    notes: list[str] = field(default_factory=list)

    @property
    def cycles(self) -> float:
        return sum(self.phases)


def _curve(path: str) -> tuple[np.ndarray, np.ndarray]:
    pts = cal.COPY_CURVES.get(cal.COPY_ALIASES.get(path, path), cal.COPY_CURVES["GM_TO_UB"])
    kib = np.array([p[0] for p in pts]) * 1024
    return kib, np.array([p[1] for p in pts]) * BYTES_PER_CYCLE


def copy_cycles(path: str, nbytes: np.ndarray) -> np.ndarray:
    """Cycles of copies of `nbytes` each on one core. Between measured sizes the bandwidth is interpolated
    as [mskpp] does; below the smallest measurement a copy costs that copy's time less the bytes it does
    not move at the peak rate (a DMA's fixed latency does not shrink with it)."""
    kib, bpc = _curve(path)
    nb = np.asarray(nbytes, dtype=np.float64)
    t = nb / np.interp(nb, kib, bpc)
    small = nb < kib[0]
    if small.any():
        t[small] = kib[0] / bpc[0] - (kib[0] - nb[small]) / bpc.max()
    return t


def peak_bytes_per_cycle(path: str) -> float:
    return float(_curve(path)[1].max())


def _costs(block: BlockTrace, gm_share: float, l2_share: float) -> tuple[np.ndarray, np.ndarray, BlockTime]:
    """Per record: cycles it occupies its pipe (per repetition) and its extra result latency."""
    r = block.records
    dur, lat = np.zeros(len(r)), np.zeros(len(r))
    kind = r["kind"]
    info = BlockTime(phases=[], busy=[0.0] * len(PIPES))
    copies = np.nonzero(kind == COPY)[0]
    for (src, dst) in {(int(r["src"][i]), int(r["dst"][i])) for i in copies}:
        sel = copies[(r["src"][copies] == src) & (r["dst"][copies] == dst)]
        path = f"{MEMORIES[src]}_TO_{MEMORIES[dst]}"
        nbytes = r["y"][sel].astype(np.float64)
        t = copy_cycles(path, nbytes)
        if "GM" in (MEMORIES[src], MEMORIES[dst]):
            bursts = np.maximum(r["x"][sel], 1).astype(np.float64)
            burst = (r["z"][sel] & 0xFFFFFFFF).astype(np.float64)
            misaligned = (r["w"][sel] % cal.GM_SECTOR != 0).astype(np.float64)
            sectors = bursts * (np.ceil(burst / cal.GM_SECTOR) + misaligned)
            traffic = sectors * cal.GM_SECTOR
            info.gm_bytes += int((traffic * r["count"][sel]).sum())
            hit = r["gm"][sel] == L2_HIT          # a marked block (tools/perf/l2.py): this read comes from L2
            info.l2_bytes += int((traffic * r["count"][sel])[hit].sum())
            # the core's share of HBM (or of L2 on a hit): moving the traffic at that share instead of the
            # core's own peak rate
            share = np.where(hit, l2_share, gm_share)
            t = t + np.maximum(0.0, traffic / share - nbytes / peak_bytes_per_cycle(path))
        dur[sel] = t
    vec = np.nonzero(kind == VEC)[0]
    for key in np.unique(r["name"][vec].astype(np.uint32) << 16 | r["dtype"][vec]):
        sel = vec[(r["name"][vec] == key >> 16) & (r["dtype"][vec] == key & 0xFFFF)]
        first, rate, latency = cal.vector_cost(block.names[key >> 16], block.names[key & 0xFFFF])
        reps = r["x"][sel].astype(np.float64)
        dur[sel] = np.where(reps > 0, np.maximum(first, reps * 256.0 / rate), 0.0)
        lat[sel] = latency
        info.vector_floor += float((reps * 256.0 / rate * r["count"][sel]).sum())
    cube = np.nonzero(kind == CUBE)[0]
    for d in np.unique(r["dtype"][cube]):
        sel = cube[r["dtype"][cube] == d]
        dtype = block.names[d]
        steps = 32 / dtype_bytes(dtype) / cal.CUBE_KSTEP.get(dtype, 16)   # a fractal spans 32 bytes of k
        work = r["x"][sel].astype(np.float64) * steps
        dur[sel] = np.maximum(work, cal.CUBE_MIN_CYCLES)
        lat[sel] = cal.CUBE_STATE_LATENCY
        info.cube_floor += float((work * r["count"][sel]).sum())
    scalar = np.nonzero(kind == SCALAR)[0]
    for n in np.unique(r["name"][scalar]):
        dur[scalar[r["name"][scalar] == n]] = cal.SCALAR_CYCLES.get(block.names[n], cal.SCALAR_DEFAULT)
    return dur, lat, info


def run_block(block: BlockTrace, gm_share: float, l2_share: float | None = None) -> BlockTime:
    """Times one block on one core whose share of HBM is `gm_share` bytes per cycle and of L2 `l2_share`
    (reads the block's `gm` field marks as L2 hits, tools/perf/l2.py; default: no faster than HBM)."""
    dur, lat, info = _costs(block, gm_share, gm_share if l2_share is None else l2_share)
    r = block.records
    npipes = len(PIPES)
    free = [0.0] * npipes          # when the pipe can take its next instruction
    end = [0.0] * npipes           # when its last instruction's results are visible
    ready = [0.0] * npipes         # waits in the pipe's queue in front of what comes next
    busy = info.busy
    tokens: dict[int, float] = {}
    ts = 0.0                       # the scalar unit: issue point of the next instruction
    phase_start = 0.0
    issue = float(cal.ISSUE_CYCLES)
    for kind, pipe, x, count, d, extra in zip(r["kind"].tolist(), r["pipe"].tolist(), r["x"].tolist(),
                                               r["count"].tolist(), dur.tolist(), lat.tolist()):
        if kind == COPY or kind == VEC or kind == CUBE:
            start = max(ts, free[pipe], ready[pipe])
            ts += issue * count
            total = d * count
            free[pipe] = start + total
            end[pipe] = max(end[pipe], start + total + extra)
            busy[pipe] += total
        elif kind == SCALAR:
            ts += d * count
            busy[S] += d * count
        elif kind == REL:
            tokens[x] = ts if pipe == S else max(end[pipe], ready[pipe], ts)
        elif kind == ACQ:
            t = tokens.get(x, 0.0)
            if pipe == S:
                ts = max(ts, t)
            elif t > ready[pipe]:
                ready[pipe] = t
        elif kind == BARRIER:
            if pipe == ALL_PIPES:
                ts = max(ts, max(end), max(ready))
                ready = [ts] * npipes
            else:
                ready[pipe] = max(ready[pipe], end[pipe])
        elif kind == SYNCALL:
            info.phases.append(ts - phase_start)
            phase_start = ts
    info.phases.append(max(ts, max(end)) - phase_start)
    if block.truncated:
        info.notes.append(f"block {block.block}: the trace was truncated; the time covers its recorded part only")
    return info
