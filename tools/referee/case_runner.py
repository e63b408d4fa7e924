"""One trial of one case: make the reference's inputs and outputs (at shrunk shapes on the sim),
bind them onto the project, run the kernel, compare every output and check the inputs."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from kernelwright.tools.project import KernelProject
from kernelwright.tools.referee.bind_launch import bind_launch
from kernelwright.tools.referee.bind_lists import joined_lists, output_order, post_array
from kernelwright.tools.referee.bind_msopgen import bind_msopgen
from kernelwright.tools.referee.binding import Bound, expected_outputs, match_outputs, task_values
from kernelwright.tools.referee.compare import compare_output, compare_unchanged
from kernelwright.tools.referee.judgeable import constant
from kernelwright.tools.referee.model_new_case import judge_model_new
from kernelwright.tools.referee.poison import poison, unwritten
from kernelwright.tools.referee.sampled import (FEWER_BLOCKS, SAMPLE_BLOCKS, SAMPLED_BUDGET, SAMPLED_REFERENCE_S,
                                                sampled_check, unsampleable)
from kernelwright.tools.referee.sampled_regions import region_trial
from kernelwright.tools.referee.speed import RanCase
from kernelwright.tools.referee.tolerance import PRESETS, Tolerance
from kernelwright.tools.referee.verdict import CaseRun, Mismatch
from kernelwright.tools.hardware import SocProfile
from kernelwright.tools.task import TaskCase
from kernelwright.tools.tasks.reference import ReferenceWorker, RefFailure, RefRun, RefShapes
from kernelwright.tools.tasks.shrink import ShrinkPlan
from kernelwright.tools.toolchain import BuildResult, RunResult, Toolchain


@dataclass
class Setting:
    project: KernelProject
    build: BuildResult
    toolchain: Toolchain
    worker: ReferenceWorker
    tolerance: Tolerance
    soc: SocProfile
    fallback_budget: int
    supported_dtypes: set[str] | None
    forward_params: list[str] = field(default_factory=list)   # Model.forward's parameter names
    init_params: list[str] = field(default_factory=list)      # Model.__init__'s
    task_check: bool = False          # the task has custom_check_precision and the preset defers to it
    run_timeout_s: float = 120.0
    results: list[tuple[str, RunResult]] = field(default_factory=list)
    ran: list[RanCase] = field(default_factory=list)          # passing runs, for the measure stage's speed report
    # the answer's ModelNew and the extension functions it calls (model_new_case.py); empty: the static binding
    model_new: dict[str, Any] = field(default_factory=dict)
    model_src: str | None = None
    native: Path | None = None        # the answer's binding built for the CPU (aten_binding.py): ModelNew calls it
    sample_blocks: int = 0            # the runs of this moment launch only this many blocks (sampled.py); 0: all

    @property
    def sampleable(self) -> bool:
        """Cases can be judged at their own shapes on sampled blocks (sampled.py): through ModelNew, or the static
        binding of an operator project (its outputs compared where the sampled blocks wrote them)."""
        return bool(self.model_new or self.native) or self.project.kind == "msopgen"


def _tensor_shapes(values) -> list[list[int]]:
    return [list(t.shape or []) for v in values for t in v.tensors()]


def _unsafe_shrink(shapes: RefShapes, plan: ShrinkPlan, ref: RefRun, remapped=None) -> str | None:
    """Why the shrunk run does not have the structure of the original case, if it does not. `remapped()`: the
    case described with every size the task asks for shrunk, its forward's too (worker.py's describe)."""
    want = [plan.apply(s) for s in _tensor_shapes(shapes.args)]
    got = _tensor_shapes(ref.args)
    if want != got:
        return f"inputs came out as {got}, not the planned {want} (made outside torch's tensor factories?)"
    for i, (orig, out) in enumerate(zip(shapes.outputs or [], ref.outputs)):
        if orig.kind != "tensor" or out.kind != "tensor":
            continue
        o, s = list(orig.shape or []), list(out.shape or [])
        if len(o) != len(s) or any(d in plan.mapping and plan.mapping[d] != e or (d not in plan.mapping and d != e and
                                                                                    _is_input_dim(d, shapes))
                                   for d, e in zip(o, s)):
            # an output dim equal to a shrunk one by value may be computed from others (a transposed conv's
            # D_out = 2 * D_in equal to its H_in): the forward hard-codes a size only if shrinking its sizes too
            # changes the outputs
            again = remapped() if remapped is not None else None
            if isinstance(again, RefShapes) and again.outputs is not None and \
                    [v.shape for v in again.outputs] == [v.shape for v in ref.outputs]:
                return None
            return (f"output {i} has shape {s} at the shrunk size, and {o} at the task's size maps to "
                    f"{plan.apply(o)} (the reference hard-codes a dimension?)")
    return None


def _is_input_dim(d: int, shapes: RefShapes) -> bool:
    return any(d in s for s in _tensor_shapes(shapes.args))


def reference(s: Setting, case: TaskCase, seed: int, shapes: RefShapes | None, plan: ShrinkPlan,
              run: CaseRun) -> RefRun | None:
    """The reference's run for this trial (shrunk when safe); None when the case cannot run."""
    ref = s.worker.run(case, seed, plan.mapping)
    problem = ref.render() if isinstance(ref, RefFailure) else None
    if problem is None and plan.mapping and shapes is not None:
        problem = _unsafe_shrink(shapes, plan, ref, lambda: s.worker.describe(case, plan.mapping))  # type: ignore[arg-type]
    if problem is None:
        run.shrunk = bool(plan.mapping)
        return ref  # type: ignore[return-value]
    if not plan.mapping:
        run.status, run.reason = "error", problem
        return None
    if plan.elements_before > s.fallback_budget:
        run.status = "skipped"
        run.reason = (f"shrinking is unsafe ({problem}) and the task's own shapes ({plan.elements_before} elements) "
                      f"exceed the fallback budget of {s.fallback_budget}")
        return None
    run.notes.append(f"shrinking is unsafe ({problem}); ran the task's own shapes")
    ref = s.worker.run(case, seed, {})
    if isinstance(ref, RefFailure):
        run.status, run.reason = "error", ref.render()
        return None
    return ref


