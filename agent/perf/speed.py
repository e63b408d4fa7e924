"""How fast a judged kernel is, read from its verdict's measure stage (tools/referee/speed.py): the
measured time on a backend that times kernels, else the cost model's estimate on the run's SoC."""
from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from kernelwright.tools.hardware import load_soc
from kernelwright.tools.perf import calibration as cal


class Speed(BaseModel):
    kind: str                          # estimate | measured
    kernel_us: float                   # what the search minimises
    eager_us: float | None = None
    speedup: float | None = None
    bottleneck: str = ""
    report: dict[str, Any] = Field(default_factory=dict)   # the SoC's entry of the speed record, for the optimiser
    shapes: list[list[int]] = Field(default_factory=list)   # the input shapes the estimate is at (see speed_of)
    at: str = ""                       # an estimate's shapes: task (the task's own) or shrunk
    # instruction kinds the kernel ran at the task's shapes and no judged case ran (tools/referee/speed_paths.py):
    # a speed that comes from them is the speed of an unverified path
    unjudged: list[str] = Field(default_factory=list)
    judged_shapes: list[list[int]] = Field(default_factory=list)   # the input shapes the referee judged it at
    why_not_task: str = ""             # why an estimate is at the shrunk shapes only (its task-shape run failed)


def speed_of(verdict: Any) -> Speed | None:
    """The speed of a passing verdict, or None when the measure stage has neither a timing nor an estimate."""
    if verdict is None or verdict.status != "pass":
        return None
    m = next((s.metrics for s in verdict.stages if s.name == "measure"), {})
    rec = m.get("speed") or {}
    first = next((r for r in verdict.runs if r.status == "pass"), None)
    # the estimate's own shapes: the task's when the measure stage traced them (tools/referee/speed_shapes.py), so
    # a tiling knob is judged where it is estimated, else the (shrunk) shapes that ran
    at_task = rec.get("kind") == "estimate" and rec.get("at") == "task"
    shapes = [] if first is None else (first.original_shapes or first.run_shapes) if at_task else first.run_shapes
    if rec.get("kind") == "measured":
        t = rec.get("timing") or {}
        kernel, ref = (t.get("kernel") or {}).get("median_ms"), (t.get("reference") or {}).get("median_ms")
        if kernel is None:
            return None
        return Speed(kind="measured", kernel_us=kernel * 1e3, eager_us=None if ref is None else ref * 1e3,
                     speedup=m.get("speedup"), report=t, shapes=shapes)
    if rec.get("kind") == "estimate":
        entry = (rec.get("per_soc") or {}).get(rec.get("soc") or "", {})
        if entry.get("kernel_us") is None:
            return None
        return Speed(kind="estimate", kernel_us=entry["kernel_us"], eager_us=entry.get("eager_us"),
                     speedup=entry.get("speedup"), bottleneck=entry.get("bottleneck", ""), report=entry, shapes=shapes,
                     at="task" if at_task else "shrunk", unjudged=rec.get("unjudged") or [],
                     judged_shapes=[] if first is None else first.run_shapes,
                     why_not_task=rec.get("why_not_task_shapes") or "")
    return None


def cost_report(s: Speed, soc: str | None = None) -> str:
    """The cost report in a few lines, for the optimiser's prompt and the run's events; with `soc`, what the
    estimate prices on it (a model told of the L2 can order work for it; model-in-the-loop round s8)."""
    r = s.report
    lines = [f"kernel {s.kernel_us:.3f} us ({s.kind})"
             + (f" vs eager {s.eager_us:.3f} us: {s.speedup:.2f}x" if s.eager_us and s.speedup else "")]
    if s.kind == "estimate":
        lines.append(("at the task's own shapes" if s.at == "task" else "at shrunk shapes (launch-dominated)")
                     + (f" {s.shapes}" if s.shapes else "")
                     + (f"; judged (checked against the reference) at the input shapes {s.judged_shapes}"
                        if s.judged_shapes and s.judged_shapes != s.shapes else ""))
        # "floor" is this kernel's own work at peak rates, not the task's minimum (bytes vs the minimum say that)
        lines.append(f"device {r.get('device_us', 0):.3f} us + launch {r.get('launch_us', 0):.1f} us; the floor of "
                     f"this kernel's own work {r.get('bound_us') or 0:.3f} us ({r.get('bound', '?')} bound: the GM "
                     "bytes it moves at HBM bandwidth, its instructions at each pipe's peak rate; at that floor only "
                     "less work makes it faster)")
        lines.append(f"bottleneck {s.bottleneck}; pipe busy shares " +
                     ", ".join(f"{p} {v:.0%}" for p, v in sorted((r.get("pipes") or {}).items(), key=lambda x: -x[1])))
        moved, least = r.get("gm_bytes"), r.get("min_bytes")
        if moved is not None:
            lines.append(f"GM bytes moved {moved}" + (f" vs the minimum {least} (inputs, weights and outputs once: "
                                                      f"{moved / least:.2f}x)" if least else ""))
        lines.append(f"{r.get('blocks')} blocks on {r.get('cores')} cores")
        if s.unjudged:
            lines.append("instruction kinds it ran at the task's shapes and no judged (shrunk) case ran: "
                         f"{', '.join(s.unjudged[:6])}: that path is estimated, not verified")
        if soc:
            lines.append(priced(soc))
    return "\n".join(lines)


def priced(soc: str) -> str:
    """What the cost model (tools/perf) prices, in a line: the facts an optimiser's proposal is judged by."""
    p = load_soc(soc)
    return (f"the estimate prices: HBM {cal.HBM_BYTES_PER_S / 1e12:.1f} TB/s shared by the cores active at the time; "
            f"an L2 of {p.l2_bytes >> 20} MiB: a block's copy reading the same GM bytes (same address and length) as "
            "one of its earlier copies is an L2 hit when the bytes it moved in between, times the active cores, fit "
            "in it (else HBM again; first reads, writes and bytes another block touched go to HBM); "
            f"a SyncAll {cal.SYNCALL_CYCLES / cal.CLOCK_MHZ:.2f} us plus the wait for the slowest block; "
            f"{cal.LAUNCH_US:.0f} us a launch")


def phase_line(record: dict[str, Any]) -> str:
    """One line on what the performance phase did: before -> after, what was kept, how many candidates."""
    def at(r: dict[str, Any] | None) -> str:
        if not r:
            return "n/a"
        us = f"{r['kernel_us']:.3f} us"
        return us + (f" ({r['speedup']:.2f}x eager)" if r.get("speedup") else "")
    b, a = record.get("before"), record.get("after")
    kind = (b or {}).get("kind", "estimate")
    tried = record.get("candidates") or []
    passed = sum(c.get("status") == "passed" for c in tried)
    where = {"task": " at the task's shapes", "shrunk": " at shrunk shapes"}.get((b or {}).get("at", ""), "")
    line = (f"performance phase ({kind}{where}): {at(b)} -> {at(a)}, kept {record.get('kept', 'original')}; "
            f"{len(tried)} candidate(s), {passed} passed")
    return line + (f"; {record['stopped']}" if record.get("stopped") else "")
