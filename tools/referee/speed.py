"""The measure stage's answer to "is it faster than what I have?": the kernel's time against eager
PyTorch's on the first case that passed. On a backend that times kernels on a device (a toolchain
with `time`, e.g. `cann`) both are measured; on the emulation both are estimates of the cost model
(tools/perf): the kernel from its instruction trace, eager from the reference's ATen ops at the same
shapes, per SoC, always labelled as estimates."""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from kernelwright.tools.hardware import SocProfile, load_soc, soc_names
from kernelwright.tools.perf.eager import estimate_eager
from kernelwright.tools.perf.estimate import CALIBRATED_ARCHS, estimate
from kernelwright.tools.referee.speed_paths import unjudged_kinds, unjudged_note
from kernelwright.tools.referee.verdict import StageReport
from kernelwright.tools.task import Task, TaskCase
from kernelwright.tools.tasks.reference import RefFailure, RefRun, RefValue, ReferenceWorker
from kernelwright.tools.timing import ReferenceSpec, TimingResult
from kernelwright.tools.toolchain import BuildResult, Case, RunResult, Toolchain

ESTIMATE_NOTE = ("estimated on the CPU emulation by the cost model (tools/perf), at the shapes `shapes` names; not "
                 "a measurement: the cann backend measures both times on the NPU instead")


@dataclass
class RanCase:
    """A passing run and what it took to make it: enough to time it again or to estimate it."""

    label: str
    case: TaskCase
    mapping: dict[int, int]          # shrink mapping of the run (empty: the task's own shapes)
    bound: Case                      # the toolchain's case
    result: RunResult
    ref: RefRun | None = None        # the reference's run (its inputs time eager PyTorch on a device)


@dataclass
class FullShapes:
    """The kernel's trace at the task's own shapes (tools/referee/speed_shapes.py), or why there is none."""

    result: RunResult | None = None
    method: str = ""                 # how the trace was made, for the report
    why_not: str = ""
    notes: list[str] = field(default_factory=list)
    min_bytes: int | None = None     # the task's inputs, weights and outputs once


def _socs(primary: SocProfile) -> list[SocProfile]:
    """The run's SoC, then one calibrated SoC of each other core count (the same launch spread differently)."""
    out, seen = [primary], {(primary.aiv_cores, primary.aic_cores)}
    for name in soc_names():
        p = load_soc(name)
        if p.npu_arch in CALIBRATED_ARCHS and (p.aiv_cores, p.aic_cores) not in seen:
            seen.add((p.aiv_cores, p.aic_cores))
            out.append(p)
    return out


def min_bytes(ref: RefRun | None) -> int | None:
    """The least GM traffic the operator needs: each of the reference's inputs, weights and outputs read
    or written once (None without the reference's run)."""
    if ref is None:
        return None
    values = [t for v in ref.args + ref.params + ref.outputs for t in v.tensors()]
    return sum(int(t.array.nbytes) for t in values if t.array is not None)


def _estimated(trace: Any, ops: dict[str, Any] | RefFailure, least: int | None, soc: SocProfile,
               extra: list[str] = ()) -> dict[str, Any]:
    per_soc: dict[str, Any] = {}
    for prof in _socs(soc):
        k = estimate(trace, prof)
        entry: dict[str, Any] = {"status": k.status, "kernel_us": k.kernel_us, "device_us": k.device_us,
                                 "launch_us": k.launch_us, "bound_us": k.bound_us, "bound": k.bound,
                                 "bottleneck": k.bottleneck, "gm_bytes": k.gm_bytes, "blocks": k.blocks,
                                 "cores": k.cores, "pipes": {p: round(u.share, 4) for p, u in k.pipes.items()},
                                 "min_bytes": least, "notes": list(extra) + k.notes}
        if isinstance(ops, RefFailure):
            entry["eager_error"] = ops.render()
        else:
            e = estimate_eager(ops["ops"], prof)
            entry |= {"eager_us": e.total_us, "eager_kernels": e.kernels}
            if ops.get("dropped"):
                entry["notes"] = entry["notes"] + [f"eager: {ops['dropped']} ATen ops past the recorder's limit are not "
                                                   "counted"]
            if k.kernel_us and e.kernels:
                entry["speedup"] = e.total_us / k.kernel_us
        per_soc[prof.name] = entry
    return per_soc


def _shrunk_label(mapping: dict[int, int]) -> str:
    return "shrunk shapes (dims " + ", ".join(f"{a}->{b}" for a, b in sorted(mapping.items())) + ")"


def _at_task_shapes(first: RanCase, full: FullShapes | None, worker: ReferenceWorker, soc: SocProfile
                    ) -> tuple[dict[str, Any] | None, str]:
    """The per-SoC estimates at the task's own shapes of a case that ran shrunk, or (None, why not). The eager
    side is recorded on fake tensors only: the task's own tensors may not fit in memory."""
    if full is None or full.result is None or full.result.trace is None:
        return None, full.why_not if full else "no trace at the task's own shapes was made"
    ops = worker.aten_ops(first.case, {}, fake_only=True)
    if isinstance(ops, RefFailure):
        return None, f"the reference's ATen ops at the task's shapes could not be recorded on fake tensors: " \
                     f"{ops.render()[:200]}"
    return _estimated(full.result.trace, ops, full.min_bytes, soc, full.notes), ""


