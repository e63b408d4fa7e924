"""lowerer: turn the checked DSL program into a KernelProject with the deterministic code generator;
a model fills only what the generator cannot (`extern` holes), and applies AscendC patches the
debugger asks for. A fill or patch the debugger already wrote is applied without asking."""
from __future__ import annotations

from typing import Any

from kernelwright.agent import dslkit
from kernelwright.agent.deps import Deps
from kernelwright.agent.models.base import ModelError
from kernelwright.agent.nodes.common import (ask, feedback_for, format_failed, model_failed, progress, reflection,
                                             task_of, usage_update)
from kernelwright.agent.nodes.planner import retrieve
from kernelwright.agent.patching import PatchError, apply_edits
from kernelwright.agent.prompting import chip_facts, render
from kernelwright.agent.replies import FormatError, one_code_block
from kernelwright.agent.state import Feedback, RunState
from kernelwright.agent.trajectory import Artifacts
from kernelwright.tools.project import KernelProject

CPP_LANGS = ("cpp", "c++", "cc", "c")


def _ask_fill(state: RunState, deps: Deps, project: KernelProject, hole: dict[str, Any], fb: Feedback | None):
    messages = render("lowerer", mode="hole", hole=hole, dsl=state["dsl"], kernel=project.files[hole["file"]],
                      chip=chip_facts(deps.config.toolchain.soc), feedback=fb, verdict=state.get("verdict"),
                      passages=retrieve(deps, hole["spec"], kinds=["api", "fix"]))
    return ask(deps, "lowerer", messages + reflection(state, "lowerer"))


def _ask_patch(state: RunState, deps: Deps, project: KernelProject, fb: Feedback | None):
    messages = render("lowerer", mode="patch", hole=None, dsl=state["dsl"], kernel=project.files[dslkit.kernel_file(project)],
                      chip=chip_facts(deps.config.toolchain.soc), feedback=fb, verdict=state.get("verdict"),
                      passages=[])
    return ask(deps, "lowerer", messages + reflection(state, "lowerer"))


def lowerer(state: RunState, deps: Deps) -> dict[str, Any]:
    task = task_of(state)
    art = Artifacts(state["artifacts"])
    fb = feedback_for(state, "lowerer")
    fresh = state.get("project") is None or state.get("lowered_from") != state.get("dsl_version")
    if fresh:
        progress("lowerer", f"lowering DSL v{state['dsl_version']}")
        lowered = dslkit.lower(state["dsl"], task)
        if isinstance(lowered, str):
            art.event("lowerer", outcome="lowering_error", error=lowered)
            return {"lowering_error": lowered, "feedback": None}
        project, holes = lowered
    else:
        project, holes = KernelProject.model_validate(state["project"]), [dict(h) for h in state.get("holes", [])]
    update: dict[str, Any] = {}
    usage: dict[str, float] = {}
    if fb is not None and not holes:          # an AscendC patch of the generated code
        reply = None
        try:
            text = fb.code or (reply := _ask_patch(state, deps, project, fb)).content
            project = project.model_copy(update={"files": apply_edits(project.files, text, dslkit.kernel_file(project))})
        except ModelError as e:
            return model_failed("lowerer", e)
        except PatchError as e:
            if reply is None:                 # the debugger's own patch: let the debugger see why
                return {"lowering_error": f"the debugger's patch does not apply: {e}", "feedback": None}
            return format_failed(state, deps, "lowerer", reply, str(e), "SEARCH/REPLACE edits of op_kernel files")
        usage = usage_update(reply)
    todo = [h for h in holes if not h.get("fill") or (fb is not None and fb.hole in (None, h["name"]))]
    for hole in todo:
        if fb is not None and fb.code and fb.hole == hole["name"]:
            hole["fill"] = fb.code
            continue
        if deps.model("lowerer") is None:
            return {"halt": {"status": "failed", "reason": f"the lowered program has an extern hole ({hole['name']}: "
                                                           f"{hole['spec'][:200]}); filling it needs a model (--model)"}}
        progress("lowerer", f"filling hole {hole['name']}")
        try:
            reply = _ask_fill(state, deps, project, hole, fb)
        except ModelError as e:
            return model_failed("lowerer", e)
        try:
            hole["fill"] = one_code_block(reply.content, CPP_LANGS, f"the body of {hole['function']}")
        except FormatError as e:
            art.event("lowerer", outcome="format_error", problem=str(e), hole=hole["name"])
            return format_failed(state, deps, "lowerer", reply, str(e), f"the C++ body of {hole['function']} in "
                                                                        "one ```cpp block")
        hole["attempts"] = hole.get("attempts", 0) + 1
        usage = {k: usage.get(k, 0) + v for k, v in usage_update(reply).items()}
    project = dslkit.fill_holes(project, holes)
    version = state.get("project_version", 0) + 1
    art.save_project(project, f"project/v{version}")
    art.event("lowerer", outcome="project", version=version, holes=[h["name"] for h in holes], fresh=fresh)
    return update | {"project": project.model_dump(), "project_version": version, "holes": holes, "usage": usage,
                     "lowered_from": state.get("dsl_version"), "lowering_error": None, "feedback": None,
                     "format_error": None}
