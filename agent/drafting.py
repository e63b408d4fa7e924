"""Draft a task's PyTorch reference from a plain-language description (the planner's first job when a
task starts from words). Needs a model: without one there is no honest way to guess the math."""
from __future__ import annotations

import ast

from kernelwright.agent.models.base import ChatModel
from kernelwright.agent.prompting import render
from kernelwright.agent.replies import FormatError, one_code_block

NEEDED = ("Model", "get_inputs", "get_init_inputs")


def check_reference(source: str) -> list[str]:
    """What a drafted reference lacks (empty when it has the KernelBench shape); it is parsed, never run."""
    try:
        tree = ast.parse(source)
    except SyntaxError as e:
        return [f"not valid Python (line {e.lineno}: {e.msg})"]
    names = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    return [f"no {n}" for n in NEEDED if n not in names]


def draft_reference(description: str, model: ChatModel) -> str:
    """The reference program's source. Raises FormatError when the reply has no usable program."""
    reply = model.complete(render("draft_reference", description=description), node="planner")
    source = one_code_block(reply.content, ("python", "py"), "the reference program")
    missing = check_reference(source)
    if missing:
        raise FormatError(f"the drafted reference is not a KernelBench task: {', '.join(missing)}")
    return source
