"""What failed, and a deterministic first guess at where the fault lives (the debugger's model may
overrule it; with no model, the guess is all there is)."""
from __future__ import annotations

import re
from typing import Any

from kernelwright.agent.state import RunState


def failure(state: RunState) -> dict[str, Any] | None:
    """The newest failure the debugger should read: {"source", "stage", "summary", "details"}."""
    if state.get("lowering_error"):
        return {"source": "lowering", "stage": "lower", "summary": state["lowering_error"], "details": []}
    check = state.get("dsl_check")
    if check and not check.get("ok"):
        return {"source": "dsl_check", "stage": check["stage"], "summary": check["summary"],
                "details": check.get("diagnostics", [])}
    v = state.get("verdict")
    if v and v.get("status") == "fail":
        return {"source": "verdict", "stage": v["stage"], "summary": v["summary"], "details": v.get("details", [])}
    return None


_WHERE = re.compile(r"([\w./-]+\.(?:cpp|h|cc)):(\d+)")


def holes_named(state: RunState, text: str) -> list[str]:
    """Holes a failure's text points into: by name, or by a file:line inside the hole's markers."""
    files = (state.get("project") or {}).get("files") or {}
    found = []
    for h in state.get("holes") or []:
        src = files.get(h.get("file", ""), "")
        lines = src.splitlines()
        begin = next((i for i, ln in enumerate(lines, 1) if h.get("begin_marker", "\0") in ln), 0)
        end = next((i for i, ln in enumerate(lines, 1) if h.get("end_marker", "\0") in ln), 0)
        at = [int(m.group(2)) for m in _WHERE.finditer(text) if h.get("file", "").endswith(m.group(1).split("/")[-1])]
        if f"Hole_{h['name']}" in text or any(begin <= ln <= end for ln in at):
            found.append(h["name"])
    return found


def suggest(state: RunState) -> tuple[str, str]:
    """(fault, why): plan, dsl or ascendc."""
    f = failure(state)
    holes = [h["name"] for h in state.get("holes") or []]
    if f is None:
        return "dsl", "no failure is recorded"
    if f["source"] == "lowering":
        return "dsl", "the code generator could not lower the program: rewrite the construct it names"
    if f["source"] == "dsl_check":
        return "dsl", "the DSL program, interpreted on the task's inputs, does not match the reference"
    text = "\n".join(f["details"])
    named = holes_named(state, text)
    if named:
        return "ascendc", f"the diagnostics point into hole {', '.join(named)}"
    if f["stage"] in ("lint", "build"):
        return "ascendc", ("the AscendC written into the holes does not compile" if holes
                           else "the generated AscendC does not compile: patch it, or avoid the construct in the DSL")
    if holes:
        return "ascendc", ("the DSL program matched the reference in the interpreter, so the kernel's difference "
                           f"most likely comes from the hand-written hole(s) {', '.join(holes)}")
    return "dsl", "the kernel differs from the interpreted DSL program: avoid the construct in the DSL"
