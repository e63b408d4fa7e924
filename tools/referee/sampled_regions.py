"""Judging at the task's own shapes past SAMPLED_BUDGET (inputs too big to hold, e.g. a reduction over one dim of
[128, 4096, 4096] float32): the sampled launch (sampled.py) runs on a generated input, made by the emulator on
first touch from the seed and the element offset (sim/runtime/generated.cpp, region_values.py), so only the GM
chunks the sampled blocks read cost memory; ModelNew runs in the worker on the input's meta-device stand-in (shapes
only) and its extension call runs here on the generated one; the reference (`Model`) is computed only for the
output elements the sampled blocks wrote, on the input slice they depend on (region_worker.slice_rule, found on
a small probe: elementwise ops, reductions over a dim and row-wise ops, which read one dim whole).

Refused with the reason, never passed: several tensor inputs, an input not made by torch.rand in float32 (the
generator's distribution), a reference whose outputs depend on no input slice alone, a ModelNew whose result is
neither NaN-marked (float) nor the kernel's output passed on unchanged (integer outputs: argmax), the answer's own
binding built for the CPU (its ATen code would need the whole input)."""
from __future__ import annotations

from typing import Any

import numpy as np

from kernelwright.tools.referee.compare import compare_output
from kernelwright.tools.referee.model_new_case import CallBinder
from kernelwright.tools.referee.sampled import SAMPLE_BLOCKS, SAMPLED_REFERENCE_S
from kernelwright.tools.referee.verdict import CaseRun, Mismatch
from kernelwright.tools.tasks.reference import RefFailure

REGION_REFERENCE_BUDGET = 1 << 26    # input elements the reference's slices may hold in all (256 MiB of float32)


def boxes_of(mask: np.ndarray, limit: int = 64) -> list[list[list[int]]]:
    """Output boxes (per dim [start, stop)) covering the True elements: one per contiguous run of them."""
    flat = np.flatnonzero(mask.reshape(-1))
    if flat.size == 0:
        return []
    breaks = np.flatnonzero(np.diff(flat) != 1)
    starts, ends = np.r_[flat[0], flat[breaks + 1]], np.r_[flat[breaks], flat[-1]]
    out = []
    for a, b in list(zip(starts, ends))[:limit]:
        idx = np.array(np.unravel_index(np.arange(a, b + 1), mask.shape))
        out.append([[int(lo), int(hi) + 1] for lo, hi in zip(idx.min(axis=1), idx.max(axis=1))])
    return out


def input_box(rule: dict[str, Any], out_box: list[list[int]]) -> list[list[int]]:
    """The input slice an output box depends on: the whole read dim, the mapped dims sliced as the output's."""
    box = [[0, n] for n in rule["shape"]]
    for o, d in enumerate(rule["out_dims"]):
        if d >= 0 and d != rule["whole"]:
            box[d] = list(out_box[o])
    return box


def fit(rule: dict[str, Any], box: list[list[int]], room: int) -> list[list[int]] | None:
    """`box` cut (halving its output dims, the leading first) until its input slice holds at most `room` elements;
    None when one output element's slice alone is more."""
    box = [list(b) for b in box]
    size = lambda: int(np.prod([hi - lo for lo, hi in input_box(rule, box)]))  # noqa: E731
    for o in range(len(box)):
        while size() > room and box[o][1] - box[o][0] > 1:
            box[o][1] = box[o][0] + (box[o][1] - box[o][0]) // 2
    return box if size() <= room else None


def _skip(run: CaseRun, why: str) -> CaseRun:
    run.status, run.reason = "skipped", f"past the element budget, not judged: {why}"
    return run


def region_trial(s: Any, case: Any, seed: int, trial: int, original: list[list[int]], label: str) -> CaseRun:
    """A trial at the task's own shapes with a generated input and a sliced reference (this module's docstring)."""
    run = CaseRun(case=case.id, trial=trial, seed=seed, label=label, original_shapes=original, run_shapes=original)
    if s.native or not s.model_new:
        return _skip(run, "only answers whose ModelNew calls the extension stand-in are judged on generated inputs")
    timeout = s.worker.timeout_s
    s.sample_blocks, s.worker.timeout_s = SAMPLE_BLOCKS, max(timeout, SAMPLED_REFERENCE_S)
    try:
        return _judge(s, case, seed, run)
    finally:
        s.sample_blocks, s.worker.timeout_s = 0, timeout


