"""Task: what operator to build, as a PyTorch reference in the KernelBench form.

A task names a Python file defining `Model` (the reference) and the functions that make its
inputs: `get_inputs()` + `get_init_inputs()` (KernelBench, MultiKernelBench), `get_input_groups()`
(MultiKernelBench's port of NPUKernelBench: one group per JSON line), or `get_inputs(param, device)`
per CSV row (NPUKernelBench). The task itself holds no tensors: a worker subprocess imports the
reference and makes inputs on demand (`kernelwright.tools.tasks.reference`), so loading a task never
imports torch. Loaders for each layout live in `kernelwright.tools.tasks`.
"""
from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from kernelwright.errors import UserError

Layout = Literal["py", "mkb", "npukb", "kernelbench", "sol"]
InputKind = Literal["get_inputs", "input_groups", "npukb_rows"]


class TaskError(UserError):
    """The input is not a task we can read (bad input, not our bug)."""


class TaskCase(BaseModel):
    """One shape/dtype case of a task. Trials of a case differ only in their seed."""

    id: str                                   # stable label for reports: "default", "group 3", "case_id 5"
    index: int = 0                            # which input group / CSV row the worker makes
    params: dict[str, Any] = Field(default_factory=dict)   # NPUKernelBench: the CSV row, typed as pandas would
    dtype: str | None = None                  # dtype variant: floating inputs (and weights) are cast to it
    shapes: list[list[int]] | None = None     # declared input shapes when the layout states them (JSON lines)


class Task(BaseModel):
    name: str                                 # as the benchmark spells it ("19_ReLU", "AbsMath")
    op_type: str                              # a valid CamelCase operator type ("Op19ReLU")
    kernel_name: str                          # the snake_case kernel entry msopgen derives from op_type
    layout: Layout
    source: str                               # the file defining Model
    inputs_source: str | None = None          # the file defining get_inputs, when not `source`
    input_kind: InputKind = "get_inputs"
    cases: list[TaskCase] = Field(default_factory=list)
    category: str | None = None
    level: str | None = None
    description: str | None = None            # NPUKernelBench api_desc.md
    golden: str | None = None                 # a known-good project (NPUKernelBench answer/0)
    binding: str | None = None                # NPUKernelBench validation/pybind.cpp
    custom_check: bool = False                # prepare_inputs defines custom_check_precision
    notes: list[str] = Field(default_factory=list)

    def case(self, case_id: str) -> TaskCase:
        for c in self.cases:
            if c.id == case_id:
                return c
        raise TaskError(f"task {self.name} has no case {case_id!r}; cases: {', '.join(c.id for c in self.cases)}")


CASE_DTYPES = ("float16", "bfloat16", "float32", "float64")   # what a case's floating tensors can be cast to


def with_dtype_variants(cases: list[TaskCase], dtypes: list[str] | None) -> list[TaskCase]:
    """Repeat every case once per dtype variant (labels get the dtype appended)."""
    if not dtypes:
        return cases
    bad = [d for d in dtypes if d not in CASE_DTYPES]
    if bad:
        raise TaskError(f"dtype {', '.join(map(repr, bad))}: a case runs in one of {', '.join(CASE_DTYPES)} "
                        "(its floating-point tensors are cast)")
    return [c.model_copy(update={"id": f"{c.id} {d}", "dtype": d}) for c in cases for d in dtypes]
