"""The kernel's instruction trace at the task's own shapes, for a speed estimate a kernel engineer can use
("is it faster at MY shape?"), when the case was judged at shrunk shapes. At shrunk shapes every kernel is a
few microseconds of device time under a 19 us launch, so kernel and eager tie whatever the kernel does.

How: once the kernel has passed, it runs once more at the task's own shapes in a trace-only mode: the host
TilingFunc sees the real shapes, the kernel runs the first, the middle and the last of its blocks
(sim/run.py `sample_of`) on GM sized for the task and lazily committed (runtime/sample.cpp), with zeros for
data (nothing is compared, no input is materialised), and the cost model times the blocks that ran; every
other block takes the time of the nearest traced block (tools/perf/estimate.py `stand_in`, which says what
that gets wrong). A block that moves more than TRACE_BUDGETS[0] bytes of GM traffic at the task's shapes is traced
alone (the first, CUT_BLOCKS), cut there and extended by its steady state to its share of the task's bytes
(speed_extend.py, which says what that gets wrong), then at TRACE_BUDGETS[1]; a kernel that cannot be extended so
is traced whole on the three blocks, as the estimate's notes say. Nothing here judges the kernel.

What it can get wrong, said in the report: a block whose work depends on the data (zeros take the same path
as every value for the builtin writer's programs, not for data-dependent loops); untraced blocks that differ
from their stand-in (a former/tail split: the reduce tasks' 128 rows on 48 cores count 132); a SyncAll waits for the
traced blocks only (runtime/scheduler.cpp in trace-only mode), so a combine after it reads zeros for the untraced
blocks' partial results: the same instructions, not the same values. Cross-core flags between AI Cores still
cannot run on a sample: such kernels keep the shrunk-shape estimate."""
from __future__ import annotations

import math

import numpy as np

from kernelwright.tools.dtypes import numpy_dtype
from kernelwright.tools.perf.estimate import CALIBRATED_ARCHS
from kernelwright.tools.perf.trace import COPY, MEMORIES, SYNCALL, KernelTrace
from kernelwright.tools.referee.case_runner import Setting, bind
from kernelwright.tools.referee.speed import FullShapes, RanCase, min_bytes
from kernelwright.tools.referee.speed_extend import Traffic, extend_cut, gm_traffic, later_share
from kernelwright.tools.tasks.reference import RefFailure, RefRun, RefValue

TRACE_BLOCKS = 3               # blocks a trace-only run emulates: the first, the middle and the last
TRACE_TIMEOUT_S = 20.0         # the emulator's CPU seconds for them (the run's time limit, runtime/scheduler.cpp)
TRACE_GM_BYTES = 32 << 30      # GM the task's own tensors may map (lazily committed: only the traced blocks' pages)
TRACE_TOUCH_BYTES = 4 << 30    # GM the traced blocks may be expected to touch (each page they touch is memory)
# GM bytes a traced block moves before it is cut and extended by its steady state (speed_extend.py), tried in turn;
# a kernel none of them extends runs its traced blocks whole. The first is about a ninth of a judging run's traffic at
# the shrunk shapes (EMULATION_BUDGET elements in, as many out) and holds a few dozen tiles; the second covers periods
# of a few MB (rows past UB)
TRACE_BUDGETS = (1 << 20, 32 << 20)
# blocks a cut run traces: the extension gives every cut block the same even share of the task (speed_extend.py), so
# the middle and the last block would add only their prefix (its GM alignment) at three times the emulation. A run
# traced whole keeps TRACE_BLOCKS (a short last block or a former/tail split shows there): a budget the shrunk run
# says a block stays under is not tried, and a run of CUT_BLOCKS that finished uncut is made again whole
CUT_BLOCKS = 1
GM = MEMORIES.index("GM")


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


