"""finish: every run ends here with an exit status and a saved summary (`run.json`), and the final
kernel project (the passing one, or the last one tried) in `kernel/`."""
from __future__ import annotations

from typing import Any

from kernelwright.agent.budget import exhausted
from kernelwright.agent.deps import Deps
from kernelwright.agent.memory import remember_fix
from kernelwright.agent.state import RunState
from kernelwright.agent.trajectory import Artifacts


def exit_status(state: RunState, deps: Deps) -> tuple[str, str]:
    verdict, halt = state.get("verdict"), state.get("halt")
    if halt:
        return halt.status, halt.reason
    if verdict and verdict.status == "pass":
        warnings = [n for n in verdict.notes if not n.startswith("work counters")]
        return "passed", "; ".join([verdict.summary, *warnings])
    why = exhausted(state, deps.config.agent)
    if why:
        return "budget_exhausted", why
    return "failed", "the run stopped without a passing kernel"


def summary(state: RunState, status: str, reason: str, kernel: str | None) -> dict[str, Any]:
    plain = {k: state[k].model_dump(mode="json") if state.get(k) else None for k in ("verdict", "plan")}
    return {"run_id": state.get("run_id"), "task": state["task"].name if state.get("task") else None,
            "status": status, "reason": reason, "path": state.get("path", []), "attempts": state.get("attempts", {}),
            "usage": state.get("usage", {}), "dsl_version": state.get("dsl_version", 0),
            "project_version": state.get("project_version", 0), "kernel": kernel, "perf": state.get("perf"), **plain}


def write_summary(art: Artifacts, state: RunState, status: str, reason: str) -> dict[str, Any]:
    kernel = None
    if state.get("project"):
        kernel = str(art.save_project(state["project"], "kernel"))
        if state.get("dsl"):
            art.write("kernel/kernel.dsl.py", state["dsl"])
    data = summary(state, status, reason, kernel)
    art.write_json("run.json", data)
    return data


def finish(state: RunState, deps: Deps) -> dict[str, Any]:
    status, reason = exit_status(state, deps)
    art = Artifacts(state["artifacts"])
    fix = remember_fix(state, deps.retriever) if status == "passed" else None
    art.event("finish", status=status, reason=reason, **({"fix_recorded": fix} if fix else {}))
    write_summary(art, state | {"path": state.get("path", []) + ["finish"]}, status, reason)
    return {"status": status, "reason": reason}
