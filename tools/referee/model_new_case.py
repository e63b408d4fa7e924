"""One trial judged as MultiKernelBench judges an answer: the answer's `ModelNew(*init)(*inputs)` runs in
the reference worker (same seed as the reference's `Model`), each call into its extension runs the built
operator here, and ModelNew's result is compared with Model's (MultiKernelBench utils/correctness.py,
wzzll123/MultiKernelBench@460a972: both models built after `set_seed`, outputs compared with allclose).

A call binds positionally as aclnn does (`aclnnXxx(inputs..., attributes..., outputs...)` in OpDef order):
the EXEC_NPU_CMD arguments of the answer's pybind function, with the outputs its binding allocated
(shapes and dtypes from its `at::empty`/`empty_like`; InferShape's when those could not be read)."""
from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import numpy as np

from kernelwright.tools.dtypes import KERNEL_DTYPES, name_of
from kernelwright.tools.project import KernelProject
from kernelwright.tools.referee.aten_binding import build_native, wants_native
from kernelwright.tools.referee.bind_lists import list_members
from kernelwright.tools.referee.bind_msopgen import AttrValueError, attr_value
from kernelwright.tools.referee.binding import TaskValue, expected_outputs
from kernelwright.tools.referee.compare import compare_output, compare_unchanged
from kernelwright.tools.referee.poison import poison, unwritten
from kernelwright.tools.referee.pybind_sig import BoundFunction, bound_functions
from kernelwright.tools.referee.region_values import placeholder
from kernelwright.tools.referee.sampled import (SAMPLED_BUDGET, compare_sampled, element_mask, masked_reply,
                                                unsampleable, written_inputs)
from kernelwright.tools.referee.speed import RanCase
from kernelwright.tools.referee.verdict import CaseRun, Mismatch
from kernelwright.tools.opspec import OpSpec
from kernelwright.tools.tasks.reference import RefFailure, RefRun, RefValue, value_from_spec
from kernelwright.tools.tensor_lists import is_dynamic
from kernelwright.tools.toolchain import Case, OutputSpec, RunResult


OUTPUT_CAP_FACTOR = 4   # an output past this many fallback budgets is not run (the emulator's files cap near 256 MiB)


def model_new_functions(project: KernelProject) -> tuple[dict[str, BoundFunction], str | None]:
    """The extension functions ModelNew can call (pybind_sig), and ModelNew's source; ({}, None) when the
    project has no ModelNew or no pybind function launching its own operator (`EXEC_NPU_CMD(aclnn<OpType>,
    ...)`): then the static binding judges the operator."""
    model = project.model_source() if project.kind == "msopgen" else None
    if not model:
        return {}, None
    found: dict[str, BoundFunction] = {}
    for text in project.binding_sources().values():
        found.update(bound_functions(text))
    own = f"aclnn{project.name}"
    if not any(f.exec_op == own for f in found.values()):
        return {}, None   # it launches none of its own operator (only CANN's builtin aclnn ops, not emulated here)
    return found, model


UNFOLLOWED = "a value the binding computes in a way not followed here"


def unfollowed(runs: list[CaseRun]) -> bool:
    """A trial stopped because the stand-in could not follow what the binding computes for an argument."""
    return any(m.rule == "binding" and UNFOLLOWED in m.message for r in runs for m in r.mismatches)


def native_binding(project: KernelProject, model_src: str | None, *, always: bool = False
                   ) -> tuple[Path | None, str | None, str]:
    """(the answer's binding built for the CPU, ModelNew's source, a note) when its binding computes with ATen or
    launches CANN's own operators (MultiKernelBench runs that code: the verdict must too), or `always` (the
    stand-in could not follow it); (None, model_src, why not) otherwise."""
    model = project.model_source() if project.kind == "msopgen" else None
    bindings = project.binding_sources() if model else {}
    if not model or not (always or wants_native(bindings)):
        return None, model_src, ""
    if len(bindings) != 1:
        return None, model_src, f"the binding is {len(bindings)} files: not built as one module to run as written"
    built = build_native(next(iter(bindings.values())))
    if built.path is None:
        return None, model_src, f"the binding could not be run as written: {built.reason}"
    why = "the stand-in could not follow it" if always else "the binding computes with ATen or CANN's own operators"
    return built.path, model, (f"{why}: built as a CPU torch extension and run as written (its ATen calls on the "
                               "CPU, its EXEC_NPU_CMD on this backend)")


