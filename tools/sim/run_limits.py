"""The sandbox limits of one emulated case: time from the case's timeout, and for a run at the task's own sizes
(sampled blocks, a trace-only speed run) room for its full-size buffer files and its lazily committed GM."""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from kernelwright.tools.buildkit import sandbox
from kernelwright.tools.toolchain import Case


def run_limits(case: Case, manifest: list[str]) -> sandbox.Limits:
    # the case runs as three calls of the operator (runtime/carry.cpp), each limited to the case's time in CPU
    # seconds and to 8 times it on the wall clock (scheduler.cpp)
    limits = sandbox.Limits(wall_s=3 * 8 * case.timeout_s + 10, cpu_s=int(case.timeout_s * 12) + 30)
    if not (case.sample_blocks or case.trace_only):
        return limits
    sizes = [int(ln.split("\t")[2]) for ln in manifest if ln.startswith("buffer\t")]
    # the task's own sizes: each buffer comes back as a (sparse) file of its full size
    limits = replace(limits, file_bytes=max(limits.file_bytes or 0, max(sizes, default=0) + (1 << 20)))
    made = sum(np.asarray(case.inputs[k]).nbytes for k in case.generated)
    if made:   # a generated input is mapped twice (its data and its written-byte marks), committed as touched
        limits = replace(limits, memory_bytes=(limits.memory_bytes or 0) + 2 * made + (1 << 30))
    if case.trace_only:      # GM is mapped for the whole task (twice when sampled: the written-byte maps)
        limits = replace(limits, memory_bytes=(limits.memory_bytes or 0) + 2 * sum(sizes))
    return limits
