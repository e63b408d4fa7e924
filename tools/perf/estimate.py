"""A kernel's estimated time on a SoC from its instruction trace: every block timed on one core
(tools/perf/pipes.py), blocks spread over the SoC's cores as the block scheduler hands them out,
SyncAll phases ending together, GM bandwidth shared by the cores that are active, and a launch
overhead per launch. Cheap enough to call in a search loop: equal blocks are timed once."""
from __future__ import annotations

import heapq
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, Field

from kernelwright.tools.hardware import SocProfile, load_soc
from kernelwright.tools.perf import calibration as cal
from kernelwright.tools.perf.pipes import BlockTime, run_block
from kernelwright.tools.perf.trace import PIPES, BlockTrace, KernelTrace, LaunchTrace

CALIBRATED_ARCHS = {"dav-c220"}          # Atlas A2/A3 (910B, 910_93): the [mskpp] and [pypto] data are theirs
HBM = "GM"                               # the bottleneck's name when HBM bandwidth binds
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
    pipes: dict[str, PipeUse] = Field(default_factory=dict)
    bottleneck: str = ""                 # the busiest pipe, or "GM" when HBM bandwidth binds
    source: str = ESTIMATE_SOURCE
    notes: list[str] = Field(default_factory=list)


class _Memo:
    """Blocks already timed: most launches repeat one block's trace on every core, so a block is looked
    up by its length and ends and confirmed by comparing records (a memcmp), not timed again."""

    def __init__(self) -> None:
        self.seen: dict[tuple, list[tuple[BlockTrace, BlockTime]]] = {}

    def time(self, b: BlockTrace, share: float, active: int) -> BlockTime:
        r = b.records
        key = (len(r), r[:8].tobytes(), r[-8:].tobytes(), active)
        for other, t in self.seen.get(key, []):   # stand-ins and equal extended blocks share their records
            if other.names == b.names and (other.records is r or np.array_equal(other.records, r)):
                return t
        t = run_block(b, share)
        self.seen.setdefault(key, []).append((b, t))
        return t


def _slots(lt: LaunchTrace, soc: SocProfile) -> int:
    """Instances of this launch that can run at once."""
    if lt.ratio > 1:                     # MIX: one AIC and `ratio` AIV cores per block
        return min(lt.block_dim, soc.aic_cores) * lt.ratio
    return soc.aiv_cores if soc.split_arch else soc.aic_cores


def _schedule(times: list[BlockTime], slots: int) -> float:
    """Cycles until the last block ends, blocks handed in order to the first free core."""
    phased = any(len(t.phases) > 1 for t in times)
    if phased:                           # SyncAll: every block runs at once and each phase ends together
        n = max(len(t.phases) for t in times)
        per_phase = [max(t.phases[i] if i < len(t.phases) else 0.0 for t in times) for i in range(n)]
        return sum(per_phase) + (n - 1) * cal.SYNCALL_CYCLES
    cores = [0.0] * min(slots, len(times))
    heapq.heapify(cores)
    for t in times:
        heapq.heappush(cores, heapq.heappop(cores) + t.cycles)
    return max(cores, default=0.0)


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
    share = cal.HBM_BYTES_PER_S / (cal.CLOCK_MHZ * 1e6) / active
    times = []
    for b in blocks:
        times.append(memo.time(b, share, active))
        notes += times[-1].notes
    if any(len(t.phases) > 1 for t in times) and len(blocks) > slots:
        notes.append(f"SyncAll with {len(blocks)} instances on {slots} cores: timed as if all ran at once")
    return _schedule(times, slots), times, active, notes


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
    hbm_per_cycle = cal.HBM_BYTES_PER_S / (cal.CLOCK_MHZ * 1e6)
    memo = _Memo()
    device = 0.0
    busy = [0.0] * len(PIPES)
    block_cycles = 0.0
    floors = {"GM": 0.0, "vector": 0.0, "cube": 0.0}
    for i, lt in enumerate(trace.launches):
        cycles, times, active, notes = _launch(lt, prof, memo)
        est.notes += notes
        gm = sum(t.gm_bytes for t in times)
        floor = {HBM: gm / hbm_per_cycle, "vector": sum(t.vector_floor for t in times) / prof.aiv_cores,
                 "cube": sum(t.cube_floor for t in times) / prof.aic_cores}
        for k, v in floor.items():
            floors[k] += v
        if cycles < max(floor.values()):
            which = max(floor, key=floor.get)  # type: ignore[arg-type]
            est.notes.append(f"launch {i}: the {which} floor binds (the cores' own schedule was shorter: "
                             f"{'reads and writes share HBM' if which == HBM else 'the AIV pair shares one cube'})")
            cycles = max(floor.values())
        device += cycles
        est.gm_bytes += gm
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