class CallBinder:
    """Answers the worker's extension calls: binds each onto the OpDef, runs it, replies with outputs."""

    def __init__(self, s: Any, case_label: str, run: CaseRun, functions: dict[str, BoundFunction]):
        self.s, self.label, self.run, self.functions = s, case_label, run, functions
        self.findings: list[Mismatch] = []
        self.failed: RunResult | None = None
        self.last: tuple[Case, RunResult] | None = None
        self.unjudged: str | None = None      # why the emulation cannot run this call (not the answer's fault)
        self.calls = 0
        self.sampled: tuple[list[int], int] | None = None   # a sampled run: (the blocks that ran, blockDim)
        self.seed: int | None = None         # inputs past the budget are generated from this seed (sampled_regions.py)
        self.replied: dict[str, tuple[np.ndarray, np.ndarray]] = {}   # a sampled reply: output, elements written

    def __call__(self, call: dict[str, Any]) -> dict[str, Any]:
        self.calls += 1
        try:
            with np.load(call["data"]) as data:
                values = [value_from_spec(spec, data, f"arg.{i}") for i, spec in enumerate(call["args"])]
        except (OSError, ValueError, KeyError) as e:
            return self._stop(f"the extension call's arguments could not be read ({e})")
        own = f"aclnn{self.s.project.name}"
        if call["exec_op"] != own:
            return self._stop(f"{call['fn']}() launches {call['exec_op']}, not the answer's operator ({own}): CANN's "
                              "builtin operators are not emulated here", judgeable=False)
        case, outs, problem = bind_call(self.s.build.op, call, values, self.s.supported_dtypes,
                                        self.functions.get(call["fn"]), generated_seed=self.seed)
        if case is None:
            return self._stop(f"{call['fn']}(): {problem}")
        cap = SAMPLED_BUDGET if self.s.sample_blocks else OUTPUT_CAP_FACTOR * self.s.fallback_budget
        big = [f"{k} {list(o.shape)}" for k, o in case.outputs.items() if k not in case.inputs and math.prod(o.shape) > cap]
        if big:   # e.g. a binding that allocates the task's full output whatever the (shrunk) inputs are
            return self._stop(f"{call['fn']}(): the binding allocates {', '.join(big)}, more than the emulation holds "
                              f"({cap} elements); a shape fixed to the task's own does not follow the shrunk inputs",
                              judgeable=False)
        case.soc, case.timeout_s = self.s.soc.name, self.s.run_timeout_s
        case.label = f"{self.label} call {self.calls}"
        case.sample_blocks = self.s.sample_blocks
        poison(case, [np.asarray(a) for k, a in case.inputs.items() if k not in case.generated])
        r = self.s.toolchain.run(self.s.build, case)
        why = unsampleable(r) if r.sampled else None
        if why:
            return self._stop(why, judgeable=False)
        self.run.run_status, self.run.block_dim = r.status, r.block_dim
        self.run.seconds += r.seconds
        self.run.diagnostics = (r.errors() + [d for d in r.diagnostics if d.severity == "warning"])[:20]
        if r.status != "ok":
            self.failed = r
            return self._stop("the kernel failed")
        self.s.results.append((case.label, r))
        self.last = (case, r)
        if r.sampled:
            self.sampled = (r.sampled, r.block_dim)
            self.findings += [Mismatch(rule="input_mutated", output=f"input {n} (call {self.calls})", message="the "
                                       "sampled blocks wrote into an input (the reference leaves it unchanged)")
                              for n in written_inputs(case.inputs, r)]
        else:
            self.findings += unwritten(case, r.outputs)
            for name, before in case.inputs.items():
                m = compare_unchanged(f"input {name} (call {self.calls})", before, r.outputs.get(name))
                if m:
                    self.findings.append(m)
        store, dtypes = {}, {}
        for i, key in outs.items():
            arr = r.outputs.get(key)
            if arr is None:
                continue
            if r.sampled and self.seed is not None and arr.dtype.kind in "iub":   # judged where ModelNew passes it on
                self.replied[key] = (arr, element_mask(r.written.get(key) or [], arr.size,
                                                           arr.dtype.itemsize).reshape(arr.shape))
            elif r.sampled:
                arr, why = masked_reply(key, arr, r.written.get(key) or [])
                if arr is None and "wrote NaN" in why:
                    self.findings.append(Mismatch(rule="tolerance", output=f"output {key}", message=why))
                    return {"abort": why}
                if arr is None:
                    return self._stop(why, judgeable=False)
            bf16 = name_of(arr) == "bfloat16"
            store[f"out.{i}"] = arr.view(np.uint16) if bf16 else arr
            dtypes[str(i)] = "bfloat16" if bf16 else str(arr.dtype)
        path = Path(call["data"]).with_name(f"reply{self.calls}.npz")   # the worker sees only its own directory
        np.savez(path, **store)
        return {"data": str(path), "dtypes": dtypes}

    def _stop(self, why: str, judgeable: bool = True) -> dict[str, Any]:
        if not judgeable:
            self.unjudged = why
        elif self.failed is None and not self.findings:
            self.findings.append(Mismatch(rule="binding", output="call", message=why))
        return {"abort": why}


