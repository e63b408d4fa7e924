"""ascendc_writer: the direct AscendC route, for an operator the DSL cannot express. The first run starts
from a skeleton our code generates for the task's operator (agent.ascendc_skeleton: OpDef, tiling, an
empty kernel class, bound as the referee binds DSL kernels) and asks the model for the kernel: whole files
or SEARCH/REPLACE edits. Later runs revise it after a failing verdict, with the debugger's instructions, or
apply the debugger's ready edits without asking. The same referee judges it; the same debugger repairs it."""
from __future__ import annotations

from typing import Any

from kernelwright.agent.ascendc_skeleton import declared, described, skeleton
from kernelwright.agent.deps import Deps
from kernelwright.agent.models.base import ModelError
from kernelwright.agent.nodes.common import (ask, feedback_for, format_failed, model_failed, progress, reflection,
                                             usage_update)
from kernelwright.agent.nodes.planner import reference_source
from kernelwright.agent.nodes.retrieval import plan_cards
from kernelwright.agent.patching import FORMAT, PatchError, apply_reply
from kernelwright.agent.prompting import chip_facts, render
from kernelwright.agent.state import Failure, Halt, RunState
from kernelwright.agent.trajectory import Artifacts
from kernelwright.tools.project import KernelProject

EXPECTED = ("the kernel project's files written out whole (a line naming the file, then the file in one fenced "
            f"block), or SEARCH/REPLACE edits:\n{FORMAT}")


def on_route(project: KernelProject | None) -> bool:
    """The project was started by this route (not lowered from a DSL program)."""
    return project is not None and project.meta.get("route") == "ascendc"


def _saved(state: RunState, art: Artifacts, project: KernelProject) -> dict[str, Any]:
    version = state.get("project_version", 0) + 1
    art.save_project(project, f"project/v{version}")
    art.event("ascendc_writer", outcome="project", version=version, files=sorted(project.files))
    # lowered_from = the current DSL version, so the lowerer never re-lowers over a direct project
    return {"project": project, "project_version": version, "holes": [], "lowered_from": state.get("dsl_version", 0),
            "verdict": None}


def ascendc_writer(state: RunState, deps: Deps) -> dict[str, Any]:
    task = state["task"]
    art = Artifacts(state["artifacts"])
    fb = feedback_for(state, "ascendc_writer")
    review = feedback_for(state, "dsl_writer")      # a reviewer's rejection names the writer of either route
    fb = fb or (review if review is not None and review.source == "review" and not review.code else None)
    project = state.get("project")
    update: dict[str, Any] = {}
    trace = state.get("trace")
    if not trace or not trace.get("ok", True):     # torch.fx failed: the reference worker describes the values
        trace = described(deps.worker(task), task) or trace
    if not on_route(project):
        progress("ascendc_writer", "generating the kernel project's skeleton")
        made = skeleton(task, trace)
        if isinstance(made, str):
            art.event("ascendc_writer", outcome="no_skeleton", reason=made)
            return {"halt": Halt(status="failed", reason=made)}
        project = made[0]
        art.save_project(project, "project/skeleton")
    assert project is not None
    kernel = project.kernel_sources()[0]
    written = bool(project.meta.get("written"))
    reply = None
    if fb is not None and fb.code:
        text = fb.code
    else:
        if deps.model("ascendc_writer") is None:
            return {"halt": Halt(status="failed", reason="the plan takes the direct AscendC route, which needs a model "
                                                         "(--model NAME)")}
        verdict = state.get("verdict")
        messages = render("ascendc_writer", mode="revise" if written else "write", task=task,
                          source=reference_source(task), trace=state.get("trace"), plan=state.get("plan"),
                          chip=chip_facts(deps.config.toolchain.soc), files=project.files, kernel_file=kernel,
                          declared=declared(trace or {}), feedback=fb,
                          verdict=verdict if verdict is not None and verdict.status == "fail" else None,
                          passages=plan_cards(deps, state.get("plan")))
        progress("ascendc_writer", "writing the AscendC kernel" if not written else "revising the AscendC kernel")
        try:
            reply = ask(deps, "ascendc_writer", messages + reflection(state, "ascendc_writer"))
        except ModelError as e:
            return model_failed("ascendc_writer", e)
        text = reply.content
        update["usage"] = usage_update(reply)
    try:
        files = apply_reply(project.files, text, kernel)
    except PatchError as e:
        kept = {}
        if e.applied and e.files is not None:   # edits before the failing one stay applied
            kept = _saved(state, art, project.model_copy(update={"files": e.files, "meta": {**project.meta,
                                                                                              "written": True}}))
        art.event("ascendc_writer", outcome="patch_error", error=str(e)[:500], applied=e.applied)
        if reply is None:                       # the debugger's own edits: it hears that they did not apply
            return kept | {"failure": Failure(subject="patch", stage="apply", summary=f"your patch does not apply: {e}",
                                              details=[text])}
        return kept | format_failed(state, deps, "ascendc_writer", reply, str(e), EXPECTED)
    project = project.model_copy(update={"files": files, "meta": {**project.meta, "written": True}})
    return update | _saved(state, art, project)
