"""The `Toolchain` seam: build a kernel project, run it on one case. Results are typed and
staged; a failing kernel is data (a status and diagnostics), never an exception. A toolchain says
what it can do (`Capabilities`, its SoC), so the referee never asks which backend it is."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from kernelwright.tools.hardware import SocProfile
from kernelwright.tools.npu_check import npu_check_class
from kernelwright.tools.opspec import OpSpec

if TYPE_CHECKING:   # a project imports the toolchain's results; the seam only names it
    from kernelwright.tools.project import KernelProject

# Elements per case a CPU emulation runs (inputs, init tensors and weights): NPU-sized cases would crawl,
# so the emulations (`sim`, the DSL interpreter) run every case shrunk to this budget, both alike.
EMULATION_BUDGET = 1 << 20

# Compile-error taxonomy of AscendKernelGen's failure analysis, plus our own for run time.
Category = Literal[
    "api_signature",        # wrong API name, arity or overload ("no member named", "no matching function")
    "data_type",            # type deduction, conversions, narrowing, unsupported dtype
    "scope_lifetime",       # undeclared identifiers, redefinitions, use outside scope
    "memory_object",        # misuse of tensors/queues/objects (bind rvalue, deleted functions, TBuf as TQue)
    "syntax_structure",     # parse errors, missing braces/semicolons, bad declarations
    "macro_preprocessing",  # includes and macros
    "link",                 # undefined symbols at link time
    "runtime_rule",         # a hardware rule the emulation checks at run time
    "other",
]


class Diagnostic(BaseModel):
    """One finding: a compiler message or a run-time rule violation."""

    stage: Literal["lint", "build", "run", "host"]
    severity: Literal["error", "warning", "note"] = "error"
    message: str
    rule: str | None = None          # run-time rule id (e.g. "ub.capacity") or compiler flag
    category: Category = "other"
    file: str | None = None          # path relative to the project when it is one of its files
    line: int | None = None
    column: int | None = None
    symbol: str | None = None        # the API or identifier the message is about
    hint: str | None = None
    notes: list[str] = Field(default_factory=list)
    values: dict[str, Any] = Field(default_factory=dict)
    block: int | None = None
    npu_check: str | None = None     # the class CANN's npu_check reports for this fault (tools/npu_check.py)

    def model_post_init(self, _context: Any) -> None:
        if self.npu_check is None and self.rule:
            self.npu_check = npu_check_class(self.rule, self.message, self.symbol)

    def location(self) -> str:
        if not self.file:
            return ""
        return f"{self.file}:{self.line}" + (f":{self.column}" if self.column else "") if self.line else self.file

    def render(self) -> str:
        where = self.location()
        head = f"{where}: " if where else ""
        block = f" [block {self.block}]" if self.block is not None else ""
        rule = f" [{self.rule}{', npu_check ' + self.npu_check if self.npu_check else ''}]" if self.rule else ""
        text = f"{head}{self.severity}{rule}{block}: {self.message}"
        if self.hint:
            text += f"\n  hint: {self.hint}"
        return text


class BuildResult(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    toolchain: str
    status: Literal["ok", "compile_error", "environment_error"]
    project: str
    diagnostics: list[Diagnostic] = Field(default_factory=list)
    log: str = ""                    # raw compiler output (trimmed)
    seconds: float = 0.0
    cache_hits: int = 0
    artifacts: dict[str, str] = Field(default_factory=dict)   # role -> path (executables, descriptions)
    kernels: list[str] = Field(default_factory=list)
    variants: list[str] = Field(default_factory=list)          # dtype variants compiled
    op: OpSpec | None = None         # msopgen: the operator its OpDef registers (inputs/outputs/attrs, type)
    compiler: str = ""

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "error"]


class ArgSpec(BaseModel):
    """One kernel argument of a kernel-launch case."""

    kind: Literal["tensor", "int", "float", "bytes", "null", "workspace", "tiling"]
    name: str | None = None          # tensor: key in Case.inputs / Case.outputs
    value: Any = None                # int / float value, or bytes as hex for "bytes"
    bytes: int = 0                   # workspace size


class OutputSpec(BaseModel):
    shape: tuple[int, ...]
    dtype: str                       # numpy dtype name ("float16", "bfloat16", "int8", ...)
    poison: str | None = None        # one element's bytes (hex) the output starts as (default: all 0xFF)


class Case(BaseModel):
    """One execution of a kernel: inputs, expected outputs and (for kernel-launch projects) the launch."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    inputs: dict[str, np.ndarray] = Field(default_factory=dict)
    outputs: dict[str, OutputSpec] = Field(default_factory=dict)  # msopgen: optional, InferShape fills it
    attrs: dict[str, Any] = Field(default_factory=dict)
    # kernel-launch projects
    kernel: str | None = None
    block_dim: int | None = None
    args: list[ArgSpec] | None = None
    tiling_key: int = 0
    soc: str | None = None
    timeout_s: float = 60.0
    label: str = ""
    # run only this many of the launch's blocks (first, last, spread between) on GM sized for the case; 0: every
    # block. The result then holds only the bytes those blocks wrote (RunResult.written)
    sample_blocks: int = 0
    # run for the instruction trace only (a speed estimate at the task's own shapes, tools/referee/speed_shapes.py):
    # inputs given as zero-stride arrays go in as lazily committed zeros, no race check, no outputs read back
    trace_only: bool = False
    # a trace-only run's blocks stop once their copies to or from GM moved this many bytes (their traces say they were
    # cut; tools/referee/speed_extend.py extends them by their steady state); 0: every block runs to its end
    trace_budget: int = 0
    # inputs too big to hold (sampled launches only): made by the runner on first touch from this seed and the
    # element offset (runtime/generated.cpp; referee/region_values.py makes the same values); the array in
    # `inputs` is a zero-stride placeholder giving the shape and dtype
    generated: dict[str, int] = Field(default_factory=dict)


