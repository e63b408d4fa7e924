"""InterpToolchain: the DSL interpreter as a backend of the Toolchain seam, so the referee judges a
DSL program exactly as it judges a kernel (same cases, shrinking, binding, tolerances, per-task
checks). build = parse + static rules + type check; run = interpret the bound case.

The DSL's findings travel as `Diagnostic`s (file = the program, line = the DSL line, rule, values,
hint, block) and come back as `DslDiagnostic`s with `dsl_diagnostic`, nothing lost on the way."""
from __future__ import annotations

import hashlib
import time
from typing import Any, Callable

import numpy as np

from kernelwright.tools.dsl import ir, rules
from kernelwright.tools.dsl.dtypes import DTYPES
from kernelwright.tools.dsl.errors import DslDiagnostic, DslError
from kernelwright.tools.dsl.interp.run import interpret
from kernelwright.tools.dsl.lower import op_spec
from kernelwright.tools.dsl.parse_program import parse_program
from kernelwright.tools.dtypes import KERNEL_DTYPES
from kernelwright.tools.hardware import SocProfile, load_soc
from kernelwright.tools.project import KernelProject
from kernelwright.tools.toolchain import EMULATION_BUDGET, BuildResult, Capabilities, Case, Diagnostic, RunResult, Toolchain

# Findings that say the case does not fit the program (no dtype column, a missing input), not that it is wrong.
_BAD_CASE_RULES = ("case.dtype", "case.inputs")


def dsl_project(program: ir.Program) -> KernelProject:
    """The program as a project the interpreter builds: its source, and its operator prototype, which the
    referee binds a task's values to as it binds them to the lowered msopgen operator."""
    return KernelProject(name=program.op_name, kind="msopgen", files={program.filename: program.source},
                         origin=program.filename, op=op_spec(program))


def _plain(value: Any) -> Any:
    """A diagnostic value as plain data (NumPy scalars and arrays become numbers and lists)."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value if value is None or isinstance(value, (str, int, float, bool)) else str(value)


def diagnostic(d: DslDiagnostic, file: str, stage: str) -> Diagnostic:
    return Diagnostic(stage=stage, severity=d.severity, message=d.message, rule=d.rule, file=file, line=d.line,
                      hint=d.hint, values=_plain(d.values), block=d.block,
                      category="runtime_rule" if stage == "run" else "other")


def dsl_diagnostic(d: Diagnostic, case: str | None = None) -> DslDiagnostic:
    """A DSL finding back from the referee's verdict."""
    return DslDiagnostic(rule=d.rule or d.category, message=d.message, line=d.line, hint=d.hint, values=d.values,
                         severity="error" if d.severity == "error" else "warning", case=case, block=d.block)


class InterpToolchain(Toolchain):
    name = "dsl"
    # It runs the shapes the emulation runs (so a check predicts the kernel's verdict), and takes the dtypes
    # the emulation takes: a case the program has no dtype column for is the program's fault, as on the sim.
    capabilities = Capabilities(dtypes=KERNEL_DTYPES, shrink_budget=EMULATION_BUDGET)

    def __init__(self, soc: str | SocProfile | None = None, externs: dict[str, Callable] | None = None):
        self.soc = soc if isinstance(soc, SocProfile) else load_soc(soc)
        self.externs = externs
        self._programs: dict[str, ir.Program] = {}

    def build(self, project: KernelProject, *, soc: str | None = None) -> BuildResult:
        start = time.monotonic()
        result = BuildResult(toolchain=self.name, status="compile_error", project=project.name)
        if len(project.files) != 1:
            result.diagnostics.append(Diagnostic(stage="build", category="syntax_structure", message=(
                f"a DSL project is one program file; this one has {len(project.files)}: {', '.join(project.files)}")))
            return result
        (file, source), = project.files.items()
        try:
            program = parse_program(source, file)
        except DslError as e:
            result.diagnostics.append(diagnostic(e.diag, file, "build"))
            return result
        result.diagnostics = [diagnostic(d, file, "build") for d in rules.check(program)]
        result.seconds = time.monotonic() - start
        if result.errors():
            return result
        key = hashlib.sha256(f"{file}\0{source}".encode()).hexdigest()[:24]
        self._programs[key] = program
        cols = program.sig.columns
        result.variants = [",".join(f"{t.name.upper()}={DTYPES[t.dtypes[min(c, len(t.dtypes) - 1)]].ctype}"
                                    for t in program.sig.inputs + program.sig.outputs) for c in range(cols)]
        result.status, result.artifacts, result.kernels = "ok", {"program": key}, [program.kernel.name]
        result.op = op_spec(program).model_copy(update={"op_type": project.name})
        return result

    def run(self, build: BuildResult, case: Case) -> RunResult:
        program = self._programs.get(build.artifacts.get("program", ""))
        if program is None:
            return RunResult(toolchain=self.name, status="build_error",
                             detail="no program: the build did not pass, or another toolchain made it")
        soc = load_soc(case.soc) if case.soc else self.soc
        start = time.monotonic()
        res = interpret(program, case.inputs, case.attrs, soc, self.externs, label=case.label)
        r = RunResult(toolchain=self.name, status="ok", outputs=res.outputs, block_dim=res.block_dim,
                      diagnostics=[diagnostic(d, program.filename, "run") for d in res.diagnostics],
                      seconds=time.monotonic() - start)
        if res.tiling is not None:
            r.tiling = {"block_dim": res.tiling.block_dim, "fields": _plain(res.tiling.fields),
                        "workspace_bytes": res.tiling.workspace_bytes, "ub_bytes": sum(b.bytes for b in res.buffers)}
        errors = res.errors()
        if errors:
            r.status = "bad_case" if errors[0].rule in _BAD_CASE_RULES else "rule_violation"
            r.detail = f"[{errors[0].rule}] {errors[0].message}"
        return r
