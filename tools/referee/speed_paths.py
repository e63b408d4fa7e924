"""Whether the kernel the estimate at the task's shapes timed is the kernel the referee judged.

A kernel is judged at shrunk shapes and estimated at the task's own (speed_shapes.py). A tiling that takes
another path past some size (a row longer than the UB split over blocks with a SyncAll, a team of blocks per
norm group) runs code at the task's shapes that no judged case ran: the estimate is then the speed of an
unverified program. This compares what each ran, instruction by instruction kind: a copy by its path
(GM->UB), a vector or cube instruction by its API name and dtype, a SyncAll or a pipe barrier by itself.
What the task-shape trace ran and no judged trace did is reported with the estimate, and the performance
phase does not keep a variant whose speed comes from such instructions (agent/perf/search.py).

What it cannot see: a different path made of the same kinds of instruction (another loop order, another
tile split) is not told apart, and instructions after a cut trace's prefix (speed_extend.py) are not
compared; both are said where the result is used ("instruction kinds", not "paths")."""
from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from kernelwright.tools.perf.trace import BARRIER, COPY, CUBE, MEMORIES, SYNCALL, VEC, KernelTrace

COMPARED = (COPY, VEC, CUBE, SYNCALL, BARRIER)   # flags, queue tokens and scalar work follow these


def instruction_kinds(trace: KernelTrace) -> set[str]:
    """Every instruction kind the trace's blocks ran, named for a reader ("DataCopy GM->UB", "Add f32"). An extended
    block's repeats are its last period again (speed_extend.py): only the records up to its first repeat are read."""
    kinds: set[str] = set()
    for lt in trace.launches:
        for b in lt.blocks:
            r = b.records if b.period is None else b.records[:sum(b.period)]
            r = r[np.isin(r["kind"], COMPARED)]
            for kind, name, dtype, src, dst in np.unique(r[["kind", "name", "dtype", "src", "dst"]]).tolist():
                kinds.add(_label(kind, _name(b.names, name), _name(b.names, dtype), src, dst))
    return kinds


def _name(names: list[str], i: int) -> str:
    return names[i] if 0 <= i < len(names) else ""


def _label(kind: int, name: str, dtype: str, src: int, dst: int) -> str:
    if kind == SYNCALL:
        return "SyncAll"
    if kind == BARRIER:
        return name or "PipeBarrier"
    if kind == COPY:
        return f"{name or 'copy'} {MEMORIES[src] if src < len(MEMORIES) else src}->" \
               f"{MEMORIES[dst] if dst < len(MEMORIES) else dst}"
    return f"{name or ('vector' if kind == VEC else 'cube')}{' ' + dtype if dtype else ''}"


def judged_kinds(judged: Iterable[KernelTrace | None]) -> set[str]:
    """The instruction kinds any of the judged runs' traces ran (a run without a trace counts for nothing)."""
    return set().union(*(instruction_kinds(t) for t in judged if t is not None))


def unjudged_kinds(at_task: KernelTrace, judged: Iterable[KernelTrace | None]) -> list[str]:
    """The instruction kinds the trace at the task's shapes ran that no judged run's trace did, sorted."""
    return sorted(instruction_kinds(at_task) - judged_kinds(judged))


def unjudged_note(kinds: list[str]) -> str:
    """The verdict's words for them (empty when there are none)."""
    if not kinds:
        return ""
    shown = ", ".join(kinds[:6]) + (f" and {len(kinds) - 6} more" if len(kinds) > 6 else "")
    return (f"the kernel at the task's shapes runs instruction kinds no judged case ran ({shown}): the path it "
            "takes there was not verified, only estimated")
