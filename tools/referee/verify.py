"""verify(task, project, toolchain) -> Verdict: the referee.

Stages: lint (API linter + static anti-cheat) -> build -> run -> compare (every case, several seeded
trials, all outputs, inputs unchanged) -> measure (work counters; kernel time against eager PyTorch's, measured
on a device or estimated on the emulation), then a recheck: one more trial
with fresh inputs after all the others. A kernel that fails is a verdict, never an exception;
only bad arguments (an unknown tolerance preset) raise. With no tolerance named, a task from a known
benchmark is judged by that benchmark's preset (tolerance.preset_for), and the verdict says so.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

from kernelwright.errors import UserError
from kernelwright.tools.buildkit import sandbox
from kernelwright.tools.hardware import load_soc
from kernelwright.tools.project import KernelProject
from kernelwright.tools.referee import judgeable
from kernelwright.tools.referee.case_runner import Setting, own_shapes, run_trial, run_trial_with_fallback, sampled_trial
from kernelwright.tools.referee.model_new_case import model_new_functions, native_binding, unfollowed
from kernelwright.tools.referee.path_cases import PATH_BUDGET, path_cases
from kernelwright.tools.referee.sampled import SAMPLED_BUDGET
from kernelwright.tools.referee.speed import judge_speed
from kernelwright.tools.referee.speed_shapes import trace_at_task_shapes
from kernelwright.tools.referee.stages import lint_stage, measure_stage
from kernelwright.tools.referee.tolerance import AUTO, BENCHMARK_NAMES, Tolerance, get_tolerance, preset_for
from kernelwright.tools.referee.verdict import CaseRun, StageReport, Verdict
from kernelwright.tools.task import Task, TaskCase
from kernelwright.tools.tasks.reference import ReferenceWorker, RefFailure, RefShapes
from kernelwright.tools.tasks.shrink import Shape, ShrinkPlan, narrowing_groups, plan_shrink
from kernelwright.tools.toolchain import EMULATION_BUDGET, Toolchain

DEFAULT_BUDGET = EMULATION_BUDGET  # elements per case on an emulation (inputs, init tensors and weights)
FALLBACK_BUDGET = 1 << 23         # a case that cannot shrink safely may still run at its own size up to this
# ... and up to this when no emulated kernel runs in it (a binding run as written that launches only ATen or
# CANN's own operators: PyTorch computes it on the CPU in seconds, the emulation's speed does not bound it)
HOST_ONLY_BUDGET = 1 << 26
RECHECK_SEED = 104729
HELD_FACTOR = 16                  # a shrunk case's outputs and unfolded conv inputs: at most this many budgets


def _plan(shapes: RefShapes | None, budget: int | None, cores: int, ub: int, keep: frozenset[int] = frozenset()) \
        -> ShrinkPlan:
    """The shapes a case runs at: shrunk to `budget` elements, or (no budget) the task's own; `keep`: dim values
    kept at the task's size (a path case, path_cases.py)."""
    tensors = [] if shapes is None else [Shape(dims=list(t.shape or []), dtype=t.dtype or "float32")
                                         for v in shapes.args + shapes.init + shapes.params for t in v.tensors()]
    if budget is None:
        total = sum(math.prod(t.dims) for t in tensors)
        return ShrinkPlan(elements_before=total, elements_after=total, budget=total)
    outputs = [] if shapes is None else [Shape(dims=list(o.shape or []), dtype=o.dtype or "float32")
                                         for o in shapes.outputs or [] if o.kind == "tensor"]
    floors, groups = _group_rules(shapes) if shapes is not None else ({}, {})
    floors |= {d: d for d in keep}
    return plan_shrink(tensors, budget=budget, cores=cores, ub_bytes=ub, outputs=outputs, floors=floors, groups=groups,
                       multiples=shapes.multiples if shapes is not None else None)


