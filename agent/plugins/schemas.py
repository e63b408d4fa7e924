"""Typed inputs and results of the four plugin operations (generate, verify, lower DSL, search docs).
The MCP server and the LangChain tools both publish these schemas; the descriptions are what a
calling model reads."""
from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

Backend = Literal["sim", "cann", "cann-syntax"]


class GenerateInput(BaseModel):
    task: str = Field(description="path of a task: a .py defining Model, get_inputs, get_init_inputs (KernelBench "
                                  "form) or an NPUKernelBench task directory")
    model: str | None = Field(None, description="model for the agent's nodes: 'builtin' (no LLM), 'replay:FILE', or a "
                                                "litellm name; default: the server's configuration")
    backend: Backend = Field("sim", description="toolchain: sim (CPU emulation), cann (CANN + NPU)")
    tolerance: str = Field("auto", description="tolerance preset: auto (the task's benchmark's own, ours for other "
                                               "tasks), default, mkb, npukb, kernelbench, akb, mere")
    max_steps: int | None = Field(None, ge=1, le=200, description="cap on node runs over the whole task")


class GenerateOutput(BaseModel):
    run_id: str
    status: str = Field(description="passed | failed | budget_exhausted | environment_error | interrupted")
    ok: bool
    reason: str
    artifacts: str = Field(description="the run's artifact directory (trajectory, verdicts, project versions)")
    kernel_dir: str | None = Field(None, description="the final kernel project (op_host/, op_kernel/, kernel.dsl.py)")
    verdict: dict[str, Any] | None = Field(None, description="the last referee verdict in brief")
    path: list[str] = Field(default_factory=list, description="the nodes the run went through")
    usage: dict[str, float] = Field(default_factory=dict, description="tokens, cost_usd, model calls, seconds")
    dsl: str | None = Field(None, description="the final DSL program")
    kernel_source: str | None = Field(None, description="the device kernel source (truncated when long)")


class VerifyInput(BaseModel):
    project: str = Field(description="a kernel project: msopgen directory (op_host/ + op_kernel/), kernel-launch "
                                     "source, or a benchmark submission file")
    task: str = Field(description="the task to judge against: a task .py or an NPUKernelBench task directory")
    backend: Backend = Field("sim", description="toolchain: sim (CPU emulation), cann (CANN + NPU)")
    tolerance: str | None = Field(None, description="tolerance preset: default, mkb, npukb, kernelbench, akb, mere; "
                                                    "default: the task's benchmark's own preset")
    launch: str | None = Field(None, description="launch spec JSON file for a kernel-launch project")
    trials: int | None = Field(None, ge=1, le=20, description="seeded trials per case (default 3 for one case, else 1)")


class StageLine(BaseModel):
    name: str
    status: str
    summary: str


class VerifyOutput(BaseModel):
    status: Literal["pass", "fail", "error"]
    ok: bool
    summary: str
    failing_stage: str = Field(description="the first stage that did not pass, or 'pass'")
    stages: list[StageLine]
    details: list[str] = Field(default_factory=list, description="diagnostics and mismatches, rendered with hints")
    backend: str
    tolerance: str


class LowerInput(BaseModel):
    dsl: str = Field(description="the DSL program's source text")
    task: str | None = Field(None, description="a task .py to check the program against before lowering (its "
                                               "reference is run and compared); without it only the static rules run")
    name: str | None = Field(None, description="operator type for the project (default: the task's, else from the "
                                               "kernel name)")


class LowerOutput(BaseModel):
    ok: bool
    stage: str = Field(description="parse | rules | interpret | compare | error | lower | pass")
    summary: str
    diagnostics: list[str] = Field(default_factory=list, description="rule, DSL line, values and fix hint")
    project_dir: str | None = None
    files: dict[str, str] = Field(default_factory=dict, description="the lowered project's files (truncated when long)")
    holes: list[str] = Field(default_factory=list, description="extern holes left for AscendC to fill")


class SearchInput(BaseModel):
    query: str = Field(max_length=2000, description="a question, an AscendC API name, or a compiler message "
                                                    "(at most 2000 characters)")
    k: int = Field(5, ge=1, le=20, description="number of passages")
    kinds: list[Literal["api", "concept", "example", "fix", "hardware", "user"]] | None = Field(
        None, description="only these document kinds")
    soc: str | None = Field(None, description="only documents that apply to this SoC, e.g. Ascend910B2")


class PassageOut(BaseModel):
    doc_id: str
    kind: str
    title: str
    cite: str = Field(description="source file, lines and heading")
    match: str = Field(description="how it was found: exact symbol lookup or search")
    score: float
    text: str


class SearchOutput(BaseModel):
    passages: list[PassageOut]
