"""A trace-only run's blocks cut short, extended by their steady state (the cheap estimate at the task's shapes).

A block of a tiled kernel is a prologue, then one tile after another, then an epilogue. Emulating every tile of a
multi-GB task costs seconds to minutes; the cost model only needs the instruction stream. So the trace-only run
stops each traced block once its copies to or from GM have moved a budget of bytes (runtime/state.cpp
`trace_budget`), and here each cut block gets the rest of its tiles back: the shortest period its records end with,
repeated at least MIN_REPEATS times and over at least COVERED of the prefix (records equal in kind, pipe, memories,
name, dtype, count, sizes and strides, sync tokens shifted by one step; the span rule keeps an inner loop, such as
the last pass over a row, from standing for the outer one), is appended until the block has written its share of the task's outputs: the
task's output bytes times the GM bytes the kernel wrote per output byte at the shrunk shapes that judged it, split
evenly over the launch's blocks (a kernel whose tiles write nothing is counted by what it reads, per input byte).

What this can get wrong (the estimate's `method` says it was extended): the epilogue after the last tile (a final
partial tile, a last combine) is not in the stream; a former/tail split gives some blocks one tile more or less
than the even share; the tiles' GM alignment (`w`) repeats the prefix's; a kernel that writes each output byte a
different number of times at the task's shapes than at the shrunk ones (a row written, read back and written again
once it no longer fits UB) would be extended by the wrong count. That last one is checked: the runtime counts the
output pages a cut block's copies wrote, and a block whose GM bytes written per output byte touched differ from the
shrunk run's by more than REWRITE_TOLERANCE is not extended (a count by read bytes has no such check: extra read
passes at the task's shapes go unseen there). A block with SyncAlls is extended in its last phase only, after its
last SyncAll (the phases before it ran whole), and only when its prefix holds as many SyncAlls as every block made
at the shrunk shapes (a cut in an earlier phase would extend that phase's pattern: only a first phase is, when the
phases after it moved under LATER_PHASES of a block's GM bytes there, and left out), or more when the shrunk shapes
took a path with fewer and the last phase's period writes the task's outputs (the phase whose bytes the count goes
by; a phase after it, such as a fix-up of the outputs after one more SyncAll, would be missed). Nor is a cut block
extended that repeats no period MIN_REPEATS times, whose period moves no GM bytes, or whose period writes nothing
though the kernel writes (a cut inside a row's first, reading pass): the referee then traces the blocks longer,
then whole (speed_shapes.py). The extended block says where its repeats start (BlockTrace.period): the pipe model
times them once steady (tools/perf/pipes.py)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kernelwright.tools.perf.trace import (ACQ, COPY, GM_KNOWN, GM_SECTOR, MEMORIES, REL, SYNCALL, BlockTrace,
                                            KernelTrace)

MIN_REPEATS = 3                  # a period counts as the steady state when the prefix ends with this many repeats
COVERED = 0.5                    # ... and they span at least this share of the prefix's records
MAX_RECORDS = 2 << 20            # the emulator's own cap on a block's records (runtime/trace.cpp kMaxRecords)
REWRITE_TOLERANCE = 0.25         # GM bytes written per output byte: the task's shapes against the shrunk ones
MIN_TOUCHED = 64 << 10           # output bytes a cut block must have touched for that check (whole pages counted)
WRITES_SEEN = 0.01               # a period without GM writes stands for a kernel writing under this share of its reads
LATER_PHASES = 0.01              # GM share of the phases after a block's first SyncAll at the shrunk shapes that a cut
                                 # before them may leave out (a last combine of partial results)
MAX_CANDIDATES = 256             # period lengths tried per block (distances back to the last record's equals)
GM = MEMORIES.index("GM")
_SHAPE = ("kind", "pipe", "src", "dst", "name", "dtype", "count", "y", "z")   # compared as is; `x` too, but not for tokens


@dataclass
class Traffic:
    """GM bytes per byte of the task's outputs (inputs) at the shrunk shapes, and those bytes at the task's shapes."""

    written_per_output: float
    read_per_input: float
    output_bytes: int
    input_bytes: int
    syncalls: int | None = None      # SyncAlls every block made at the shrunk shapes (None: blocks differed)
    later: float = 1.0               # the largest share of a block's GM bytes moved after its first SyncAll there


def _gm(records: np.ndarray) -> tuple[int, int]:
    """(bytes read from GM, bytes written to GM) by the records' copies."""
    copies = records[records["kind"] == COPY]
    moved = copies["y"].astype("u8") * copies["count"]
    return int(moved[copies["src"] == GM].sum()), int(moved[copies["dst"] == GM].sum())


def gm_traffic(trace: KernelTrace) -> tuple[int, int]:
    """(bytes read from GM, bytes written to GM) over every block of every launch."""
    read = written = 0
    for lt in trace.launches:
        for b in lt.blocks:
            r, w = _gm(b.records)
            read, written = read + r, written + w
    return read, written


