"""A deterministic first guess at where the recorded failure's fault lives (the debugger's model may
overrule it; with no model, the guess is all there is)."""
from __future__ import annotations

import re

from kernelwright.agent.state import RunState

_WHERE = re.compile(r"([\w./-]+\.(?:cpp|h|cc)):(\d+)")
WHY = {"lowering": ("dsl", "the code generator could not lower the program: rewrite the construct it names"),
       "patch": ("ascendc", "the patch did not apply, so the project is unchanged: send the edits again, their SEARCH "
                            "text copied exactly from the current source"),
       "dsl": ("dsl", "the DSL program, interpreted on the task's inputs, does not match the reference")}


def holes_named(state: RunState, text: str) -> list[str]:
    """Holes a failure's text points into: by name, or by a file:line inside the hole's markers."""
    files = state["project"].files if state.get("project") else {}
    found = []
    for h in state.get("holes") or []:
        lines = files.get(h.file, "").splitlines()
        begin = next((i for i, ln in enumerate(lines, 1) if h.begin_marker in ln), 0)
        end = next((i for i, ln in enumerate(lines, 1) if h.end_marker in ln), 0)
        at = [int(m.group(2)) for m in _WHERE.finditer(text) if h.file.endswith(m.group(1).split("/")[-1])]
        if f"Hole_{h.name}" in text or any(begin <= ln <= end for ln in at):
            found.append(h.name)
    return found


def suggest(state: RunState) -> tuple[str, str]:
    """(fault, why): plan, dsl or ascendc."""
    f = state["failure"]
    plan = state.get("plan")
    direct = plan is not None and plan.route == "ascendc"
    if f.subject == "requirement":
        return ("ascendc" if direct else "dsl"), "the kernel passes but does not honour the plan's requirement"
    if direct:
        return "ascendc", "the kernel was written directly in AscendC (no DSL program): the fault is in its files"
    if f.subject in WHY:
        return WHY[f.subject]
    holes = [h.name for h in state.get("holes") or []]
    named = holes_named(state, "\n".join(f.details))
    if named:
        return "ascendc", f"the diagnostics point into hole {', '.join(named)}"
    if f.stage in ("lint", "build"):
        return "ascendc", ("the AscendC written into the holes does not compile" if holes
                           else "the generated AscendC does not compile: patch it, or avoid the construct in the DSL")
    if holes:
        return "ascendc", ("the DSL program matched the reference in the interpreter, so the kernel's difference "
                           f"most likely comes from the hand-written hole(s) {', '.join(holes)}")
    return "dsl", "the kernel differs from the interpreted DSL program: avoid the construct in the DSL"
