"""verify (no model): the referee builds, runs and compares the kernel project on the toolchain. The
full verdict is saved; the state keeps a brief of it for routing and for the debugger."""
from __future__ import annotations

from typing import Any

from kernelwright.agent.deps import Deps
from kernelwright.agent.nodes.common import progress
from kernelwright.agent.nodes.verdict_notes import unhonoured, unrun_lengths, work_notes
from kernelwright.agent.state import Failure, Halt, RunState, VerdictBrief
from kernelwright.agent.trajectory import Artifacts


def brief(v: Any, version: int, file: str, family: str | None = None) -> VerdictBrief:
    """The first stage that did not pass, and its diagnostics and mismatches rendered for the model."""
    failing = next((s for s in v.stages if s.status in ("fail", "error")), None)
    details: list[str] = []
    if failing is not None:
        details += [d.render() for d in failing.diagnostics[:12]]
        details += [f for f in failing.findings[:6]]
    for run in v.failures()[:2]:
        details += [f"case {run.case} (shapes {run.run_shapes}): " + m.render() for m in run.mismatches[:3]]
        if not run.mismatches and run.reason:
            details.append(f"case {run.case} (shapes {run.run_shapes}): {run.reason[:1500]}")
    status = v.status if v.status in ("pass", "fail") else "error"
    return VerdictBrief(version=version, status=status, stage=failing.name if failing else "pass",
                        summary=v.summary, details=details, notes=work_notes(v, family) + unrun_lengths(v), file=file)


def referee_kwargs(deps: Deps) -> dict[str, Any]:
    """The run's referee settings (tolerance, trials, SoC and case budget): the kernel and every performance
    candidate are judged with the same."""
    tc = deps.config.toolchain
    kwargs: dict[str, Any] = {"tolerance": tc.tolerance, "trials": tc.trials, "soc": tc.soc}
    if tc.budget:
        kwargs["budget"] = tc.budget
    return kwargs


def verify(state: RunState, deps: Deps) -> dict[str, Any]:
    from kernelwright.tools.referee import verify as referee

    task = state["task"]
    art = Artifacts(state["artifacts"])
    version = state.get("attempts", {}).get("verify", 0) + 1
    progress("verify", f"building and running project v{state.get('project_version')} on {deps.toolchain.name}")
    v = referee(task, state["project"], deps.toolchain, worker=deps.worker(task), **referee_kwargs(deps))
    path = art.write("verdicts/v%d.json" % version, v.model_dump_json(indent=1))
    plan = state.get("plan")
    b = brief(v, version, str(path.relative_to(art.root)), plan.category if plan else None)
    b.project_version = state.get("project_version", 0)
    unmet = unhonoured(v, plan) if b.status == "pass" else None
    if unmet:                   # never silently accepted: the debugger hears it, and the run's reason names it
        b.notes.append(unmet)
    art.event("verify", outcome=b.status, stage=b.stage, summary=b.summary, version=version)
    update: dict[str, Any] = {"verdict": b, "verdicts": [b]}
    if b.status == "error":
        update["halt"] = Halt(status="environment_error", reason=f"the referee could not judge the kernel: {v.summary}")
    elif b.status == "fail":
        update["failure"] = Failure(subject="kernel", stage=b.stage, summary=b.summary, details=b.details + b.notes)
    elif unmet:
        update["failure"] = Failure(subject="requirement", stage="measure", summary=unmet, details=b.notes)
    return update