def _allocated_empty(fn: BoundFunction | None, name: str) -> bool:
    """The binding allocates `name` uninitialised (at::empty*, as the NPU hands garbage), not zeroed."""
    if fn is None:
        return True
    m = re.search(rf"\b{re.escape(name)}\s*=\s*(?:at|torch)::(\w+)", fn.prelude)
    return m is None or "empty" in m.group(1)


def bind_call(op: OpSpec | None, call: dict[str, Any], values: list[RefValue], supported: set[str] | None,
              fn: BoundFunction | None, generated_seed: int | None = None) -> tuple[Case | None, dict[int, str], str]:
    """The case for one EXEC_NPU_CMD call (and which argument index is which output key), or why none. A
    generated input (on the meta device in the worker) is made by the emulator from `generated_seed`."""
    if op is None:
        return None, {}, "the build read no OpDef from op_host"
    names: list[str] = call["names"]
    slots = len(op.inputs) + len(op.attrs) + len(op.outputs)
    if len(values) != slots:
        return None, {}, (f"its EXEC_NPU_CMD({call['exec_op']}, ...) passes {len(values)} arguments ({', '.join(names)}) "
                          f"and the OpDef declares {len(op.inputs)} inputs, {len(op.attrs)} attributes and "
                          f"{len(op.outputs)} outputs ({slots}), which aclnn takes in that order")
    case, outs = Case(), {}
    for i, p in enumerate(op.inputs):
        v = values[i]
        if v.kind in ("none", "unknown"):
            if p.param_type == "required":
                return None, {}, f"OpDef input '{p.name}' is required and its argument `{names[i]}` is " + \
                    ("empty" if v.kind == "none" else UNFOLLOWED)
            continue
        if is_dynamic(p) or v.kind == "tensor_list":
            got, _, problem = list_members(p, TaskValue(names[i], "call", i, v))
            if problem:
                return None, {}, problem
            case.inputs.update(got)
        elif v.kind == "tensor" and v.generated:
            if generated_seed is None:
                return None, {}, f"OpDef input '{p.name}' <- `{names[i]}` has no data (a meta tensor)"
            case.inputs[p.name] = placeholder(tuple(v.shape or ()), v.dtype or "float32")
            case.generated[p.name] = generated_seed
        elif v.kind == "tensor":
            case.inputs[p.name] = v.array
        elif v.kind == "scalar" and isinstance(v.value, (int, float, bool)):
            dt = p.dtypes[0] if p.dtypes and p.dtypes[0] in KERNEL_DTYPES else "float32"
            case.inputs[p.name] = np.asarray([v.value]).astype(dt)
        else:
            return None, {}, f"OpDef input '{p.name}' <- `{names[i]}` = {v.repr or v.value!r}, not a tensor"
    for j, a in enumerate(op.attrs):
        v = values[len(op.inputs) + j]
        if v.kind in ("none", "unknown"):
            continue
        if v.kind != "scalar":
            return None, {}, f"attribute '{a.name}' <- `{names[len(op.inputs) + j]}`, a {v.kind}, not a value"
        try:
            case.attrs[a.name] = attr_value(a.type, v.value)
        except (AttrValueError, TypeError, ValueError):
            return None, {}, (f"attribute '{a.name}' <- `{names[len(op.inputs) + j]}` = {v.value!r}, which is not a "
                              f"value of the OpDef's attribute type {a.type}")
    for k, p in enumerate(op.outputs):
        i = len(op.inputs) + len(op.attrs) + k
        v = values[i]
        outs[i] = p.name
        if v.kind == "tensor":
            dt = v.dtype if v.dtype in KERNEL_DTYPES else "float32"
            case.outputs[p.name] = OutputSpec(shape=tuple(v.shape or ()), dtype=dt)
            if not _allocated_empty(fn, names[i]):
                case.outputs[p.name].poison = None
    bad = sorted({name_of(a) for a in case.inputs.values()} - supported) if supported is not None else []
    if bad:
        return None, {}, f"the backend has no {', '.join(bad)} support"
    for name, arr in case.inputs.items():      # read every input back: the kernel must not write them
        if name in case.generated:             # its written bytes are still reported (written_inputs)
            continue
        case.outputs.setdefault(name, OutputSpec(shape=tuple(arr.shape), dtype=str(arr.dtype)))
    return case, outs, ""


