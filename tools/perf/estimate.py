"""A kernel's estimated time on a SoC from its instruction trace: every block timed on one core
(tools/perf/pipes.py), blocks spread over the SoC's cores as the block scheduler hands them out,
SyncAll phases ending together, GM bandwidth shared by the cores that are active, and a launch
overhead per launch. Cheap enough to call in a search loop: equal blocks are timed once."""
from __future__ import annotations

from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, Field

from kernelwright.tools.hardware import SocProfile, load_soc
from kernelwright.tools.perf import calibration as cal
from kernelwright.tools.perf import l2
from kernelwright.tools.perf.pipes import BlockTime, run_block
from kernelwright.tools.perf.trace import PIPES, BlockTrace, KernelTrace, LaunchTrace

CALIBRATED_ARCHS = {"dav-c220"}          # Atlas A2/A3 (910B, 910_93): the [mskpp] and [pypto] data are theirs
HBM = "GM"                               # the bottleneck's name when HBM bandwidth binds
HBM_PER_CYCLE = cal.HBM_BYTES_PER_S / (cal.CLOCK_MHZ * 1e6)
WHY_FLOOR = {HBM: "reads and writes share HBM", "L2": "every GM access passes through L2",
             "vector": "the vector cores' work at their peak rate"}
SHARING_GRID = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 40, 48, 64, 96)   # core counts a block is timed at (_Memo.cycles)
ESTIMATE_SOURCE = "estimate: cost model over the emulation's instruction trace (tools/perf), not a measurement"


class PipeUse(BaseModel):
    busy_us: float                       # summed over the launch's blocks
    share: float                         # busy time / block time, over all blocks


class Estimate(BaseModel):
    soc: str
    status: Literal["ok", "partial", "unsupported"] = "ok"
    kernel_us: float | None = None       # device time + one launch overhead per launch
    device_us: float | None = None
    launch_us: float = 0.0
    launches: int = 0
    blocks: int = 0                      # vector-core instances over all launches
    cores: int = 0                       # cores the widest launch kept busy at once
    bound_us: float | None = None        # the SoC's floor for this work: max(GM bytes / bandwidth, vector, cube)
    bound: str = ""                      # which of the three it is
    gm_bytes: int = 0
    l2_bytes: int = 0                    # the part of gm_bytes that hit L2 (re-reads, tools/perf/l2.py)
    pipes: dict[str, PipeUse] = Field(default_factory=dict)
    bottleneck: str = ""                 # the busiest pipe, or "GM" when HBM bandwidth binds
    source: str = ESTIMATE_SOURCE
    notes: list[str] = Field(default_factory=list)


class _Memo:
    """Blocks already timed: most launches repeat one block's trace on every core, so a block is looked
    up by its length and ends and confirmed by comparing records (a memcmp), then timed once per number of
    cores sharing the chip's bandwidth."""

    def __init__(self, soc: SocProfile) -> None:
        self.seen: dict[tuple, list[int]] = {}
        self.blocks: list[BlockTrace] = []
        self.times: dict[tuple[int, int], BlockTime] = {}
        self.interpolated: dict[tuple[int, int, tuple[int, ...]], float] = {}
        self.l2_chip = cal.L2_READ_BYTES_PER_CYCLE * soc.aic_cores

    def canon(self, b: BlockTrace) -> int:
        """The index of the first block equal to `b` (a block marked by tools/perf/l2.py)."""
        r = b.records
        key = (len(r), r[:8].tobytes(), r[-8:].tobytes())
        for i in self.seen.get(key, []):     # stand-ins and equal extended blocks share their records
            other = self.blocks[i]
            if other.names == b.names and (other.records is r or np.array_equal(other.records, r)):
                return i
        self.blocks.append(b)
        self.seen.setdefault(key, []).append(len(self.blocks) - 1)
        return len(self.blocks) - 1

    def time(self, i: int, sharing: int) -> BlockTime:
        """Block `i` on a core that shares HBM and L2 with `sharing` cores."""
        if (i, sharing) not in self.times:
            self.times[(i, sharing)] = run_block(self.blocks[i], HBM_PER_CYCLE / sharing, self.l2_chip / sharing)
        return self.times[(i, sharing)]

    def cycles(self, i: int, sharing: int, grid: tuple[int, ...]) -> float:
        """Block `i`'s cycles with `sharing` cores active, interpolated between the core counts of `grid`
        (sorted, ending with the launch's slots; the time is convex in the core count: every copy's duration
        grows linearly with it past the core's own peak, and sums and maxima of such are convex; so the chord
        is never below the curve)."""
        key = (i, sharing, grid)
        if key not in self.interpolated:
            hi = next(g for g in grid if g >= sharing)
            lo = max((g for g in grid if g < sharing), default=hi)
            a, b = self.time(i, lo).cycles, self.time(i, hi).cycles
            self.interpolated[key] = b if hi == lo or hi == sharing else a + (b - a) * (sharing - lo) / (hi - lo)
        return self.interpolated[key]