class BadCase(ValueError):
    """A case that does not fit the build (missing argument, unsupported dtype, ...): a backend turns
    it into a `bad_case` RunResult."""


class RunResult(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    toolchain: str
    status: Literal["ok", "crash", "timeout", "rule_violation", "bad_case", "host_error", "build_error"]
    outputs: dict[str, np.ndarray] = Field(default_factory=dict)
    diagnostics: list[Diagnostic] = Field(default_factory=list)
    block_dim: int = 0
    block_status: list[str] = Field(default_factory=list)
    tiling: dict[str, Any] = Field(default_factory=dict)      # msopgen: key, sizes, workspace, data hex
    counters: list[dict[str, Any]] = Field(default_factory=list)  # per block
    trace: Any = Field(default=None, exclude=True)  # the instruction trace (perf.trace.KernelTrace) when the backend records one
    stdout: str = ""
    seconds: float = 0.0
    detail: str = ""
    sampled: list[int] = Field(default_factory=list)    # a sampled run: the blocks that ran (empty: all of them)
    # a sampled run: per buffer read back, the byte ranges (start, length) the sampled blocks wrote; the rest of
    # each output array is zero, not a result
    written: dict[str, list[tuple[int, int]]] = Field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "error"]


class Capabilities(BaseModel):
    """What a backend can do. The referee reads these; it never tests a backend's name."""

    model_config = ConfigDict(frozen=True)

    dtypes: frozenset[str] | None = None   # NumPy-style dtypes its kernels can be given; None: whatever they declare
    shrink_budget: int | None = None       # runs each case shrunk to at most this many elements (an emulation);
                                           # None: at the task's own shapes
    runs: bool = True                      # False: it only compile-checks; no case can run


@runtime_checkable
class Toolchain(Protocol):
    name: str
    soc: SocProfile                        # the SoC it builds and runs for when a call names none
    capabilities: Capabilities
    # Said in every verdict when the backend's steps run outside our sandbox (a device driver needs the host)
    uncontained: str = ""

    def build(self, project: KernelProject, *, soc: str | None = None) -> BuildResult: ...

    def run(self, build: BuildResult, case: Case) -> RunResult: ...

    # Backends subclass this Protocol to inherit the defaults (`uncontained` above and the two below), so callers never probe with hasattr.
    def runtime_problem(self) -> str | None:
        """Why no case can run here, as one line (None: cases can run)."""
        return None

    def close(self) -> None:
        """Release what the backend holds (the NPU workers)."""


__all__ = ["ArgSpec", "BadCase", "BuildResult", "Capabilities", "Case", "EMULATION_BUDGET", "Category", "Diagnostic",
           "OutputSpec", "RunResult", "Toolchain"]
