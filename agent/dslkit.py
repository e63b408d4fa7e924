"""The agent's one door to the DSL (`kernelwright.tools.dsl`): check a program against a task, lower it
to a KernelProject, fill its holes. Everything else in the agent deals in source text, the records
below (`DslCheck`, `HoleWork`) and projects, so the DSL can change behind these few functions."""
from __future__ import annotations

import logging
import re
import time
from typing import Any, Callable, Literal

import numpy as np
from pydantic import BaseModel, Field

from kernelwright.tools.dsl.holes import Hole
from kernelwright.tools.project import KernelProject
from kernelwright.tools.task import Task

DSL_FILE = "kernel.dsl.py"
log = logging.getLogger(__name__)


class DslCheck(BaseModel):
    """The DSL program checked at once: parsed, held to the static rules, interpreted on the task's
    inputs and compared with the reference."""

    ok: bool
    stage: Literal["parse", "rules", "interpret", "compare", "pass", "error"]
    summary: str
    diagnostics: list[str] = Field(default_factory=list)   # rendered: rule, DSL line, values, hint
    seconds: float = 0.0


class HoleWork(Hole):
    """A hole of the lowered project, with what the agent did about it."""

    brief: str = ""                    # what its body must do, for the model
    fill: str | None = None            # the body written into it
    attempts: int = 0


class NumpyUfuncs(dict):
    """`A.extern(..., numpy="np.tanh", n=n)`: an elementwise unary NumPy ufunc as a hole's semantics for
    the interpreter (names it does not know fall through to the DSL's own registry, tools.dsl.externs)."""

    def __bool__(self) -> bool:          # empty, yet it resolves np.<ufunc> names
        return True

    def get(self, key: str, default: Any = None) -> Callable | None:
        fn = getattr(np, key[3:], None) if key.startswith("np.") else None
        if not isinstance(fn, np.ufunc) or fn.nin != 1:
            return default

        def unary(reads: list[np.ndarray], writes: list[np.ndarray], n: int | None = None, **_: Any) -> None:
            count = len(writes[0]) if n is None else int(n)
            src = reads[0][:count].astype(np.float32)
            writes[0][:count] = fn(src).astype(writes[0].dtype)
        return unary


UFUNC_SEMANTICS = "`numpy=\"np.<ufunc>\"` (n=): an elementwise unary NumPy ufunc (np.tanh, np.log1p, ...): " \
                  "writes[0][:n] = ufunc(reads[0][:n]) computed in fp32."


def reference_text(soc: str | None = None) -> str:
    """The DSL reference the writer is shown, generated from the checker's tables for the SoC's architecture,
    with the extern semantics this door adds (NumpyUfuncs)."""
    from kernelwright.tools.dsl.reference_card import reference_card
    from kernelwright.tools.hardware import load_soc
    return reference_card(load_soc(soc).npu_arch, (UFUNC_SEMANTICS,))


def offered(soc: str | None = None) -> str:
    """What the DSL offers, in one paragraph for the planner (which must choose between the DSL and the direct
    AscendC route): every call the reference card documents, by name, so it follows the checker's tables."""
    card = reference_text(soc)

    def section(title: str) -> str:
        return card.split(title, 1)[1].split("\n\n", 1)[0] if title in card else ""

    def names(text: str) -> list[str]:
        return sorted(set(re.findall(r"\bA\.\w+", text)), key=text.index)
    prims = names(section("Primitives:"))
    vector = names(section("Vector instructions"))
    scalar = [n for n in names(section("Scalar functions")) if n != "A.f"]     # A.f: the card's placeholder
    loops = names(section("Loops:").split("\n", 1)[0])
    externs = re.findall(r'`numpy="([\w.<>]+)"`', card)
    return (f"DSL loops: {', '.join(loops)}. Primitives: {', '.join(prims)}. Vector instructions: "
            f"{', '.join(vector)}. Scalar functions: {', '.join(scalar)}. Extern holes with semantics: "
            f"{', '.join(externs)}. Nothing else: an AscendC API "
            "not listed here (e.g. CumSum, Select, Sort, Gather with byte offsets, DataCopyPad's left padding, "
            "Load3D/img2col, masks computed per element) is not a DSL call.")


def parse(source: str):
    from kernelwright.tools.dsl.parse_program import parse_program
    return parse_program(source, DSL_FILE)