def _slots(lt: LaunchTrace, soc: SocProfile) -> int:
    """Instances of this launch that can run at once."""
    if lt.ratio > 1:                     # MIX: one AIC and `ratio` AIV cores per block
        return min(lt.block_dim, soc.aic_cores) * lt.ratio
    return soc.aiv_cores if soc.split_arch else soc.aic_cores


def _phased(times: list[BlockTime]) -> float:
    """SyncAll: every block runs at once and each phase ends with the slowest block."""
    n = max(len(t.phases) for t in times)
    per_phase = [max(t.phases[i] if i < len(t.phases) else 0.0 for t in times) for i in range(n)]
    return sum(per_phase) + (n - 1) * cal.SYNCALL_CYCLES


def _fluid(ids: list[int], slots: int, memo: _Memo) -> float:
    """Cycles until the last block ends: blocks handed in order to the first free core; at any time the
    running blocks share HBM and L2 evenly (each capped by its own copy path's peak, pipes.py), and the
    shares are split again whenever a block ends, so the cores still running take over the bandwidth of
    those that finished (a fluid, processor-sharing schedule). A block's progress rate is the inverse of its
    time at the current number of sharers."""
    pending = list(reversed(range(len(ids))))
    # the core counts blocks are timed at: the grid, the launch's slots and its first count (timed exactly)
    grid = tuple(sorted({g for g in SHARING_GRID if g < slots} | {slots, min(slots, len(ids))}))
    left: dict[int, float] = {}          # running block -> share of its work still to do
    now = 0.0
    while pending or left:
        while pending and len(left) < slots:
            left[pending.pop()] = 1.0
        k = len(left)
        rate = {j: 1.0 / max(memo.cycles(ids[j], k, grid), 1e-12) for j in left}
        step = min(left[j] / rate[j] for j in left)
        now += step
        for j in list(left):
            left[j] -= step * rate[j]
            if left[j] <= 1e-9:
                del left[j]
    return now


def stand_in(group: int, traced: list[int]) -> int:
    """The traced block whose time an untraced block of a sampled launch takes: the nearest one (the earlier
    on a tie). Blocks between two traced blocks that differ are split at the midpoint: a tiling that gives the
    first r blocks one unit more (AscendC's former/tail split) or a short last block puts up to half of that
    gap on the wrong side. The slowest kind of block is traced in both, so the schedule's end barely moves;
    the bytes and work summed over blocks (and the floors made of them) can be off by that share."""
    return min(traced, key=lambda g: (abs(g - group), g))