def block_share(trace: KernelTrace, total: int) -> float:
    """The largest share of the case's tensors one block moved to or from GM (at the shapes that ran): what a
    traced block at the task's shapes will touch, as a share of the task's tensors."""
    most = 0
    for lt in trace.launches:
        for b in lt.blocks:
            r = b.records
            gm = r[(r["kind"] == COPY) & ((r["src"] == GM) | (r["dst"] == GM))]
            most = max(most, int((gm["y"].astype("u8") * gm["count"]).sum()))
    return min(1.0, most / total) if total else 1.0


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
    touch = block_share(first.result.trace, min_bytes(first.ref) or 0) * total * TRACE_BLOCKS
    if touch > TRACE_TOUCH_BYTES:
        return FullShapes(why_not=f"{TRACE_BLOCKS} blocks at the task's shapes would touch about {touch / 2**30:.1f} GiB "
                                  f"of GM (a block moved that share of the tensors at the shrunk shapes), past "
                                  f"{TRACE_TOUCH_BYTES >> 30} GiB")
    ref = RefRun(args=[_placeholder(v) for v in shapes.args], init=[_placeholder(v) for v in shapes.init],
                 params=[_placeholder(v) for v in shapes.params], outputs=[_placeholder(v) for v in shapes.outputs])
    bound, _ = bind(s, ref)
    if bound.case is None:
        return FullShapes(why_not=f"the task's shapes could not be bound: {bound.problem or 'no case'}")
    case = bound.case.model_copy(update={"soc": s.soc.name, "timeout_s": TRACE_TIMEOUT_S, "trace_only": True,
                                         "sample_blocks": TRACE_BLOCKS, "label": f"{first.label} (trace only)"})
    traffic = _traffic(first, shapes)
    spent, tries, extended, whole = 0.0, [], "", False
    for budget in (TRACE_BUDGETS if traffic else ()) + (0,):
        if budget and (whole or touch / TRACE_BLOCKS <= budget):
            continue              # a block moves less at the task's shapes (as the shrunk run says): traced whole
        blocks = CUT_BLOCKS if budget else TRACE_BLOCKS
        r = s.toolchain.run(s.build, case.model_copy(update={"trace_budget": budget, "sample_blocks": blocks}))
        spent += r.seconds
        cut = r.trace is not None and any(b.cut for lt in r.trace.launches for b in lt.blocks)
        if not cut and r.status == "ok" and blocks < TRACE_BLOCKS:
            whole = True          # ran uncut on fewer blocks than a whole trace takes: run whole on TRACE_BLOCKS
            continue
        if not cut:
            break                 # ran whole (or failed before any block was cut: said below, whatever the budget)
        if r.status != "ok":      # a block left waiting for a cut one (a MIX kernel's cube core): trace them whole
            tries.append(f"cut at {_mb(budget)} per block, the run ended with {r.status}")
            continue
        got = extend_cut(r.trace, traffic)
        if isinstance(got, str):
            tries.append(f"cut at {_mb(budget)} per block, not extended: {got}")
            continue
        r.trace, extended = got
        break
    if r.status != "ok" or r.trace is None or not r.trace.complete:
        # a rule broken only at the task's shapes (a tile sized from them past UB) is news, not a speed: said, not timed
        what = "; ".join(d.render() for d in r.errors()[:2]) or r.detail or r.status
        return FullShapes(why_not=f"the trace-only run at the task's shapes ended with {r.status}"
                                  f"{'' if r.trace is not None and r.trace.complete else ', no complete trace'}: {what[:300]}")
    blocks = r.sampled or list(range(r.block_dim))
    method = (f"traced at the task's own shapes in a trace-only run of block{'s' if len(blocks) > 1 else ''} "
              f"{', '.join(map(str, blocks))} of {r.block_dim}" + ("" if r.sampled else " (every block)"))
    if extended:
        method += (f", each cut after {_mb(budget)} of GM traffic and extended by its steady state to its share "
                   f"of the task's GM bytes (tools/referee/speed_extend.py): {extended}")
    r.seconds = spent
    return FullShapes(r, method, notes=[f"the trace-only run took {spent:.1f} s"] + tries, min_bytes=total)


def _mb(n: int) -> str:
    return f"{n >> 20} MB" if n >= 1 << 20 else f"{n >> 10} KB"


def _traffic(first: RanCase, shapes) -> Traffic | None:
    """The shrunk run's GM bytes per byte of outputs and of inputs, with those bytes at the task's shapes."""
    if first.ref is None or first.result.trace is None:
        return None
    read, written = gm_traffic(first.result.trace)
    outs = sum(int(t.array.nbytes) for v in first.ref.outputs for t in v.tensors() if t.array is not None)
    ins = sum(int(t.array.nbytes) for v in first.ref.args + first.ref.params for t in v.tensors() if t.array is not None)
    if not outs or not ins:
        return None
    blocks = [b.records for lt in first.result.trace.launches for b in lt.blocks]
    syncs = {int((r["kind"] == SYNCALL).sum()) for r in blocks}
    return Traffic(written_per_output=written / outs, read_per_input=read / ins,
                   output_bytes=_bytes(shapes.outputs), input_bytes=_bytes(shapes.args + shapes.params),
                   syncalls=syncs.pop() if len(syncs) == 1 else None, later=max(map(later_share, blocks), default=0.0))
