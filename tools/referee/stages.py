"""The lint and measure stages of a verdict.

lint: the AscendC API linter (when `kernelwright.tools.lint` is installed; its findings are warnings,
the build is the judge of compile errors) and the static anti-cheat checks on the project's glue
(strict findings fail the verdict).
measure: work counters from the emulation (vector instructions and elements, GM<->UB bytes, blocks);
real timing comes with the `cann` backend."""
from __future__ import annotations

import importlib.util
from collections import Counter
from typing import Any

from kernelwright.tools.project import KernelProject
from kernelwright.tools.referee.anticheat import run_checks
from kernelwright.tools.referee.verdict import StageReport
from kernelwright.tools.toolchain import Diagnostic, RunResult


def _api_lint(project: KernelProject) -> tuple[list[Diagnostic], str]:
    if importlib.util.find_spec("kernelwright.tools.lint") is None:
        return [], "API linter not installed"
    from kernelwright.tools.lint import SOURCE_SUFFIXES, lint_source
    found: list[Diagnostic] = []
    for path, text in sorted(project.files.items()):
        if not path.endswith(tuple(SOURCE_SUFFIXES)):
            continue
        for d in lint_source(text, path):
            found.append(Diagnostic(stage="lint", severity="warning", message=d.message, rule=d.rule, file=path,
                                    line=d.line, column=d.col, symbol=d.symbol, hint=d.hint or None,
                                    notes=[f"did you mean: {', '.join(d.suggestions)}"] if d.suggestions else []))
    return found, ""


def lint_stage(project: KernelProject, *, api_lint: bool = True, extra_glue: dict[str, str] | None = None,
               bindings_strict: bool = True, harness: str = "") -> StageReport:
    report = StageReport(name="lint", status="pass")
    api = "API lint: skipped"
    if api_lint:
        report.diagnostics, missing = _api_lint(project)
        api = f"API lint: {missing}" if missing else f"API lint: {len(report.diagnostics)} warning(s)"
    glue = dict(getattr(project, "glue", {}) or {}) | dict(extra_glue or {})
    model_src = project.model_source() if hasattr(project, "model_source") else None
    if model_src is None:
        model_src = next((t for p, t in sorted(glue.items()) if p.endswith(".py") and "class ModelNew" in t), None)
    bindings = {p: t for p, t in glue.items() if not p.endswith(".py")}
    strict, warn = run_checks(model_src, bindings, bindings_strict=bindings_strict, harness=harness)
    report.findings += [f"cheat: {s}" for s in strict] + [f"warning: {w}" for w in warn]
    checked = ("ModelNew" if model_src else "") + (f"{' + ' if model_src else ''}{len(bindings)} binding file(s)"
                                                   if bindings else "")
    if strict:
        report.status = "fail"
        report.summary = f"anti-cheat: {len(strict)} finding(s) in {checked}; {api}"
    else:
        harness_only = [w for w in warn if "reads only ModelNew" in w]
        clean = (f"anti-cheat: {len(harness_only)} binding finding(s) {harness or 'the harness'} does not fail on "
                 f"({checked})" if harness_only else f"anti-cheat clean ({checked})")
        report.summary = (clean if checked else "no ModelNew or binding to check") + f"; {api}"
        if not checked and (not api_lint or "not installed" in api):
            report.status = "skipped"     # nothing was checked at all
    return report


def measure_stage(runs: list[tuple[str, RunResult]]) -> StageReport:
    report = StageReport(name="measure")
    if not runs:
        report.summary = "nothing ran"
        return report
    per_case: dict[str, dict[str, Any]] = {}
    for label, r in runs:
        vec_elems, vec_instr, copy, cube_instr, macs = Counter(), 0, Counter(), 0, 0
        for block in r.counters:
            for c in block.get("cube", []):          # MMADs (the cube unit's work; MIX and cube-only kernels)
                cube_instr += int(c.get("instructions", 0))
                macs += int(c.get("macs", 0))
            for v in block.get("vector", []):
                vec_elems[v.get("api", "?")] += int(v.get("elements", 0))
                vec_instr += int(v.get("instructions", 0))
            copy.update({k: int(b) for k, b in block.get("copy_bytes", {}).items()})
        per_case[label] = {"block_dim": r.block_dim, "vector_instructions": vec_instr,
                           "vector_elements": sum(vec_elems.values()), "cube_instructions": cube_instr,
                           "cube_macs": macs, "copy_bytes": dict(copy),
                           "emulation_seconds": round(r.seconds, 3)}
    report.metrics = {"per_case": per_case, "timing": "not measured on this backend (work counters only)"}
    first = next(iter(per_case.values()))
    report.status = "pass"
    report.summary = (f"{len(per_case)} run(s); e.g. {first['block_dim']} blocks, {first['vector_instructions']} vector "
                      f"instructions, {sum(first['copy_bytes'].values())} bytes moved (work counters; no timing on sim)")
    return report
