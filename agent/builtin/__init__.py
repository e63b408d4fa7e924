"""The builtin writer: no model. It traces the reference with torch.fx, recognises the patterns the DSL
covers and emits the DSL program directly; for anything else it says plainly which ops it could not
handle."""
from __future__ import annotations

from typing import Any

from kernelwright.agent.builtin.graphview import OpGraph
from kernelwright.agent.builtin.patterns import COVERS, Emitted, patterns
from kernelwright.agent.builtin.patterns.compose import attempt
from kernelwright.agent.state import Plan
from kernelwright.agent.writers import WriteRequest, WriteResult

STRUCTURAL = {"getitem", "size", "dim", "numel", "get_attr"}


def recognise(trace: dict[str, Any] | None, name: str) -> tuple[Emitted | None, str]:
    """The program for a traced reference, or why there is none (naming the ops it could not handle)."""
    if not trace or not trace.get("ok"):
        why = (trace or {}).get("error", "no trace")
        return None, f"the builtin writer needs a torch.fx trace of the reference, and tracing failed: {why}"
    g = OpGraph(trace)
    found = patterns()
    for p in found:
        emitted = p.match(g, name)
        if emitted is not None:
            return emitted, ""
    known = set().union(*(p.KNOWN for p in found)) | STRUCTURAL
    unknown = sorted({n.op for n in g.compute if n.op not in known})
    families = COVERS
    composer = f" (the general composer: {attempt(g, name)[1]})"
    if unknown:
        return None, (f"the builtin writer cannot handle {', '.join(unknown)} (in {name}); it covers {families}{composer}. "
                      "Configure a model (--model NAME) to write this kernel")
    ops = ", ".join(dict.fromkeys(g.ops())) or "no ops"
    return None, (f"the builtin writer knows each op of {name} ({ops}) but not this combination of them, shapes or "
                  f"dtypes; it covers {families}{composer}. Configure a model (--model NAME) to write this kernel")


def builtin_plan(trace: dict[str, Any] | None) -> tuple[Plan | None, str]:
    emitted, why = recognise(trace, (trace or {}).get("task") or "task")
    if emitted is None:
        return None, why
    return Plan(category=emitted.family, math=emitted.summary,
                dtype_strategy="load in the input dtype, compute in fp32, cast back on store",
                core_split="the DSL example's split for this family", tiling="from the UB budget in the tiling function",
                tail_handling="explicit element counts (A.tiles yields the ragged last tile)",
                pitfalls=[]), ""


class BuiltinWriter:
    name = "builtin"

    def write(self, req: WriteRequest) -> WriteResult:
        if req.previous is not None and req.feedback is None and req.check is not None and not req.check.ok:
            return WriteResult(unsupported=f"the builtin writer's program failed its check ({req.check.summary}) "
                                           "and it cannot repair it; configure a model (--model NAME)")
        emitted, why = recognise(req.trace, req.task.name)
        if emitted is None:
            return WriteResult(unsupported=why)
        return WriteResult(dsl=emitted.source)