def _instances(lt: LaunchTrace) -> tuple[list[BlockTrace], list[str]]:
    """Every instance of the launch: a sampled launch's untraced blocks stand in by a traced one (stand_in)."""
    if not lt.sampled:
        return lt.blocks, []
    by_group: dict[int, list[BlockTrace]] = {}
    for b in lt.blocks:
        by_group.setdefault(b.block // lt.ratio, []).append(b)
    traced = sorted(by_group)
    if not traced:
        return [], []
    out = [b for g in range(lt.block_dim) for b in by_group[g if g in by_group else stand_in(g, traced)]]
    missing = lt.block_dim - len(traced)
    notes = [f"{len(traced)} of {lt.block_dim} blocks traced (blocks {', '.join(map(str, traced))}); each of the other "
             f"{missing} is timed as the nearest traced block"] if missing > 0 else []
    return out, notes


def _launch(lt: LaunchTrace, soc: SocProfile, memo: _Memo) -> tuple[float, list[BlockTime], int, list[str]]:
    slots = _slots(lt, soc)
    blocks, notes = _instances(lt)
    active = max(1, min(len(blocks), slots))
    marked: dict[int, tuple[int, int]] = {}   # id of a block trace -> (its marked block's index, L2 hits)
    for b in blocks:                          # stand-ins share one BlockTrace: marked and compared once
        if id(b) not in marked:
            m, n = l2.mark(b, active, soc.l2_bytes)
            marked[id(b)] = (memo.canon(m), n)
    ids = [marked[id(b)][0] for b in blocks]
    times = [memo.time(i, active) for i in ids]       # what each block moved and kept busy (at the widest sharing)
    for t in times:
        notes += t.notes
    if any(len(t.phases) > 1 for t in times):
        if len(blocks) > slots:
            notes.append(f"SyncAll with {len(blocks)} instances on {slots} cores: timed as if all ran at once")
        return _phased(times), times, active, notes
    return _fluid(ids, slots, memo), times, active, notes


def estimate(trace: KernelTrace, soc: SocProfile | str | None = None) -> Estimate:
    """The estimated time of a traced kernel on `soc` (default: the default SoC)."""
    prof = soc if isinstance(soc, SocProfile) else load_soc(soc)
    est = Estimate(soc=prof.name)
    if prof.npu_arch not in CALIBRATED_ARCHS:
        est.status = "unsupported"
        est.notes.append(f"no calibrated cost model for {prof.name} ({prof.npu_arch}); the model covers "
                         f"{', '.join(sorted(CALIBRATED_ARCHS))} (Atlas A2/A3)")
        return est
    if not trace.launches:
        est.status = "unsupported"
        est.notes.append("the run recorded no instruction trace")
        return est
    us = 1.0 / cal.CLOCK_MHZ
    memo = _Memo(prof)
    device = 0.0
    busy = [0.0] * len(PIPES)
    block_cycles = 0.0
    floors = {HBM: 0.0, "L2": 0.0, "vector": 0.0, "cube": 0.0}
    for i, lt in enumerate(trace.launches):
        cycles, times, active, notes = _launch(lt, prof, memo)
        est.notes += notes
        gm, hit = sum(t.gm_bytes for t in times), sum(t.l2_bytes for t in times)
        # HBM moves what missed L2; every GM access passes through L2
        floor = {HBM: (gm - hit) / HBM_PER_CYCLE, "L2": gm / memo.l2_chip, "vector": sum(t.vector_floor for t in times) / prof.aiv_cores,
                 "cube": sum(t.cube_floor for t in times) / prof.aic_cores}
        for k, v in floor.items():
            floors[k] += v
        if cycles < max(floor.values()):
            which = max(floor, key=floor.get)  # type: ignore[arg-type]
            est.notes.append(f"launch {i}: the {which} floor binds (the cores' own schedule was shorter: "
                             f"{WHY_FLOOR.get(which, 'the AIV pair shares one cube')})")
            cycles = max(floor.values())
        device += cycles
        est.gm_bytes += gm
        est.l2_bytes += hit
        est.blocks += len(times)
        est.cores = max(est.cores, active)
        for t in times:
            block_cycles += t.cycles
            for p, c in enumerate(t.busy):
                busy[p] += c
    est.launches = len(trace.launches)
    est.device_us = device * us
    est.launch_us = cal.LAUNCH_US * est.launches
    est.kernel_us = est.device_us + est.launch_us
    est.bound = max(floors, key=floors.get)  # type: ignore[arg-type]
    est.bound_us = floors[est.bound] * us
    est.pipes = {PIPES[p]: PipeUse(busy_us=busy[p] * us, share=busy[p] / block_cycles if block_cycles else 0.0)
                 for p in range(len(PIPES)) if busy[p] > 0}
    top = max(est.pipes, key=lambda p: est.pipes[p].share) if est.pipes else ""
    est.bottleneck = HBM if floors[HBM] >= device * 0.999 and floors[HBM] > 0 else top
    if est.l2_bytes:
        est.notes.append(f"L2: {est.l2_bytes / 2**20:.1f} MiB of the {est.gm_bytes / 2**20:.1f} MiB of GM traffic are "
                         f"re-reads that fit in the {prof.l2_bytes >> 20} MiB L2 (tools/perf/l2.py), moved at its rate")
    est.notes = list(dict.fromkeys(est.notes))        # equal blocks repeat their notes
    if not trace.complete:
        est.status = "partial"
        est.notes.append("some blocks left no complete trace: the estimate covers what was recorded")
    return est


def estimate_run(run: Any, soc: SocProfile | str | None = None) -> Estimate:
    """The estimate of a finished run (a toolchain's RunResult): what a search over tiling knobs calls
    after each candidate's emulated run. Unsupported when the run failed or recorded no trace."""
    if getattr(run, "status", None) != "ok" or getattr(run, "trace", None) is None:
        prof = soc if isinstance(soc, SocProfile) else load_soc(soc)
        return Estimate(soc=prof.name, status="unsupported",
                        notes=[f"no instruction trace to estimate (run status: {getattr(run, 'status', '?')})"])
    return estimate(run.trace, soc)