def judge_model_new(s: Any, case: Any, seed: int, mapping: dict[int, int], ref: RefRun, run: CaseRun) -> None:
    """Run ModelNew for this trial and fill `run` (status, reason, mismatches)."""
    binder = CallBinder(s, f"{case.id} seed {seed}", run, s.model_new)
    got = s.worker.model_new(case, seed, mapping, model_src=s.model_src,
                             functions={k: vars(f) for k, f in s.model_new.items()}, on_call=binder, native=s.native)
    if isinstance(got, RefFailure):
        run.status, run.reason = "error", got.render()
        return
    if binder.unjudged:
        run.status, run.reason = "skipped", binder.unjudged
        return
    if binder.failed is not None:
        r = binder.failed
        errors = "; ".join(d.render() for d in r.errors()[:3])
        run.status = "fail"
        run.reason = f"the kernel run ended with {r.status}: {r.detail or errors}"[:2000]
        return
    run.notes.append(f"judged through the answer's ModelNew ({binder.calls} extension call(s), MultiKernelBench's "
                     "contract); its outputs compared with Model's")
    found = list(binder.findings)
    if got.problem:
        found.append(Mismatch(rule="model_new", output="ModelNew", message=got.problem))
    expected = expected_outputs(ref)
    outs = [o for o in got.outputs if o.kind == "tensor"]
    compared = 0
    if not got.problem and len(outs) != len(expected):
        found.append(Mismatch(rule="missing_output", output="ModelNew",
                              message=f"ModelNew returned {len(outs)} tensor(s), Model {len(expected)}"))
    elif not got.problem:
        for i, (e, o) in enumerate(zip(expected, outs)):
            if binder.sampled:
                more, n = compare_sampled(f"output {i}", e.array, o.array, s.tolerance, run.block_dim)
                found, compared = found + more, compared + n
            else:
                found += compare_output(f"output {i}", e.array, o.array, s.tolerance, block_dim=run.block_dim)
    if binder.sampled:
        blocks, block_dim = binder.sampled
        run.sampled_blocks = blocks
        where = "the shrunk shapes" if mapping else "the task's own shapes"
        run.notes.append(f"judged at {where} on sampled blocks {blocks} of {block_dim} (the first, the last and spread "
                         f"between): {compared} output element(s) compared, those the sampled blocks wrote; Model "
                         "computed in full; one call per trial (no repeat calls)")
        if compared == 0 and not found:
            run.status, run.reason = "skipped", ("no element of ModelNew's result comes from the sampled blocks alone "
                                                 "(it combines every element, or the blocks wrote none): not judged")
            return
    run.mismatches = found
    if found:
        run.status, run.reason = "fail", found[0].render().split("\n")[0]
    elif binder.last is not None:
        s.ran.append(RanCase(f"{case.id} seed {seed}", case, mapping, binder.last[0], binder.last[1], ref))