def bind(s: Setting, ref: RefRun) -> tuple[Bound, list]:
    values = task_values(ref, s.forward_params, s.init_params)
    expected = expected_outputs(ref)
    if s.project.kind == "msopgen":
        if not s.build.op:
            return Bound(problem="the build did not read an OpDef from op_host (no OP_ADD?)"), expected
        if not s.build.op.outputs and ref.post:
            # an in-place operator (no OpDef outputs) whose reference modifies its inputs: the final state of
            # those inputs is the result (what the reference returns may be a rearranged copy of it)
            bound = bind_msopgen(s.build.op, values, [], mutated=set(ref.post), supported=s.supported_dtypes)
            bound.notes.append("the operator has no outputs and the reference modifies its inputs: judged on their "
                               "final state; the reference's returned values are not compared")
            return bound, []
        return bind_msopgen(s.build.op, values, expected, mutated=set(ref.post), supported=s.supported_dtypes), expected
    if s.project.launch is None:
        return Bound(problem="a kernel-launch project needs a launch spec (LaunchSpec: kernel, block_dim, args); "
                             "pass --launch launch.json"), expected
    return bind_launch(s.project.launch, values, expected, cores=s.soc.vector_cores, ub_bytes=s.soc.ub_bytes,
                       mutated=set(ref.post)), expected


def _task_check(s: Setting, case: TaskCase, expected: list, pairs: list[tuple[int, str]], ref: RefRun,
                r: RunResult) -> list[Mismatch]:
    """The task's own custom_check_precision on the paired outputs (NPUKernelBench's per-task bar)."""
    got = [r.outputs.get(n) for _, n in pairs]
    if not pairs or any(g is None for g in got):
        return []
    verdict = s.worker.custom_check(case, [expected[i].array for i, _ in pairs], got, ref.outputs_seq)  # type: ignore[arg-type]
    if isinstance(verdict, RefFailure):
        return [Mismatch(rule="tolerance", output="outputs", message=f"the task's custom_check_precision failed to run: "
                         f"{verdict.render()}")]
    if verdict["pass"]:
        return []
    located = [m for i, n in pairs for m in compare_output(f"output {i} ({n})", expected[i].array, r.outputs.get(n),
                                                             PRESETS["default"], block_dim=r.block_dim)]
    m = Mismatch(rule="tolerance", output=located[0].output if located else "outputs",
                 message="the task's custom_check_precision rejects the outputs", max_abs=verdict["max_abs"],
                 max_rel=verdict["max_rel"])
    if located:
        m.count, m.total, m.first_index = located[0].count, located[0].total, located[0].first_index
        m.expected, m.got, m.hints = located[0].expected, located[0].got, located[0].hints
    return [m]


