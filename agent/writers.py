"""The `Writer` seam: a plan (and, on a repair, the previous program with what was wrong) -> a DSL
program. `LlmWriter` asks a model; `BuiltinWriter` (agent.builtin) emits the program from the traced
reference, with no model."""
from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict

from kernelwright.agent.dslkit import reference_text
from kernelwright.agent.models.base import ChatModel, Message, Reply
from kernelwright.agent.ascendc_skeleton import declared
from kernelwright.agent.prompting import chip_facts, examples, render
from kernelwright.agent.replies import FormatError, one_code_block
from kernelwright.agent.state import DslCheck, Feedback, Plan, VerdictBrief

DSL_LANGS = ("python", "py", "dsl")


class WriteRequest(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    task: Any                          # Task
    source: str                        # the reference's Python source
    plan: Plan | None
    trace: dict[str, Any] | None
    soc: str | None = None
    previous: str | None = None        # the last DSL program
    check: DslCheck | None = None      # what its check found
    verdict: VerdictBrief | None = None
    feedback: Feedback | None = None
    reflection: list[Message] = []     # the last unusable reply and what was wrong with it
    passages: list[dict[str, str]] = []  # API cards of the operations the plan names


class WriteResult(BaseModel):
    dsl: str | None = None
    reply: Reply | None = None
    problem: str | None = None         # the reply had no usable program (format error)
    unsupported: str | None = None     # the writer cannot write this operator (and says why)


@runtime_checkable
class Writer(Protocol):
    name: str

    def write(self, req: WriteRequest) -> WriteResult: ...


class LlmWriter:
    def __init__(self, model: ChatModel):
        self.model = model
        self.name = f"llm:{model.name}"

    def messages(self, req: WriteRequest) -> list[Message]:
        family = req.plan.category if req.plan else None
        about = " ".join([req.task.name, *((req.trace or {}).get("ops") or [])])
        return render("dsl_writer", task=req.task, source=req.source, plan=req.plan, trace=req.trace,
                      chip=chip_facts(req.soc), reference=reference_text(req.soc), examples=examples(family, about=about),
                      previous=req.previous, check=req.check, verdict=req.verdict, feedback=req.feedback,
                      passages=req.passages, binding=declared(req.trace or {}, fields=False)) + req.reflection

    def write(self, req: WriteRequest) -> WriteResult:
        reply = self.model.complete(self.messages(req), node="dsl_writer")
        try:
            return WriteResult(dsl=one_code_block(reply.content, DSL_LANGS, "the whole DSL program"), reply=reply)
        except FormatError as e:
            return WriteResult(reply=reply, problem=str(e))


def writer_for(model: ChatModel | None) -> Writer:
    if model is None:
        from kernelwright.agent.builtin import BuiltinWriter
        return BuiltinWriter()
    return LlmWriter(model)
