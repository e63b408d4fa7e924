"""What binding a task case onto a kernel project produces, and the task's values by name.

A task's values are the forward arguments (named by `Model.forward`'s parameters), the init
arguments (named by `Model.__init__`'s) and the reference model's parameters and buffers (`weight`,
`norm.bias`, ...). Binders (`bind_msopgen`, `bind_launch`) match them onto the project's inputs,
attributes or kernel arguments and say, in `notes`, wherever the match was a guess."""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from kernelwright.tools.tasks.reference import RefRun, RefValue
from kernelwright.tools.toolchain import Case


@dataclass
class TaskValue:
    name: str
    origin: str          # input | init | param | call (made by the task's ModelNew)
    index: int           # position among its origin's values
    value: RefValue

    @property
    def label(self) -> str:
        return f"{self.origin} '{self.name}'"


def norm(name: str) -> str:
    """Names compare without case and separators: `additional_out` ~ `additionalOut`."""
    return re.sub(r"[^0-9a-z]", "", name.lower())


def task_values(run: RefRun, forward_params: list[str], init_params: list[str]) -> list[TaskValue]:
    # values an NPUKernelBench task's ModelNew makes before it calls the operator (gelu(x) for GeluGrad, a
    # cast) come first: that is what the benchmark hands the kernel
    values = [TaskValue(run.call_names[i] if i < len(run.call_names) else f"call{i}", "call", i, v)
              for i, v in enumerate(run.call) if i < len(run.call_from) and run.call_from[i] is None]
    values += [TaskValue(forward_params[i] if i < len(forward_params) else f"arg{i}", "input", i, v)
               for i, v in enumerate(run.args)]
    values += [TaskValue(init_params[i] if i < len(init_params) else f"init{i}", "init", i, v)
               for i, v in enumerate(run.init)]
    values += [TaskValue(v.name or f"param{i}", "param", i, v) for i, v in enumerate(run.params)]
    return values


def name_matches(value: TaskValue, wanted: str) -> bool:
    w = norm(wanted)
    return norm(value.name) == w or (value.origin == "param" and norm(value.name.rsplit(".", 1)[-1]) == w)


def abbreviates(value: TaskValue, wanted: str) -> bool:
    """One name is the other cut short (`eps` ~ `epsilon`, `dim` ~ `dims`), at least three characters: how a
    task's `Model(eps=...)` names the OpDef attribute `epsilon` (NPUKernelBench LayerNormV4)."""
    a, b = sorted((norm(value.name), norm(wanted)), key=len)
    return len(a) >= 3 and b.startswith(a)


class Bound(BaseModel):
    """A case ready for the toolchain, or the reason there is none."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    case: Case | None = None
    inputs: dict[str, np.ndarray] = Field(default_factory=dict)   # kernel input name -> data passed (for mutation)
    inplace: dict[str, int] = Field(default_factory=dict)        # kernel input name -> task arg the reference mutates
    outputs: list[tuple[int, str]] = Field(default_factory=list)  # (reference output index, kernel output name)
    notes: list[str] = Field(default_factory=list)
    problem: str | None = None
    unsupported: bool = False                                     # the backend cannot run it (not the kernel's fault)


def expected_outputs(run: RefRun) -> list[RefValue]:
    """What the kernel must produce: the reference's outputs, or, for an in-place reference that returns
    nothing, the final state of the inputs it modified."""
    if run.outputs:
        return [v for v in run.outputs if v.kind == "tensor"]
    return [run.post[i] for i in sorted(run.post)]


def match_outputs(expected: list[RefValue], got: dict[str, np.ndarray], order: list[str]) -> tuple[list[tuple[int, str]], list[str]]:
    """Pair reference outputs with kernel outputs: positionally when the counts agree, else each
    reference output takes the first unused kernel output of the same shape."""
    notes: list[str] = []
    if len(expected) == len(order):
        return list(enumerate(order)), notes
    pairs, used = [], set()
    for i, ref in enumerate(expected):
        same = [n for n in order if n not in used and n in got and list(got[n].shape) == list(ref.shape or [])]
        pick = same[0] if same else next((n for n in order if n not in used), None)
        if pick is None:
            continue
        if len(same) > 1:
            notes.append(f"ambiguous: reference output {i} {tuple(ref.shape or [])} could be any of "
                         f"{', '.join(same)}; compared with {pick}")
        used.add(pick)
        pairs.append((i, pick))
    notes.append(f"the reference returns {len(expected)} output(s) and the kernel has {len(order)} "
                 f"({', '.join(order)}); compared {', '.join(f'{i}->{n}' for i, n in pairs)}")
    return pairs, notes
