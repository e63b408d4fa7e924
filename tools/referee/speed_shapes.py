"""The kernel's instruction trace at the task's own shapes, for a speed estimate a kernel engineer can use
("is it faster at MY shape?"), when the case was judged at shrunk shapes. At shrunk shapes every kernel is a
few microseconds of device time under a 19 us launch, so kernel and eager tie whatever the kernel does.

How: once the kernel has passed, it runs once more at the task's own shapes in a trace-only mode: the host
TilingFunc sees the real shapes, the kernel runs the first, the middle and the last of its blocks
(sim/run.py `sample_of`) on GM sized for the task and lazily committed (runtime/sample.cpp), with zeros for
data (nothing is compared, no input is materialised), and the cost model times the blocks that ran; every
other block takes the time of the nearest traced block (tools/perf/estimate.py `stand_in`, which says what
that gets wrong). Nothing here judges the kernel.

What it can get wrong, said in the report: a block whose work depends on the data (zeros take the same path
as every value for the builtin writer's programs, not for data-dependent loops); untraced blocks that differ
from their stand-in (a former/tail split: the reduce tasks' 128 rows on 48 cores count 132); a kernel whose blocks wait for each
other (SyncAll) cannot run on a sample and keeps the shrunk-shape estimate."""
from __future__ import annotations

import math

import numpy as np

from kernelwright.tools.dtypes import numpy_dtype
from kernelwright.tools.perf.estimate import CALIBRATED_ARCHS
from kernelwright.tools.referee.case_runner import Setting, bind
from kernelwright.tools.referee.speed import FullShapes, RanCase
from kernelwright.tools.tasks.reference import RefFailure, RefRun, RefValue

TRACE_BLOCKS = 3               # blocks a trace-only run emulates: the first, the middle and the last
TRACE_TIMEOUT_S = 20.0         # the emulator's CPU seconds for them (the run's time limit, runtime/scheduler.cpp)
TRACE_GM_BYTES = 16 << 30      # GM the task's own tensors may map (lazily committed: only the traced blocks' pages)


def _placeholder(v: RefValue) -> RefValue:
    """The value with a zero-stride array of its shape for data (no memory behind it)."""
    out = v.model_copy()
    if v.kind == "tensor" and v.shape is not None and v.dtype:
        out.array = np.broadcast_to(np.zeros((), numpy_dtype(v.dtype)), tuple(v.shape))
    out.items = [_placeholder(i) for i in v.items]
    return out


def _bytes(values: list[RefValue]) -> int:
    return sum(math.prod(t.shape or [1]) * numpy_dtype(t.dtype or "float32").itemsize
               for v in values for t in v.tensors() if t.shape is not None)


def trace_at_task_shapes(s: Setting, first: RanCase) -> FullShapes:
    """The passing kernel's trace at the task's own shapes (see the module's docstring)."""
    if not first.mapping:
        return FullShapes(first.result, "ran at the task's own shapes" + (
            f" on sampled blocks {', '.join(map(str, first.result.sampled))}" if first.result.sampled else ""))
    if s.soc.npu_arch not in CALIBRATED_ARCHS:
        return FullShapes(why_not=f"no calibrated cost model for {s.soc.name}: nothing to estimate at any shapes")
    if s.model_new or s.native:
        return FullShapes(why_not="an answer judged through its ModelNew has no trace-only run at the task's shapes")
    shapes = s.worker.describe(first.case)
    if isinstance(shapes, RefFailure):
        return FullShapes(why_not=f"the task's shapes could not be described without data: {shapes.render()[:200]}")
    if shapes.outputs is None:
        return FullShapes(why_not=f"the reference's outputs could not be described without data "
                                  f"({(shapes.outputs_error or '')[:200]})")
    total = _bytes(shapes.args + shapes.params + shapes.outputs)
    if total > TRACE_GM_BYTES:
        return FullShapes(why_not=f"the task's tensors take {total / 2**30:.1f} GiB, past the trace-only run's "
                                  f"{TRACE_GM_BYTES >> 30} GiB")
    ref = RefRun(args=[_placeholder(v) for v in shapes.args], init=[_placeholder(v) for v in shapes.init],
                 params=[_placeholder(v) for v in shapes.params], outputs=[_placeholder(v) for v in shapes.outputs])
    bound, _ = bind(s, ref)
    if bound.case is None:
        return FullShapes(why_not=f"the task's shapes could not be bound: {bound.problem or 'no case'}")
    case = bound.case.model_copy(update={"soc": s.soc.name, "timeout_s": TRACE_TIMEOUT_S, "trace_only": True,
                                         "sample_blocks": TRACE_BLOCKS, "label": f"{first.label} (trace only)"})
    r = s.toolchain.run(s.build, case)
    if r.trace is None or not r.trace.complete:
        what = r.detail or "; ".join(d.render() for d in r.errors()[:2]) or r.status
        return FullShapes(why_not=f"the trace-only run at the task's shapes left no complete trace ({r.status}: "
                                  f"{what[:300]})")
    blocks = r.sampled or list(range(r.block_dim))
    method = (f"traced at the task's own shapes in a trace-only run of blocks {', '.join(map(str, blocks))} of "
              f"{r.block_dim}" + ("" if r.sampled else " (every block)"))
    notes = [f"the trace-only run took {r.seconds:.1f} s"]
    if r.status != "ok":
        notes.append(f"the trace-only run ended with {r.status} on zero data: {(r.detail or '')[:160]}")
    return FullShapes(r, method, notes=notes, min_bytes=total)