def check(source: str, task: Task, worker: Any, *, soc: str | None = None, tolerance: str = "auto") -> DslCheck:
    """Parse, static rules, then the interpreter on every case of the task against the reference, with
    the run's tolerance (the kernel's verdict uses the same one)."""
    from kernelwright.tools.dsl.check import check as dsl_check
    from kernelwright.tools.dsl.errors import DslError, findings
    from kernelwright.tools.hardware import load_soc

    start = time.monotonic()
    try:
        program = parse(source)
    except DslError as e:
        found = findings(e)
        more = f" (and {len(found) - 1} more finding(s) below)" if len(found) > 1 else ""
        return DslCheck(ok=False, stage="parse",
                        summary=f"the program does not parse: [{e.diag.rule}] {e.diag.message}{more}",
                        diagnostics=[d.render(source) for d in found], seconds=time.monotonic() - start)
    try:
        report = dsl_check(program, task, worker=worker, soc=load_soc(soc), tolerance=tolerance, externs=NumpyUfuncs())
    except Exception as e:   # the checker failing on model output must not end the run: the model sees it
        log.exception("the DSL check failed on a program")
        return DslCheck(ok=False, stage="interpret", seconds=time.monotonic() - start,
                        summary=f"the checker failed on this program: {type(e).__name__}: {str(e)[:300]}",
                        diagnostics=[internal_finding(e)])
    seconds = time.monotonic() - start
    static = [d.render(source) for d in report.diagnostics if d.severity == "error"]
    if static:
        return DslCheck(ok=False, stage="rules", summary=f"{len(static)} static rule(s) broken", diagnostics=static,
                        seconds=seconds)
    diags = [f"case {c.case}: " + d.render(source) for c in report.cases for d in c.diagnostics if d.severity == "error"]
    if diags:
        return DslCheck(ok=False, stage="interpret", summary=f"the interpreter stopped: {diags[0].splitlines()[0]}",
                        diagnostics=diags[:12] + binding_notes(report.cases), seconds=seconds)
    bad = [c for c in report.cases if c.status == "fail"]
    if bad:
        lines = [f"case {c.case} (shapes {c.shapes}): {m}" for c in bad for m in c.mismatches]
        return DslCheck(ok=False, stage="compare", diagnostics=lines[:12] + binding_notes(bad), seconds=seconds,
                        summary=f"{len(bad)} case(s) differ from the reference (tolerance {tolerance_text(tolerance)})")
    judged = [c for c in report.cases if c.status == "pass"]
    if not judged:
        why = "; ".join(n for c in report.cases for n in c.notes[-1:]) or "the task has no case"
        return DslCheck(ok=False, stage="error", summary=f"no case could be checked: {why}", seconds=seconds)
    return DslCheck(ok=True, stage="pass", seconds=seconds,
                    summary=f"{len(judged)}/{len(report.cases)} case(s) match the reference (tolerance {tolerance})")


def tolerance_text(name: str) -> str:
    """A preset's name with its values (the model was told "tolerance default" and could not tell how close)."""
    from kernelwright.tools.referee.tolerance import PRESETS
    preset = PRESETS.get(name)
    return preset.describe() if preset is not None else name


def binding_notes(cases: list[Any]) -> list[str]:
    """How the task's values reached the program where it was not by name (an attribute bound by position to
    an init argument of another name): the mitl conv1d program declared stride, padding, dilation and got
    in_channels, out_channels, kernel_size, and its assert said only that stride was not 1."""
    seen: list[str] = []
    for c in cases:
        for note in c.notes:
            if ("by position" in note or "not passed to the kernel" in note) and note not in seen:
                seen.append(note)
    return [f"binding: {n}" for n in seen[:6]]


def lower(source: str, task: Task) -> tuple[KernelProject, list[HoleWork]] | str:
    """The project and its holes, or why the generator could not lower the program."""
    from kernelwright.tools.dsl.errors import DslError
    from kernelwright.tools.dsl.lower import LowerError, lower as dsl_lower
    try:
        project = dsl_lower(parse(source), task.op_type)
    except (DslError, LowerError) as e:
        return str(e)
    except Exception as e:   # a generator failure on model output is reported to the model, not raised
        log.exception("lowering failed on a checked program")
        return internal_finding(e)
    holes = [HoleWork.model_validate(h) for h in project.meta.get("holes", [])]
    return project, [h.model_copy(update={"brief": hole_brief(h)}) for h in holes]


def internal_finding(e: Exception) -> str:
    """What the model is told when our own code fails on its program (logged in full for us)."""
    return (f"error [internal] {type(e).__name__}: {str(e)[:300]}\n  hint: kernelwright's checker or generator failed "
            "on this program (a bug on our side, logged); express the step differently, e.g. with other primitives")


def hole_brief(h: HoleWork) -> str:
    lines = [h.spec]
    for b in h.buffers:
        where = f", {b.queue}" if b.queue else ""
        cap = f", capacity {b.capacity} elements" if b.capacity else ""
        lines.append(f"- {b.access}s {b.kind} `{b.cpp}`{cap}{where}")
    lines += [f"- parameter `{ctype} {name}`" for name, ctype in h.params.items()]
    return "\n".join(lines)


def kernel_file(project: KernelProject) -> str:
    return project.kernel_sources()[0]


def fill_holes(project: KernelProject, holes: list[HoleWork]) -> KernelProject:
    """Put each hole's body between its markers (the markers stay, so a hole can be filled again)."""
    files = dict(project.files)
    for h in holes:
        if not h.fill:
            continue
        text = files[h.file]
        begin, end = text.find(h.begin_marker), text.find(h.end_marker)
        head = text.index("{", text.index(h.function + "(", begin)) + 1
        tail = text.rindex("}", head, end)
        body = "\n".join("        " + line if line.strip() else "" for line in h.fill.strip("\n").splitlines())
        files[h.file] = text[:head] + "\n" + body + "\n    " + text[tail:]
    return project.model_copy(update={"files": files})