def _returned_outputs(s: Setting, ref: RefRun, order: list[str], expected: list) -> tuple[list[str], list, list[str]]:
    """NPUKernelBench judges what the task's pybind function returns, zipped with the reference's outputs: when
    it returns some of the operator's outputs (the last arguments of its EXEC_NPU_CMD), those are compared, in
    its order, with as many of the reference's (CrossEntropyLoss without returnZloss: loss and logProb)."""
    if ref.call_returns is None:
        return order, expected, []
    outs = [o.name for o in s.build.op.outputs] if s.build.op else []
    tail = ref.call_exec[len(ref.call_exec) - len(outs):] if outs and len(ref.call_exec) >= len(outs) else []
    if outs == order and tail and all(n in tail for n in ref.call_returns):
        chosen = [order[tail.index(n)] for n in ref.call_returns]
    elif len(ref.call_returns) < len(expected):
        chosen = order
    else:
        return order, expected, []
    kept = expected[:len(ref.call_returns)]
    if chosen == order and len(kept) == len(expected):
        return order, expected, []
    return chosen, kept, [f"the task's pybind function returns {', '.join(ref.call_returns)}: compared "
                          f"{', '.join(chosen)} with the reference's first {len(kept)} output(s)"]


def check(s: Setting, case: TaskCase, bound: Bound, expected: list, ref: RefRun, r: RunResult) -> list[Mismatch]:
    joined: dict[str, list[str]] = {}
    not_returned: set[str] = set()      # outputs the task's pybind function leaves out: the harness never sees them
    if s.project.kind == "msopgen":
        order = output_order(s.build.op, r.outputs)  # type: ignore[arg-type]
        if len(order) < len(expected):   # an in-place operator: results come back in its input buffers
            order += [n for n in bound.inputs if n not in order]
        if len(order) != len(expected):  # a reference may return a list flattened and concatenated: x[*]
            flat, joined = joined_lists(s.build.op, r.outputs)  # type: ignore[arg-type]
            r = r.model_copy(update={"outputs": {**r.outputs, **flat}})
            order += list(flat)
        full = list(order)
        order, expected, returned = _returned_outputs(s, ref, order, expected)
        pairs, notes = match_outputs(expected, r.outputs, order)
        if returned:
            not_returned = set(full) - {n for _, n in pairs} - set(bound.inputs)
        notes += returned
    else:
        order, notes = [n for _, n in bound.outputs], []
        pairs = bound.outputs
    bound.notes += notes
    found: list[Mismatch] = []
    if r.sampled:   # the static binding on sampled blocks: only what they wrote is compared (sampled.py)
        return sampled_check(s.tolerance, bound.inputs, [(i, n, expected[i].array) for i, n in pairs], r)
    for i, name in pairs:
        found += compare_output(f"output {i} ({name})", expected[i].array, r.outputs.get(name), s.tolerance,
                                block_dim=r.block_dim, numeric=not s.task_check)
    if s.task_check:
        found += _task_check(s, case, expected, pairs, ref, r)
    compared = {i for i, _ in pairs}
    for i in range(len(expected)):
        if i not in compared:
            found.append(Mismatch(rule="missing_output", output=f"output {i}",
                                  message=f"the kernel has no output left for it (kernel outputs: {', '.join(order)})"))
    paired = {n for _, n in pairs}
    paired |= {m for n in paired for m in joined.get(n, [])}
    for name, before in bound.inputs.items():
        if name in paired:
            continue  # an in-place operator: this buffer is also an output
        if name in bound.inplace:
            found += compare_output(f"input {name} (modified in place)", post_array(ref.post, bound.inplace[name], name),
                                    r.outputs.get(name), s.tolerance, block_dim=r.block_dim)
        else:
            m = compare_unchanged(f"input {name}", before, r.outputs.get(name))
            if m:
                found.append(m)
    return found + (unwritten(bound.case, r.outputs, skip=not_returned) if bound.case is not None else [])