def _judge(s: Any, case: Any, seed: int, run: CaseRun) -> CaseRun:
    got = s.worker.region(case, seed, "rule")
    if isinstance(got, RefFailure):
        run.status, run.reason = "error", got.render()
        return run
    rule = got[0]
    if rule.get("refused"):
        return _skip(run, rule["refused"])
    binder = CallBinder(s, f"{case.id} seed {seed}", run, s.model_new)
    binder.seed = seed
    got = s.worker.region(case, seed, "model_new", on_call=binder, model_src=s.model_src,
                          functions={k: vars(f) for k, f in s.model_new.items()})
    if isinstance(got, RefFailure):
        run.status, run.reason = "error", got.render()
        return run
    resp, arrays = got
    if resp.get("refused"):
        return _skip(run, resp["refused"])
    if binder.unjudged:
        return _skip(run, binder.unjudged)
    if binder.failed is not None:
        r = binder.failed
        errors = "; ".join(d.render() for d in r.errors()[:3])
        run.status, run.reason = "fail", f"the kernel run ended with {r.status}: {r.detail or errors}"[:2000]
        return run
    found = list(binder.findings)
    if resp.get("problem") or resp.get("aborted"):
        found.append(Mismatch(rule="model_new", output="ModelNew", message=resp.get("problem") or resp["aborted"]))
        return _verdict(run, found)
    outs = resp.get("outputs", [])
    if len(outs) != 1 or outs[0].get("kind") != "tensor" or "out.0" not in arrays:
        return _skip(run, f"ModelNew returned {len(outs)} value(s) and not one tensor computed from the kernel's output "
                          "(a result computed from the inputs needs them whole)")
    out = arrays["out.0"]
    if list(out.shape) != rule["out_shape"]:
        return _skip(run, f"ModelNew's result has shape {list(out.shape)}, Model's {rule['out_shape']}")
    mask, why = _compared(out, binder)
    if mask is None:
        return _skip(run, why)
    boxes = boxes_of(mask)
    kept, total = [], 0
    for b in boxes:     # each written run, cut to what the reference budget leaves (the rest is not compared)
        b = fit(rule, b, REGION_REFERENCE_BUDGET // len(boxes))
        if b is not None:
            kept.append(b)
            total += int(np.prod([hi - lo for lo, hi in input_box(rule, b)]))
    if not kept:
        return _skip(run, f"the reference's input slice for the sampled outputs holds more than "
                          f"{REGION_REFERENCE_BUDGET} elements")
    got = s.worker.region(case, seed, "reference", boxes=[input_box(rule, b) for b in kept])
    if isinstance(got, RefFailure):
        run.status, run.reason = "error", got.render()
        return run
    refs, gots = [], []
    for k, b in enumerate(kept):
        sl = tuple(slice(lo, hi) for lo, hi in b)
        m = mask[sl]
        refs.append(got[1][f"out.{k}"].reshape(m.shape)[m])
        gots.append(out[sl][m])
    ref_all, got_all = np.concatenate(refs), np.concatenate(gots)
    found += compare_output(f"output 0 (the {ref_all.size} of {out.size} elements the sampled blocks wrote, reference "
                            f"on their input slices)", ref_all, got_all, s.tolerance, block_dim=0)
    blocks, block_dim = binder.sampled or ([], 0)
    run.sampled_blocks, run.block_dim = blocks, block_dim
    rule_text = ("elementwise" if rule["whole"] is None else f"each output element reads input dim {rule['whole']} whole")
    run.notes.append(f"judged at the task's own shapes on sampled blocks {blocks} of {block_dim} with a generated input "
                     f"(float32 uniform [0, 1) from the seed and the element offset, made where the blocks read it); "
                     f"Model computed on the input slices of the {ref_all.size} compared output element(s) only "
                     f"({len(kept)} slice(s), {total} input elements; {rule_text}, checked on a probe)"
                     + (f"; {int(mask.sum()) - ref_all.size} more written element(s) not compared (their input slices "
                        f"are past the reference budget of {REGION_REFERENCE_BUDGET} elements)"
                        if ref_all.size < int(mask.sum()) else ""))
    return _verdict(run, found)


def _compared(out: np.ndarray, binder: CallBinder) -> tuple[np.ndarray | None, str]:
    """The elements of ModelNew's result that come from the sampled blocks alone: not NaN (a float result), or,
    for an integer output, the written elements when ModelNew hands the kernel's output back unchanged."""
    if out.dtype.kind == "f" or "float" in str(out.dtype):
        with np.errstate(invalid="ignore"):
            mask = ~np.isnan(out.astype(np.float32))
    else:
        same = [m for arr, m in binder.replied.values() if arr.shape == out.shape and np.array_equal(arr, out)]
        if not same:
            return None, ("ModelNew's integer result is not the kernel's output unchanged, and an integer has no NaN "
                          "to mark what the sampled blocks did not write")
        mask = same[0]
    if not mask.any():
        return None, "no element of ModelNew's result comes from the sampled blocks alone"
    return mask, ""


def _verdict(run: CaseRun, found: list[Mismatch]) -> CaseRun:
    run.mismatches = found
    if found:
        run.status, run.reason = "fail", found[0].render().split("\n")[0]
    return run