def _unshrunk(shapes: RefShapes | None, plan: ShrinkPlan) -> frozenset[int]:
    """The group norms' channel counts the judged plan left at the task's size: a path case keeps them too.
    Shrinking them would remap the group count as well, a value no tensor carries, which a kernel written with
    the task's count baked in never sees (group_norm's path case failed so, falsely). Other dims may shrink: a
    kernel reads them from its tensors, and the judged cases already showed it does."""
    return frozenset(set() if shapes is None else set(shapes.groups) - set(plan.mapping))


def _group_rules(shapes: RefShapes) -> tuple[dict[int, int], dict[int, int]]:
    """(floors, groups) for the shrinker: a group norm whose group count is one of the task's int arguments
    shrinks its channels with its groups (the worker maps that argument like a size); one whose count the
    shrink cannot reach (written in the model's code) keeps its channels whole, else its groups would narrow."""
    ints = {v.value for v in shapes.args + shapes.init if v.kind == "scalar" and type(v.value) is int}
    groups = narrowing_groups(shapes.groups)
    floors = dict(shapes.floors) | {c: c for c, g in groups.items() if g not in ints}
    return floors, {c: g for c, g in groups.items() if g in ints}


def _fit_held(plan: ShrinkPlan, shapes: RefShapes | None, budget: int | None, cores: int, ub: int,
                 held_at) -> ShrinkPlan:
    """Shrink further while the outputs and convolutions' unfolded inputs at the planned shapes hold more than
    HELD_FACTOR times the budget, which counts inputs only: a stride-5 transposed conv shrunk to 0.5M input
    elements had outputs of 3M and an im2col of 112M, and interpreting it took 750 s. `held_at(mapping)`: those
    elements at that mapping (None when unknown)."""
    if shapes is None or budget is None or not plan.fits:
        return plan
    for _ in range(4):
        held = held_at(plan.mapping)
        if held is None or held <= HELD_FACTOR * budget:
            return plan
        smaller = _plan(shapes, max(1, plan.elements_after * HELD_FACTOR * budget // held), cores, ub)
        if not smaller.fits or smaller.elements_after >= plan.elements_after:
            return plan
        plan = smaller
    return plan


def _held_elements(worker: ReferenceWorker, case: TaskCase, shapes: RefShapes | None):
    """held_at for _fit_held: from the task's own shapes unshrunk, else from a describe at the mapping."""
    def at(mapping: dict[int, int]) -> int | None:
        got = shapes if not mapping else worker.describe(case, mapping)
        if not isinstance(got, RefShapes) or got.outputs is None:
            return None
        return sum(math.prod(t.shape or []) for o in got.outputs for t in o.tensors()) + got.unfolded
    return at


def task_cases(task: Task, worker: ReferenceWorker, only: list[str] | None = None) -> list[TaskCase] | RefFailure:
    """The task's cases; a task of input groups without a sidecar gets one case per group its worker counts."""
    cases = task.cases
    if not cases and task.input_kind == "input_groups":
        n = worker.count_groups()
        if isinstance(n, RefFailure):
            return n
        cases = [TaskCase(id=f"group {i}", index=i) for i in range(n)]
    return [c for c in cases if only is None or c.id in only]


def verify(task: Task, project: KernelProject, toolchain: Toolchain, *, tolerance: str | Tolerance | None = None,
           trials: int | None = None, seed: int = 0, soc: str | None = None, budget: int | None = None,
           fallback_budget: int = FALLBACK_BUDGET, worker: ReferenceWorker | None = None, api_lint: bool = True,
           cases: list[str] | None = None, recheck: bool = True, extra_glue: dict[str, str] | None = None,
           stop_after_failures: int = 3) -> Verdict:
    start = time.monotonic()
    for name, value in (("trials", trials), ("budget", budget)):
        if value is not None and value < 1:
            raise UserError(f"{name} {value}: must be at least 1 (otherwise no case runs and nothing is judged)")
    if tolerance is None or tolerance == AUTO:    # not named: the task's benchmark judges as it would
        tol, why = preset_for(task.layout)
        rule = f"{tol.describe()} [chosen: {why}]"
    else:
        tol = get_tolerance(tolerance)
        rule = tol.describe()
    profile = load_soc(soc) if soc else toolchain.soc
    v = Verdict(task=task.name, op_type=task.op_type, project=project.name, backend=toolchain.name, soc=profile.name,
                tolerance=tol.name, tolerance_rule=rule, seed=seed)
    v.stages.append(lint_stage(project, api_lint=api_lint, extra_glue=extra_glue, bindings_strict=tol.binding_checks_fail,
                               harness=BENCHMARK_NAMES.get(tol.name, tol.name)))
    # said in every verdict where the machine or the backend could not contain the steps
    for note in (sandbox.status().note(), toolchain.uncontained):
        if note:
            v.stage("run").findings.append(note)
    build_report = v.stage("build")
    t0 = time.monotonic()
    build = toolchain.build(project, soc=soc)
    warnings = [d for d in build.diagnostics if d.severity == "warning"]
    build_report.seconds, build_report.diagnostics = time.monotonic() - t0, (build.errors() + warnings)[:20]
    build_report.status = {"ok": "pass", "compile_error": "fail"}.get(build.status, "error")
    build_report.summary = f"{build.status} on {build.toolchain}" + (f" ({len(build.variants)} dtype variants)"
                                                                    if build.variants else "")
    if not build.ok:
        return _finish(v, start)
    if not toolchain.capabilities.runs:
        v.stage("run").summary = f"the {toolchain.name} backend only compile-checks: no case runs on it"
        return _finish(v, start)
    own_worker = worker is None
    s = Setting(project=project, build=build, toolchain=toolchain, worker=worker or ReferenceWorker(task), tolerance=tol,
                soc=profile, fallback_budget=fallback_budget, supported_dtypes=toolchain.capabilities.dtypes,
                task_check=tol.task_check and task.custom_check)
    s.model_new, s.model_src = model_new_functions(project)
    if v.stage("lint").status != "fail":     # a binding computing with ATen or CANN's ops runs as written (aten_binding.py)
        s.native, s.model_src, note = native_binding(project, s.model_src)
        if note:
            v.stage("run").findings.append(note)
        if s.native is not None and not s.model_new:       # the binding launches nothing of the answer's own
            s.fallback_budget = max(s.fallback_budget, HOST_ONLY_BUDGET)
    try:
        shrink = toolchain.capabilities.shrink_budget
        options = Options(trials, seed, (budget or shrink) if shrink else None, cases, recheck, stop_after_failures)
        _run_cases(v, task, s, options)
        if s.model_new and s.native is None and unfollowed(v.runs):   # judge the binding as written instead
            s.native, s.model_src, note = native_binding(project, s.model_src, always=True)
            v.stage("run").findings.append(note)
            if s.native is not None:
                kept = list(v.stage("run").findings)
                v.runs, v.skipped_cases, s.results, s.ran = [], {}, [], []
                v.stages = [st for st in v.stages if st.name in ("lint", "build")]
                v.stage("run").findings += kept
                _run_cases(v, task, s, options)
    finally:
        if own_worker:
            s.worker.close()
    return _finish(v, start)


@dataclass
class Options:
    trials: int | None
    seed: int
    budget: int | None                # elements per case when the toolchain shrinks cases; None: the task's shapes
    only: list[str] | None
    recheck: bool
    stop_after_failures: int


def _run_cases(v: Verdict, task: Task, s: Setting, o: Options) -> None:
    run_report = v.stage("run")
    names = s.worker.params()
    todo = names if isinstance(names, RefFailure) else task_cases(task, s.worker, o.only)
    if isinstance(todo, RefFailure):
        run_report.status, run_report.summary = "error", todo.render()
        return
    s.forward_params, s.init_params = names["forward_params"], names["init_params"]  # type: ignore[index]
    v.trials = o.trials or (3 if len(todo) == 1 else 1)
    first_ok: tuple[TaskCase, RefShapes | None, ShrinkPlan] | None = None
    failures = outside = 0
    for case in todo:
        shapes = s.worker.describe(case)
        if isinstance(shapes, RefFailure):   # FakeTensorMode could not follow the task (data-dependent inputs):
            probe = s.worker.run(case, o.seed, {})        # learn the shapes from a real run, then plan as usual
            shapes = None if isinstance(probe, RefFailure) else probe.shapes()
        plan = _plan(shapes, o.budget, s.soc.vector_cores, s.soc.ub_bytes)
        plan = _fit_held(plan, shapes, o.budget, s.soc.vector_cores, s.soc.ub_bytes,
                            _held_elements(s.worker, case, shapes))
        trial = run_trial_with_fallback
        if not plan.fits:
            plan = own_shapes(plan)
            if plan.elements_before > s.fallback_budget and s.sampleable and plan.elements_before <= SAMPLED_BUDGET:
                trial = sampled_trial      # too big to run whole or to shrink: judged on sampled blocks at its shapes
            elif plan.elements_before > s.fallback_budget:
                v.skipped_cases[case.id] = f"cannot shrink ({plan.elements_before} elements) within the budget"
                continue
        for t in range(v.trials):
            run = trial(s, case, o.seed + t, t, shapes, plan)
            if run.status == "fail" and not _benchmark_judges(s.tolerance, case):
                _outside_default_run(v, run, s.tolerance)
                outside += 1         # stops the cases as early as a failing run does
            v.runs.append(run)
            if run.status in ("skipped", "error"):
                v.skipped_cases[case.id] = run.reason
                break
            if run.status == "fail":
                failures += 1
                break
            first_ok = first_ok or (case, shapes, plan if run.shrunk or run.sampled_blocks else own_shapes(plan))
            if run.sampled_blocks:     # a trial on sampled blocks (often at the task's own shapes): one is enough
                run.notes.append(f"one trial judged on sampled blocks (of {v.trials})")
                break
        if failures + outside >= o.stop_after_failures:
            rest = todo[todo.index(case) + 1:]
            for c in rest:
                v.skipped_cases[c.id] = f"not run: {failures + outside} cases already failed"
            break
    measure = measure_stage(s.results)
    estimating = s.ran and s.ran[0].result.trace is not None and not callable(getattr(s.toolchain, "time", None))
    full = trace_at_task_shapes(s, s.ran[0]) if estimating else None
    if full is not None and first_ok and not failures and not any(r.sampled_blocks for r in v.runs):
        case, shapes, plan = first_ok
        held = _held_elements(s.worker, case, shapes)
        path = path_cases(s, case, shapes, plan, full,
                          lambda d: _plan(shapes, PATH_BUDGET, s.soc.vector_cores, s.soc.ub_bytes,
                                          keep=_unshrunk(shapes, plan) | {d}),
                          lambda p: (held(p.mapping) or 0) <= HELD_FACTOR * PATH_BUDGET, run_trial)
        v.runs += path
        failures += sum(r.status == "fail" for r in path)
    judge_speed(measure, s.ran, toolchain=s.toolchain, build=s.build, task=task, worker=s.worker, soc=s.soc, full=full)
    sampled = any(r.sampled_blocks for r in v.runs)
    if o.recheck and first_ok and not failures and not sampled:
        case, shapes, plan = first_ok
        v.runs.append(run_trial(s, case, o.seed + RECHECK_SEED, v.trials, shapes, plan, label="recheck"))
    _summarize(v, s.tolerance.name)
    v.stages.append(measure)


def _benchmark_judges(tol: Tolerance, case: TaskCase) -> bool:
    """Whether the preset's benchmark judges this case in its default run (Tolerance.default_case_ids)."""
    case_id = case.params.get("case_id")
    if tol.default_case_ids is None or case_id is None:
        return True
    try:
        return int(case_id) < tol.default_case_ids
    except (TypeError, ValueError):
        return True


OUTSIDE_DEFAULT_RUN = "fails outside the benchmark's default run"


def _outside_default_run(v: Verdict, run: CaseRun, tol: Tolerance) -> None:
    """A failure at a case the benchmark never runs by default: a finding under its preset, not a failing run."""
    finding = f"{run.case}: {OUTSIDE_DEFAULT_RUN} ({tol.default_cases_rule}; the default preset fails it): {run.reason}"
    run.status, run.reason = "skipped", finding
    v.stage("run").findings.append(finding[:1500])


def _summarize(v: Verdict, tolerance: str) -> None:
    run_report, compare_report = v.stage("run"), v.stage("compare")
    ran = [r for r in v.runs if r.status in ("pass", "fail")]
    bad_runs = [r for r in ran if r.status == "fail"]
    run_fail = [r for r in bad_runs if r.run_status not in (None, "ok")]
    run_report.status = "fail" if run_fail else ("pass" if ran else "error")
    run_report.summary = f"{len(ran)} run(s), {len(run_fail)} ended abnormally" if ran else "no case could run"
    shaped = [f"{r.case}: {n}" for r in ran for n in r.notes if n.startswith("written for the task's shapes only")]
    run_report.findings += list(dict.fromkeys(shaped))[:3]   # passed by a benchmark's preset, said in the verdict
    cmp_fail = [r for r in bad_runs if r.run_status == "ok"]
    compare_report.status = "fail" if cmp_fail else ("pass" if len(ran) > len(run_fail) else "skipped")
    compare_report.summary = (f"{len(ran) - len(run_fail) - len(cmp_fail)} matched, {len(cmp_fail)} mismatched "
                              f"({tolerance})")


def _finish(v: Verdict, start: float) -> Verdict:
    order = ["lint", "build", "run", "compare", "measure"]
    for name in order:
        v.stage(name)  # type: ignore[arg-type]
    v.stages.sort(key=lambda s: order.index(s.name))
    statuses = {s.name: s.status for s in v.stages}
    failed = [r for r in v.runs if r.status == "fail"]
    if statuses["build"] == "error":
        v.status, v.summary = "error", "the toolchain could not build (environment)"
    elif statuses["build"] == "fail":
        v.status, v.summary = "fail", "the project does not build"
    elif statuses["lint"] == "fail":
        v.status, v.summary = "fail", v.stage("lint").summary
    elif failed:
        v.status, v.summary = "fail", f"{len(failed)} run(s) failed; first: {failed[0].case}: {failed[0].reason}"
    elif any(r.status == "pass" for r in v.runs):
        outside = sum(OUTSIDE_DEFAULT_RUN in why for why in v.skipped_cases.values())
        not_run = len(v.skipped_cases) - outside
        v.status, v.summary = "pass", f"{sum(r.status == 'pass' for r in v.runs)} run(s) passed"
        v.summary += f"; {not_run} case(s) not run" if not_run else ""
        v.summary += f"; {outside} case(s) outside the benchmark's default run fail (run findings)" if outside else ""
        sampled = [r for r in v.runs if r.status == "pass" and r.sampled_blocks]
        if sampled:     # not "all outputs match": only what those blocks wrote was compared
            where = "shrunk shapes" if sampled[0].shrunk else "the task's own shapes"
            v.summary += (f"; at {where} on sampled blocks {sampled[0].sampled_blocks} only (the outputs those blocks "
                          "wrote match; the other blocks did not run)")
        if any("reads only ModelNew" in f for f in v.stage("lint").findings):   # passed by the harness's rule
            v.summary += "; by the benchmark's rule only: the binding, not the kernel, computes (lint findings)"
    else:
        v.status = "error"
        v.summary = "no case could run: " + ("; ".join(f"{k}: {r}" for k, r in list(v.skipped_cases.items())[:3]) or
                                             v.stage("run").summary)
    judgeable.apply(v)
    v.seconds = time.monotonic() - start
    return v


__all__ = ["verify", "task_cases", "Verdict", "StageReport", "CaseRun"]
