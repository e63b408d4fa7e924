"""Which GM reads of a block hit the chip's L2 cache. A kernel whose rows do not fit in UB reads each row
twice (softmax's max, then its exponentials); on the chip the second read of a row a core touched
microseconds earlier comes from L2 when everything touched in between still fits there.

The rule (conservative on purpose; tools/perf/README.md says what it gets wrong):
  * a GM read is a hit only when the same block touched the same bytes before (a copy from or to the same
    first GM sector with the same byte count: the emulator records each copy's GM address), and the bytes
    the block moved from that touch to the end of this read, times the cores running at once, fit in L2
    (every core is assumed to stream as much as this one in that time, so the working set is theirs too);
  * writes and first reads go to HBM; a read of what another block touched is a miss;
  * a merged record of several copies (identical consecutive copies, `count` > 1) knows only its first
    copy's address: it never hits.
Hits move at the L2's rate shared by the active cores (calibration.L2_READ_BYTES_PER_CYCLE) instead of HBM's."""
from __future__ import annotations

import numpy as np

from kernelwright.tools.perf.calibration import GM_SECTOR
from kernelwright.tools.perf.trace import COPY, MEMORIES, BlockTrace

GM = MEMORIES.index("GM")
L2_HIT = 1                         # the `gm` field of a marked block: this read hits L2 (addresses have bit 31 set)


def hits(block: BlockTrace, active: int, l2_bytes: int) -> np.ndarray:
    """Per record of the block: True for a GM read that hits L2 with `active` cores streaming at once."""
    r = block.records
    out = np.zeros(len(r), dtype=bool)
    copies = np.nonzero(r["kind"] == COPY)[0]
    side = copies[(r["src"][copies] == GM) | (r["dst"][copies] == GM)]
    if len(side) == 0 or l2_bytes <= 0:
        return out
    y = r["y"][side].astype(np.float64)
    moved = np.cumsum(y * r["count"][side])
    first_end = moved - y * (r["count"][side] - 1.0)         # bytes moved by the end of each record's first copy
    known = np.nonzero(r["gm"][side] != 0)[0]
    if len(known) < 2:
        return out
    sector, size = r["gm"][side][known], r["y"][side][known]
    order = np.lexsort((known, size, sector))
    same = (sector[order][1:] == sector[order][:-1]) & (size[order][1:] == size[order][:-1])
    now, before = known[order[1:][same]], known[order[:-1][same]]
    reads = (r["src"][side][now] == GM) & (r["count"][side][now] == 1)
    fits = (first_end[now] - first_end[before]) * max(active, 1) <= l2_bytes
    out[side[now[reads & fits]]] = True
    return out


def mark(block: BlockTrace, active: int, l2_bytes: int) -> tuple[BlockTrace, int]:
    """The block with each copy's `gm` field replaced by L2_HIT or 0 and `w` by its misalignment to a GM sector
    (what the pipe model reads: blocks that differ only in their addresses become equal, so they are timed
    once), and how many reads hit."""
    hit = hits(block, active, l2_bytes)
    r = block.records.copy()
    r["gm"] = np.where(hit, L2_HIT, 0)
    r["w"] %= GM_SECTOR            # only a burst's misalignment costs (pipes.py): blocks at other offsets are equal
    return BlockTrace(block=block.block, records=r, names=block.names, truncated=block.truncated,
                      period=block.period), int(hit.sum())