def _plain(v: RefValue) -> Any:
    return v.array if v.kind == "tensor" else [_plain(i) for i in v.items] if v.kind == "tensor_list" else v.value


def _measured(ran: RanCase, toolchain: Toolchain, build: BuildResult, task: Task) -> TimingResult:
    ref = None if ran.ref is None else ReferenceSpec(source=task.source, init_args=[_plain(v) for v in ran.ref.init],
                                                      forward_args=[_plain(v) for v in ran.ref.args])
    return toolchain.time(build, ran.bound, reference=ref)  # type: ignore[attr-defined]


def judge_speed(report: StageReport, ran: list[RanCase], *, toolchain: Toolchain, build: BuildResult, task: Task,
                worker: ReferenceWorker, soc: SocProfile, full: FullShapes | None = None) -> None:
    """Adds the speed comparison of the first passing run to the measure stage's report: the estimate at the
    task's own shapes (`full`, speed_shapes.py) as the headline, the one at the shapes that ran beside it."""
    if not ran:
        return
    first = ran[0]
    shapes = "the task's own shapes" if not first.mapping else _shrunk_label(first.mapping)
    if callable(getattr(toolchain, "time", None)):
        t = _measured(first, toolchain, build, task)
        report.metrics["speed"] = {"kind": "measured", "case": first.label, "shapes": shapes,
                                   "timing": t.model_dump(mode="json")}
        if t.ok and t.speedup_median is not None:
            report.metrics["speedup"] = t.speedup_median
            report.summary += f"; measured {t.kernel.median_ms:.4g} ms vs eager " \
                              f"{t.reference.median_ms:.4g} ms ({t.speedup_median:.2f}x)"  # type: ignore[union-attr]
        else:                                # a kernel that passed but could not be timed is still correct
            report.summary += f"; not timed ({t.status}{': ' + t.detail[:160] if t.detail else ''})"
        return
    if first.result.trace is None:
        report.metrics["speed"] = {"kind": "none", "reason": f"the {toolchain.name} backend neither times kernels nor "
                                                             "records an instruction trace"}
        return
    ran_at = _estimated(first.result.trace, worker.aten_ops(first.case, first.mapping), min_bytes(first.ref), soc)
    start = time.monotonic()
    task_at, why_not = _at_task_shapes(first, full, worker, soc) if first.mapping else (ran_at, "")
    estimating = time.monotonic() - start
    record: dict[str, Any] = {"kind": "estimate", "note": ESTIMATE_NOTE, "case": first.label, "soc": soc.name}
    if task_at is not None:
        method = full.method if full and full.method else "ran at the task's own shapes"
        record |= {"at": "task", "shapes": f"the task's own shapes ({method})", "method": method, "per_soc": task_at}
        if first.mapping:             # the trace-only run's wall time: what the estimate at the task's shapes cost
            # and what estimating there cost (the reference's ATen ops on fake tensors, the cost model per SoC)
            record |= {"shrunk": {"shapes": shapes, "per_soc": ran_at}, "trace_s": round(full.result.seconds, 2),
                       "estimate_s": round(estimating, 3),
                       # the kernel estimated there may take a path the judged (shrunk) runs never took
                       "unjudged": unjudged_kinds(full.result.trace, [r.result.trace for r in ran])}
    else:
        record |= {"at": "shrunk", "shapes": shapes, "per_soc": ran_at, "why_not_task_shapes": why_not}
    report.metrics["speed"] = record
    main = record["per_soc"][soc.name]
    if "speedup" in main:
        report.metrics["est_speedup"] = main["speedup"]
        # why not at the task's shapes can be news: a rule the kernel breaks only there (UB overflow of a tile
        # sized from the task's shapes), which the shrunk shapes that judged it cannot show
        where = "at the task's shapes" if record["at"] == "task" else \
            f"at the shrunk shapes only (not at the task's: {' '.join(record['why_not_task_shapes'].split())[:240]})"
        beside = ""
        if "shrunk" in record and "speedup" in ran_at[soc.name]:
            beside = f"; {ran_at[soc.name]['speedup']:.2f}x at the shrunk shapes"
        report.summary += (f"; est. {main['kernel_us']:.3g} us vs eager {main['eager_us']:.3g} us on {soc.name} {where} "
                           f"({main['speedup']:.2f}x, bottleneck {main['bottleneck']}{beside}; an estimate on the "
                           "emulation)")
        if record.get("unjudged"):
            report.summary += "; " + unjudged_note(record["unjudged"])
    elif main["status"] != "ok":
        report.summary += f"; no speed estimate: {'; '.join(main['notes'])[:200]}"