def later_share(records: np.ndarray) -> float:
    """The share of a block's GM bytes moved after its first SyncAll (0 without one)."""
    syncs = np.flatnonzero(records["kind"] == SYNCALL)
    total = sum(_gm(records))
    return sum(_gm(records[syncs[0]:])) / total if len(syncs) and total else 0.0


def _codes(r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One integer per record for its shape (the _SHAPE fields, and `x` unless it is a sync token), and the sync mask."""
    sync = (r["kind"] == REL) | (r["kind"] == ACQ)
    keyed = np.empty(len(r), dtype=[(f, r.dtype[f]) for f in _SHAPE] + [("x", r.dtype["x"])])
    for f in _SHAPE:
        keyed[f] = r[f]
    keyed["x"] = np.where(sync, 0, r["x"])
    return np.unique(keyed, return_inverse=True)[1].ravel(), sync


def _period(r: np.ndarray) -> tuple[int, int] | None:
    """(period length P, token step) of the shortest period the records end with at least MIN_REPEATS times that
    also spans at least COVERED of them: the steady state of the whole block, not of an inner loop that is only
    part of each repeat (a row's last pass: the passes before it would be left out of the extension)."""
    n = len(r)
    if n < MIN_REPEATS:
        return None
    codes, sync = _codes(r)
    x = r["x"].astype("i8")
    for j in np.flatnonzero(codes[:-1] == codes[-1])[::-1][:MAX_CANDIDATES]:
        p = n - 1 - int(j)
        if p * MIN_REPEATS > n:
            break
        same = codes[p:] == codes[:-p]          # record i + p repeats record i
        steps = (x[p:] - x[:-p])[sync[p:]]
        step = int(steps[-1]) if len(steps) else 0
        same[sync[p:]] &= steps == step
        run = len(same) - (int(np.flatnonzero(~same)[-1]) + 1 if not same.all() else 0)   # trailing repeats
        if run + p >= max(MIN_REPEATS * p, COVERED * n):
            return p, step
    return None


def _rewrites(b: BlockTrace, share: Traffic) -> str:
    """Why the count by written bytes would be wrong: the block writes each output byte a different number of times
    at the task's shapes than the kernel did at the shrunk shapes (a row written, read back and written again once
    it no longer fits UB); empty when it agrees within REWRITE_TOLERANCE or cannot be told."""
    touched = b.cut_out_bytes or 0
    _, written = _gm(b.records)
    if touched < MIN_TOUCHED or not written or not share.written_per_output:
        return ""
    here = written / touched
    if abs(here / share.written_per_output - 1) <= REWRITE_TOLERANCE:
        return ""
    return (f"it wrote {here:.2f} GM bytes per output byte it touched, {share.written_per_output:.2f} at the shrunk "
            "shapes (the count by written bytes would be off)")


def _advanced(r: np.ndarray, end: int, p: int, times: int) -> np.ndarray:
    """The repeats' GM sectors (trace.py `gm`): each copy's address advances by what it advanced over the last
    period (a tile's stride; 0 for a weight read again every tile), so tools/perf/l2.py sees new bytes, not the
    prefix's read again. A copy whose address is unknown in either of the last two periods stays unknown."""
    if end < 2 * p:
        return np.zeros(times * p, dtype="u4")
    last, prev = r["gm"][end - p:end].astype("i8"), r["gm"][end - 2 * p:end - p].astype("i8")
    known = np.tile((last & prev & GM_KNOWN).astype(bool), times)
    sector, step = last & GM_SECTOR, (last & GM_SECTOR) - (prev & GM_SECTOR)
    k = np.repeat(np.arange(1, times + 1, dtype="i8"), p)
    moved = (np.tile(sector, times) + k * np.tile(step, times)) % (GM_SECTOR + 1) | GM_KNOWN
    return np.where(known, moved, 0).astype("u4")


def _extend(b: BlockTrace, share: Traffic, blocks: int) -> tuple[BlockTrace, str] | str:
    """The block with its steady state repeated up to its share, and how; or why it cannot be extended."""
    r = b.records
    syncs = np.flatnonzero(r["kind"] == SYNCALL)
    more_phases = share.syncalls is not None and len(syncs) > share.syncalls
    left_out = share.syncalls is not None and not len(syncs) and share.later <= LATER_PHASES
    if (len(syncs) or share.syncalls) and len(syncs) != share.syncalls and not (more_phases or left_out):
        return (f"its prefix holds {len(syncs)} SyncAll(s), every block made "
                f"{'a varying number' if share.syncalls is None else share.syncalls} at the shrunk shapes (only the "
                f"last phase is extended, or a first one when the later ones moved under {LATER_PHASES:.0%} of a "
                "block's GM bytes there)")
    if more_phases and len(syncs) > share.syncalls + 1:
        # a SyncAll per round (rows over all blocks a few at a time, re-read while in L2): the prefix's last
        # phase is one round's output pass, not the rest of the block; its repeats would drop every later
        # round's reading pass and the L2 hits between them (layer norm by rounds: 0.766x extended, 0.872x whole)
        return (f"its prefix holds {len(syncs)} SyncAlls, {share.syncalls} at the shrunk shapes: phases recur "
                "(rounds), so its last phase is not the rest of the block")
    # past the block's last SyncAll: the steady state of its last phase (the phases before it ran whole)
    found = _period(r[syncs[-1] + 1:] if len(syncs) else r)
    if found is None:
        return f"no period repeats {MIN_REPEATS} times over at least {COVERED:.0%} of its {len(r)} records"
    p, step = found
    read, written = _gm(r[len(r) - p:])
    if more_phases and not (written and (b.cut_out_bytes or 0) >= MIN_TOUCHED):
        # more SyncAlls than at the shrunk shapes (the kernel took another path there): the phase extended must be
        # the one writing the task's outputs, so that the count by written bytes and the rewrite check hold
        return (f"its prefix holds {len(syncs)} SyncAll(s), {share.syncalls} at the shrunk shapes, and its last "
                "phase's period does not write the task's outputs")
    if not (read or written):
        return f"its period of {p} records moves no GM bytes"
    must_write = share.written_per_output * share.output_bytes
    if not written and must_write > WRITES_SEEN * share.read_per_input * share.input_bytes:
        # a reading pass (a row's max before its normalising pass) is no steady state of a kernel that writes
        return f"its period of {p} records writes nothing, though the kernel writes {must_write} GM bytes"
    # the extension starts right after the copy of the measured kind that ends the period's longest stretch without
    # one (a row's last write, before the next row's reading pass), so the block ends with its last row's last copy
    k = r["kind"] == COPY
    k &= (r["dst"] == GM) if written else (r["src"] == GM)
    at = np.flatnonzero(k[len(r) - p:])
    gaps = np.diff(np.append(at, at[0] + p))
    end = int(at[len(gaps) - 1 - int(np.argmax(gaps[::-1]))]) + len(r) - p + 1
    head, period = r[:end], r[end - p:end]
    done_read, done_written = _gm(head)
    mismatch = _rewrites(b, share)
    if mismatch:
        return mismatch
    if written:
        left, per, what = share.written_per_output * share.output_bytes / blocks - done_written, written, "written"
    else:
        left, per, what = share.read_per_input * share.input_bytes / blocks - done_read, read, "read"
    times = max(0, round(left / per))
    if len(head) + times * p > MAX_RECORDS:
        return f"{len(head)} records + {times} x {p} would pass {MAX_RECORDS} records"
    out = np.empty(len(head) + times * p, dtype=r.dtype)
    out[:len(head)] = head
    if times:
        tail = np.tile(period, times)
        sync = (tail["kind"] == REL) | (tail["kind"] == ACQ)
        shift = np.repeat(np.arange(1, times + 1, dtype="u8") * step, p)
        tail["x"][sync] = (tail["x"][sync].astype("u8") + shift[sync]).astype(tail["x"].dtype)
        tail["gm"] = _advanced(r, end, p, times)
        out[len(head):] = tail
    how = f"{len(head)} records, then {times} more periods of {p} ({per} GM bytes {what} each)"
    if left_out and share.syncalls:
        how += (f", the phases after its {share.syncalls} SyncAll(s) left out ({100 * share.later:.2g} % of a block's "
                "GM bytes at the shrunk shapes)")
    return BlockTrace(block=b.block, records=out, names=b.names, truncated=b.truncated,
                      period=(len(head), p) if times else None), how


def extend_cut(trace: KernelTrace, share: Traffic) -> tuple[KernelTrace, str] | str:
    """The trace with every cut block extended (module docstring) and a line saying how, or why it cannot be."""
    out, hows = KernelTrace(), {}
    for i, lt in enumerate(trace.launches):
        blocks = []
        for b in lt.blocks:
            if not b.cut:
                blocks.append(b)
                continue
            got = _extend(b, share, lt.block_dim * lt.ratio)
            if isinstance(got, str):
                return f"launch {i} block {b.block}: {got}"
            ext, how = got
            same = next((o for o in blocks if len(o.records) == len(ext.records)
                         and np.array_equal(o.records, ext.records)), None)
            if same is not None:        # one array for equal blocks: the cost model's memo then compares none of them
                ext.records = same.records
            blocks.append(ext)
            hows.setdefault(how, []).append(str(b.block))
        out.launches.append(type(lt)(block_dim=lt.block_dim, ratio=lt.ratio, blocks=blocks, sampled=list(lt.sampled)))
    return out, "; ".join(f"block{'s' if len(b) > 1 else ''} {', '.join(b)}: {how}" for how, b in hows.items())