def run_trial(s: Setting, case: TaskCase, seed: int, trial: int, shapes: RefShapes | None, plan: ShrinkPlan,
              label: str = "trial") -> CaseRun:
    run = CaseRun(case=case.id, trial=trial, seed=seed, label=label,
                  original_shapes=_tensor_shapes(shapes.args) if shapes else [])
    ref = reference(s, case, seed, shapes, plan, run)
    if ref is None:
        return run
    run.run_shapes = _tensor_shapes(ref.args)
    run.notes += ref.notes
    if s.model_new or s.native:
        judge_model_new(s, case, seed, plan.mapping if run.shrunk else {}, ref, run)
        return run
    bound, expected = bind(s, ref)
    run.notes += bound.notes
    if bound.case is None:
        run.status = "skipped" if bound.unsupported else "error"
        run.reason = bound.problem or "could not bind the case"
        return run
    bound.case.soc = s.soc.name
    bound.case.timeout_s = s.run_timeout_s
    bound.case.sample_blocks = s.sample_blocks
    bound.case.label = f"{case.id} seed {seed}"
    references = [e.array for e in expected if e.array is not None]
    poison(bound.case, references + [np.asarray(a) for a in bound.case.inputs.values()])   # a copied input is no poison
    run.reference_constants = [constant(a) for a in references]
    run.reference_sizes = [int(a.size) for a in references]
    r = s.toolchain.run(s.build, bound.case)
    run.run_status, run.block_dim, run.seconds = r.status, r.block_dim, r.seconds
    run.diagnostics = (r.errors() + [d for d in r.diagnostics if d.severity == "warning"])[:20]
    if r.sampled and unsampleable(r):
        run.status, run.reason = "skipped", unsampleable(r) or ""
        return run
    if r.sampled:
        run.sampled_blocks = r.sampled
        run.notes.append(f"judged at the task's own shapes on sampled blocks {r.sampled} of {r.block_dim} through the "
                         "static binding: each output compared where those blocks wrote it; the reference computed in full")
    if r.status != "ok":
        run.status = "fail"
        errors = "; ".join(d.render() for d in r.errors()[:3])
        run.reason = f"the kernel run ended with {r.status}: {r.detail or errors}"[:2000]
        if errors and r.detail:
            run.notes.append(errors[:1500])
        return run
    lucky = [d for d in r.diagnostics if d.rule == "gm.past_allocation" and " writes bytes" in d.message]
    # at shrunk shapes it is a failure under every preset: the task's own shapes then decide (a kernel written for
    # them writes past the smaller tensors), as for any failure only the shrunk shapes show
    if lucky and (s.tolerance.luck_fails or run.shrunk):
        run.status = "fail"
        why = "at shrunk shapes" if run.shrunk and not s.tolerance.luck_fails else \
            f"which the {s.tolerance.name} preset fails (a benchmark preset only warns)"
        run.reason = f"the kernel writes past a tensor into free device memory, {why}: {lucky[0].render()}"[:2000]
        return run
    s.results.append((f"{case.id} seed {seed}", r))
    run.mismatches = check(s, case, bound, expected, ref, r)
    if not run.mismatches:
        s.ran.append(RanCase(f"{case.id} seed {seed}", case, plan.mapping if run.shrunk else {}, bound.case, r, ref))
    run.notes = list(dict.fromkeys(run.notes + bound.notes))
    if run.mismatches:
        run.status = "fail"
        run.reason = run.mismatches[0].render().split("\n")[0]
    return run


def run_trial_with_fallback(s: Setting, case: TaskCase, seed: int, trial: int, shapes: RefShapes | None,
                            plan: ShrinkPlan, label: str = "trial") -> CaseRun:
    """A trial; when it fails only at shrunk shapes and the task's own shapes fit the fallback budget, those
    decide: a kernel that passes there was written for the task's shapes only, which a benchmark's preset
    reports and passes (the benchmark runs only those) and the default preset fails."""
    run = run_trial(s, case, seed, trial, shapes, plan, label)
    if run.status == "fail" and run.run_status == "timeout" and s.sampleable and not run.sampled_blocks:
        # every block in turn takes longer than the emulation allows (scalar GM loops): a sample of them may not
        sampled = sampled_trial(s, case, seed, trial, shapes, plan if run.shrunk else own_shapes(plan), label)
        if sampled.status in ("pass", "fail") and sampled.run_status != "timeout":
            sampled.notes.insert(0, f"every block in turn did not finish in time ({run.reason[:200]}): judged on "
                                    "sampled blocks")
            return sampled
        return run
    if plan.mapping and plan.elements_before > s.fallback_budget and s.sampleable and \
            plan.elements_before <= SAMPLED_BUDGET and _shrinking_failed(run):
        full = sampled_trial(s, case, seed, trial, shapes, own_shapes(plan), label)
        if run.status == "fail":
            return _task_shapes_decide(s, run, full)
        full.notes.insert(0, f"not judged at shrunk shapes: {run.reason[:300]}")
        return full
    if plan.mapping and plan.elements_before > SAMPLED_BUDGET and s.sampleable and _shrinking_failed(run):
        # too big to hold: a generated input, judged on sampled blocks against a reference on input slices
        full = region_trial(s, case, seed, trial, _tensor_shapes(shapes.args) if shapes else [], label)
        if full.status in ("pass", "fail"):
            return _task_shapes_decide(s, run, full) if run.status == "fail" else full
        run.notes.append(full.reason)
        return run
    if run.status != "fail" or not run.shrunk:
        return run
    if plan.elements_before > s.fallback_budget:
        if run.run_status == "host_error" and s.tolerance.task_shapes_only_passes:
            # the TilingFunc refuses the shrunk shapes (a kernel specialised to the task's) and the task's own do
            # not fit: under a benchmark's preset that is no verdict either way
            run.status = "skipped"
            run.reason = (f"the TilingFunc refuses the shrunk shapes {run.run_shapes} ({run.reason[:200]}) and the "
                          f"task's own ({plan.elements_before} elements) are past the emulation's budget of "
                          f"{s.fallback_budget}: possibly written for the task's shapes only, not judged")
        return run
    full = run_trial(s, case, seed, trial, shapes, own_shapes(plan), label)
    return _task_shapes_decide(s, run, full)


