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
    for pair in np.unique(r["src"][copies].astype(np.uint16) << 8 | r["dst"][copies]).tolist():
        src, dst = pair >> 8, pair & 0xFF
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


@dataclass
class _Core:
    """The pipe model's state between records: issue point, per-pipe queues, released tokens."""

    busy: list[float]
    free: list[float] = field(default_factory=lambda: [0.0] * len(PIPES))   # when the pipe takes its next instruction
    end: list[float] = field(default_factory=lambda: [0.0] * len(PIPES))    # when its last results are visible
    ready: list[float] = field(default_factory=lambda: [0.0] * len(PIPES))  # waits queued in front of what comes next
    tokens: dict[int, float] = field(default_factory=dict)
    ts: float = 0.0                  # the scalar unit: issue point of the next instruction
    phase_start: float = 0.0
    phases: list[float] = field(default_factory=list)


def _walk(c: _Core, kinds: list, pipes: list, xs: list, counts: list, durs: list, lats: list) -> None:
    """Issues the records in program order (the module's docstring)."""
    free, end, ready, busy, tokens = c.free, c.end, c.ready, c.busy, c.tokens
    ts = c.ts
    issue = float(cal.ISSUE_CYCLES)
    for kind, pipe, x, count, d, extra in zip(kinds, pipes, xs, counts, durs, lats):
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
                ready[:] = [ts] * len(ready)
            else:
                ready[pipe] = max(ready[pipe], end[pipe])
        elif kind == SYNCALL:
            c.phases.append(ts - c.phase_start)
            c.phase_start = ts
    c.ts = ts


def _steady_rows(block: BlockTrace, dur: np.ndarray, lat: np.ndarray) -> tuple[int, int, int] | None:
    """(start, period length, first repeat) of an extended block: from that repeat on, every repeat is what the pipe
    model reads of the last one (kinds, pipes, counts, costs: an L2 hit in some repeats only breaks it); None when
    the block has no period or a SyncAll in it."""
    if block.period is None:
        return None
    start, p = block.period
    r = block.records
    times = (len(r) - start) // p
    if p <= 0 or times < 4 or start + times * p != len(r):
        return None
    cols = [r[f][start:].reshape(times, p) for f in ("kind", "pipe", "count")] + \
           [dur[start:].reshape(times, p), lat[start:].reshape(times, p)]
    if (cols[0][-1] == SYNCALL).any():
        return None
    same = np.logical_and.reduce([(m == m[-1]).all(axis=1) for m in cols])
    first = times - int(np.argmin(same[::-1])) if not same.all() else 0
    return start, p, first


TOKEN_REPEATS = 3      # repeats whose released tokens the steady state is checked on (a queue's FreeTensor token is
                       # acquired BUFFER_NUM tiles later)


def _state(c: _Core, rel_keys: list[int]) -> np.ndarray:
    return np.array([c.ts, *c.free, *c.end, *c.ready, *(c.tokens[x] for x in rel_keys)])


def _steady(before: np.ndarray, prev: np.ndarray, now: np.ndarray) -> np.ndarray | None:
    """Each time's step per repeat once the pipe model is in its steady state (the state is _state's: the issue
    point, the pipes' queues and the tokens of the last TOKEN_REPEATS repeats), or None. The pipe model is a max-plus
    system: every time is a max of earlier times plus costs, and only grows. Steady: the last two repeats moved each
    time by the same step as the one before, and the times fall into classes by step (the pipes that bind, the
    issue point running ahead of them, idle pipes standing still) ordered so that a faster class stays ahead:
    its least time, a repeat ago, was at least a slower class's largest plus that class's step. Then every max
    between classes picks the faster one in every later repeat (the gaps only grow) and times within a class keep
    their differences, so every max picks the same branch as in the last repeat and each further repeat moves every
    time by its step exactly."""
    d = now - prev
    tol = 1e-9 * max(1.0, float(np.abs(now).max()))
    if not np.allclose(d, prev - before, rtol=0, atol=tol) or d.max() <= tol:
        return None
    order = np.argsort(-d, kind="stable")
    cuts = np.flatnonzero(-np.diff(d[order]) > tol) + 1       # the classes: equal steps, fastest first
    classes = np.split(order, cuts)
    for fast, slow in zip(classes, classes[1:]):
        if prev[fast].min() < prev[slow].max() + d[slow].max() - tol:
            return None
    return d


def _checks(times: int) -> list[int]:
    """The repeats after which the steady state is looked for: a few first, then ever further apart (once steady,
    the model stays so)."""
    out, k = [], TOKEN_REPEATS + 1
    while k < times - 1:
        out.append(k)
        k = max(k + 3, int(k * 1.25))        # three repeats walked for each look, none shared
    return out


def _jump(c: _Core, d: np.ndarray, busy: tuple[list[float], list[float]], m: int) -> None:
    """Adds `m` more repeats of step `d` (_steady) to what is read after the last record: the issue point, the
    pipes' ends and busy times."""
    n = len(PIPES)
    c.ts += m * float(d[0])
    c.end[:] = (np.array(c.end) + m * d[1 + n:1 + 2 * n]).tolist()
    c.busy[:] = (np.array(busy[1]) + m * (np.array(busy[1]) - np.array(busy[0]))).tolist()


def run_block(block: BlockTrace, gm_share: float, l2_share: float | None = None) -> BlockTime:
    """Times one block on one core whose share of HBM is `gm_share` bytes per cycle and of L2 `l2_share`
    (reads the block's `gm` field marks as L2 hits, tools/perf/l2.py; default: no faster than HBM). An extended
    block (`period`) is walked until its repeats reach the steady state (_steady), and the rest of its repeats
    are added by their step, not walked: the same times, without a Python step per record of a long extension."""
    dur, lat, info = _costs(block, gm_share, gm_share if l2_share is None else l2_share)
    r = block.records
    c = _Core(busy=info.busy)
    cols = (r["kind"], r["pipe"], r["x"], r["count"], dur, lat)
    rows = _steady_rows(block, dur, lat)
    done = 0
    if rows is not None:
        start, p, first = rows
        times = (len(r) - start) // p
        one = r[start:start + p]
        rel = np.concatenate([np.flatnonzero(one["kind"] == REL) - j * p for j in range(TOKEN_REPEATS)])
        for k in _checks(times):
            if k - 1 < first:         # the last two repeats walked must be what every later one is
                continue
            states, busy = [], []
            for j in (k - 2, k - 1, k):          # walk up to the end of repeat j, keep the state there
                hi = start + (j + 1) * p
                _walk(c, *(a[done:hi].tolist() for a in cols))
                done = hi
                states.append(_state(c, r["x"][hi - p + rel].tolist()))
                busy.append(list(c.busy))
            d = _steady(*states)
            if d is not None:
                _jump(c, d, (busy[1], busy[2]), times - 1 - k)
                done = len(r)
                break
    _walk(c, *(a[done:].tolist() for a in cols))
    info.busy = c.busy
    info.phases = c.phases + [max(c.ts, max(c.end)) - c.phase_start]
    if block.truncated:
        info.notes.append(f"block {block.block}: the trace was truncated; the time covers its recorded part only")
    return info
