"""perf: the performance phase, after a kernel passes (perf.enabled). A knob search over the passing
DSL program's tiling (agent.perf.search), then, with a model, the optimiser's proposals
(agent.perf.optimiser); every candidate is judged by the same DSL check and referee as the kernel. The
fastest passing candidate replaces the kernel (its program, project and verdict become the run's
newest); when none is faster the kernel stays as it was. `state["perf"]` records before and after."""
from __future__ import annotations

from typing import Any

from kernelwright.agent.deps import Deps
from kernelwright.agent.nodes.common import progress
from kernelwright.agent.nodes.verify import brief
from kernelwright.agent.perf.judge import StateJudge
from kernelwright.agent.perf.optimiser import optimise
from kernelwright.agent.perf.search import Candidate, Search, knob_search
from kernelwright.agent.perf.speed import Speed, speed_of
from kernelwright.agent.state import RunState
from kernelwright.agent.trajectory import Artifacts
from kernelwright.tools.perf.knobs import tiling_values
from kernelwright.tools.referee.verdict import Verdict


def _record(s: Speed | None) -> dict[str, Any] | None:
    return None if s is None else {"kind": s.kind, "kernel_us": s.kernel_us, "eager_us": s.eager_us,
                                   "speedup": s.speedup, "bottleneck": s.bottleneck, "at": s.at}


def at_floor(s: Speed) -> str | None:
    """Why no tiling knob can make the kernel faster by the cost model: its device time is already the
    SoC's floor for its work (its GM bytes at the full HBM bandwidth, or the vector or cube floor)."""
    r = s.report
    device, bound = r.get("device_us"), r.get("bound_us")
    if s.kind != "estimate" or not device or not bound or bound < device * 0.999:
        return None
    return (f"the kernel is estimated at the SoC's floor for its work ({device:.3f} us device time, {r.get('bound')} "
            "bound): no tiling knob can make it faster; moving fewer bytes would need another program")


def _passing_verdict(state: RunState) -> Verdict | None:
    b = state.get("verdict")
    if b is None or b.status != "pass" or not b.file:
        return None
    path = Artifacts(state["artifacts"]).root / b.file
    return Verdict.model_validate_json(path.read_text(encoding="utf-8")) if path.is_file() else None


def run_phase(state: RunState, deps: Deps, judge: Any = None) -> dict[str, Any]:
    """The phase's state update (`judge` replaces the referee-backed one in tests of the search alone)."""
    cfg = deps.config.perf
    art = Artifacts(state["artifacts"])
    speed = speed_of(_passing_verdict(state))
    record: dict[str, Any] = {"before": _record(speed), "after": _record(speed), "candidates": [], "kept": "original"}
    if speed is None or not state.get("dsl"):
        record["stopped"] = "nothing to compare candidates with (no time for the passing kernel, or no DSL program)"
        art.event("perf", outcome="skipped", reason=record["stopped"])
        return {"perf": record}
    start = Candidate(label="original", source=state["dsl"], status="passed", speed=speed)
    search = Search(best=start, start=start)
    judge = judge or StateJudge(state, deps)
    record["stopped"] = at_floor(speed)       # tiling knobs do not change the bytes moved or the work done
    if not record["stopped"]:
        progress("perf", f"searching tiling knobs from {speed.kernel_us:.3f} us ({speed.kind})")
        shapes, soc = speed.shapes, deps.config.toolchain.soc
        record["stopped"] = knob_search(search, judge, max_candidates=cfg.max_candidates, max_seconds=cfg.max_seconds,
                                        min_gain=cfg.min_gain, tiling=lambda src: tiling_values(src, shapes, soc))
    usage, notes = optimise(search, judge, deps, rounds=cfg.optimiser_rounds, max_seconds=cfg.max_seconds,
                            min_gain=cfg.min_gain)
    best = search.best
    record |= {"after": _record(best.speed), "candidates": [c.brief() for c in search.tried], "kept": best.label,
               "notes": notes}
    art.event("perf", outcome="done", kept=best.label, before=record["before"], after=record["after"])
    update: dict[str, Any] = {"perf": record, "usage": usage}
    if best is start:
        return update
    version = state.get("dsl_version", 0) + 1
    pversion = state.get("project_version", 0) + 1
    art.write(f"dsl/v{version}.dsl.py", best.source)
    art.save_project(best.project, f"project/v{pversion}")
    # the kept candidate's verdict is the run's newest (v<n>.json after the verify node's own)
    vnum = max([int(p.stem[1:]) for p in (art.root / "verdicts").glob("v*.json") if p.stem[1:].isdigit()] or [0]) + 1
    path = art.write(f"verdicts/v{vnum}.json", best.verdict.model_dump_json(indent=1))
    b = brief(best.verdict, vnum, str(path.relative_to(art.root)))
    b.project_version = pversion
    return update | {"dsl": best.source, "dsl_version": version, "lowered_from": version, "project": best.project,
                     "project_version": pversion, "verdict": b, "verdicts": [b]}


def perf(state: RunState, deps: Deps) -> dict[str, Any]:
    return run_phase(state, deps)