def own_shapes(plan: ShrinkPlan) -> ShrinkPlan:
    return ShrinkPlan(elements_before=plan.elements_before, elements_after=plan.elements_before, budget=plan.budget)


def _shrinking_failed(run: CaseRun) -> bool:
    """The shrunk run failed, or could not run because shrinking does not suit the answer (its binding allocates
    the task's own shapes, or the reference cannot be shrunk): the task's own shapes may still judge it."""
    if run.status == "fail":
        return True
    return run.status == "skipped" and (run.reason.startswith("shrinking is unsafe") or "the binding allocates" in run.reason)


def sampled_trial(s: Setting, case: TaskCase, seed: int, trial: int, shapes: RefShapes | None, plan: ShrinkPlan,
                  label: str = "trial") -> CaseRun:
    """A trial at `plan`'s shapes whose launches run a sample of their blocks (sampled.py); when those blocks
    together exceed the launch's CPU time, the first and the last block alone (the verdict says so)."""
    run = _sampled(s, case, seed, trial, shapes, plan, label, SAMPLE_BLOCKS)
    if run.run_status != "timeout":
        return run
    fewer = _sampled(s, case, seed, trial, shapes, plan, label, FEWER_BLOCKS)
    if fewer.run_status == "timeout":
        return run
    fewer.notes.insert(0, f"the {SAMPLE_BLOCKS} sampled blocks together did not finish in time ({run.reason[:200]}): "
                          f"judged on the first and the last block only")
    return fewer


def _sampled(s: Setting, case: TaskCase, seed: int, trial: int, shapes: RefShapes | None, plan: ShrinkPlan,
             label: str, blocks: int) -> CaseRun:
    s.sample_blocks, timeout = blocks, s.worker.timeout_s
    s.worker.timeout_s = max(timeout, SAMPLED_REFERENCE_S)   # Model at the task's own shapes takes longer
    try:
        return run_trial(s, case, seed, trial, shapes, plan, label)
    finally:
        s.sample_blocks, s.worker.timeout_s = 0, timeout


def _task_shapes_decide(s: Setting, run: CaseRun, full: CaseRun) -> CaseRun:
    """`run` failed at shrunk shapes, `full` ran at the task's own: a pass there is 'written for the task's
    shapes only', which a benchmark's preset passes and the default preset fails."""
    if full.status != "pass":
        return full
    where = f"on sampled blocks {full.sampled_blocks}" if full.sampled_blocks else "(every block)"
    finding = (f"written for the task's shapes only: fails at the shrunk shapes {run.run_shapes} "
               f"({run.reason[:300]}) and passes at the task's own {full.run_shapes} {where}")
    if s.tolerance.task_shapes_only_passes:
        full.notes.insert(0, f"{finding} (the {s.tolerance.name} preset judges the task's shapes)")
        return full
    full.status, full.reason = "fail", finding
    full.mismatches.append(Mismatch(rule="task_shapes_only", output="case", message=finding, hints=[
        "derive block and tile sizes from the shapes with ceil-division and handle the tail; or judge with the "
        "benchmark's preset (--tolerance) if only the task's shapes matter"]))
    return full
