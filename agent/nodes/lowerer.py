"""lowerer: turn the checked DSL program into a KernelProject with the deterministic code generator;
a model fills only what the generator cannot (`extern` holes), and applies AscendC patches the
debugger asks for. A fill or patch the debugger already wrote is applied without asking."""
from __future__ import annotations

from typing import Any

from kernelwright.agent import dslkit
from kernelwright.agent.deps import Deps
from kernelwright.agent.models.base import ModelError
from kernelwright.agent.nodes.common import (ask, feedback_for, format_failed, model_failed, progress, reflection,
                                             usage_update)
from kernelwright.agent.nodes.retrieval import retrieve
from kernelwright.agent.patching import PatchError, apply_edits
from kernelwright.agent.prompting import chip_facts, render
from kernelwright.agent.replies import FormatError, one_code_block
from kernelwright.agent.state import Failure, Feedback, Halt, HoleWork, RunState, tally
from kernelwright.agent.trajectory import Artifacts
from kernelwright.tools.project import KernelProject

CPP_LANGS = ("cpp", "c++", "cc", "c")


def _ask(state: RunState, deps: Deps, project: KernelProject, fb: Feedback | None, hole: HoleWork | None = None):
    """A hole's body, or (no hole) SEARCH/REPLACE edits of the generated kernel."""
    kernel = project.files[hole.file if hole else dslkit.kernel_file(project)]
    passages = retrieve(deps, hole.spec, kinds=["api", "fix"]) if hole else []
    messages = render("lowerer", mode="hole" if hole else "patch", hole=hole, dsl=state["dsl"], kernel=kernel,
                      chip=chip_facts(deps.config.toolchain.soc), feedback=fb, verdict=state.get("verdict"),
                      passages=passages)
    return ask(deps, "lowerer", messages + reflection(state, "lowerer"))


def _keep_partial(state: RunState, art: Artifacts, project, e: PatchError) -> dict[str, Any]:
    """The project with the edits that did apply, as a new version (nothing when none applied)."""
    if not e.applied or e.files is None:
        return {}
    version = state.get("project_version", 0) + 1
    project = project.model_copy(update={"files": e.files})
    art.save_project(project, f"project/v{version}")
    return {"project": project, "project_version": version, "lowered_from": state.get("dsl_version")}


def lowerer(state: RunState, deps: Deps) -> dict[str, Any]:
    art = Artifacts(state["artifacts"])
    fb = feedback_for(state, "lowerer")
    fresh = state.get("project") is None or state.get("lowered_from") != state.get("dsl_version")
    if fresh:
        progress("lowerer", f"lowering DSL v{state['dsl_version']}")
        lowered = dslkit.lower(state["dsl"], state["task"])
        if isinstance(lowered, str):
            art.event("lowerer", outcome="lowering_error", error=lowered)
            return {"failure": Failure(subject="lowering", stage="lower", summary=lowered)}
        project, holes = lowered
    else:
        project, holes = state["project"], [h.model_copy() for h in state.get("holes", [])]
    usage: dict[str, float] = {}
    if fb is not None and not holes:          # an AscendC patch of the generated code
        reply = None
        try:
            text = fb.code or (reply := _ask(state, deps, project, fb)).content
            project = project.model_copy(update={"files": apply_edits(project.files, text, dslkit.kernel_file(project))})
        except ModelError as e:
            return model_failed("lowerer", e)
        except PatchError as e:
            kept = _keep_partial(state, art, project, e)        # edits before the failing one stay applied
            if reply is None:                 # the debugger's own patch: the debugger hears that it did not apply
                art.event("lowerer", outcome="patch_error", error=str(e), applied=e.applied)
                return kept | {"failure": Failure(subject="patch", stage="apply",
                                                  summary=f"your patch does not apply: {e}", details=[text])}
            return kept | format_failed(state, deps, "lowerer", reply, str(e), "SEARCH/REPLACE edits of op_kernel files")
        usage = usage_update(reply)
    todo = [h for h in holes if not h.fill or (fb is not None and fb.hole in (None, h.name))]
    for hole in todo:
        if fb is not None and fb.code and fb.hole == hole.name:
            hole.fill = fb.code
            continue
        if deps.model("lowerer") is None:
            return {"halt": Halt(status="failed", reason=f"the lowered program has an extern hole ({hole.name}: "
                                                         f"{hole.spec[:200]}); filling it needs a model (--model)")}
        progress("lowerer", f"filling hole {hole.name}")
        try:
            reply = _ask(state, deps, project, fb, hole)
        except ModelError as e:
            return model_failed("lowerer", e)
        try:
            hole.fill = one_code_block(reply.content, CPP_LANGS, f"the body of {hole.function}")
        except FormatError as e:
            art.event("lowerer", outcome="format_error", problem=str(e), hole=hole.name)
            return format_failed(state, deps, "lowerer", reply, str(e), f"the C++ body of {hole.function} in "
                                                                        "one ```cpp block")
        hole.attempts += 1
        usage = tally(usage, usage_update(reply))
    project = dslkit.fill_holes(project, holes)
    version = state.get("project_version", 0) + 1
    art.save_project(project, f"project/v{version}")
    art.event("lowerer", outcome="project", version=version, holes=[h.name for h in holes], fresh=fresh)
    return {"project": project, "project_version": version, "holes": holes, "usage": usage,
            "lowered_from": state.get("dsl_version")}
