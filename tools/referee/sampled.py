"""Judging at the task's own shapes on a sample of blocks, for cases too big to emulate whole.

The host TilingFunc runs on the real shapes; the kernel runs for the first, the last and a few spread blocks
(sim/run.py `sample_of`) on GM sized for the task and lazily committed (runtime/sample.cpp), and the verdict
compares exactly the output elements those blocks wrote. The reference (`Model`) is computed in full, at the
task's shapes, in the reference worker; the answer's `ModelNew` gets back the kernel's outputs with every
element the sample did not write set to NaN, so whatever it does with them afterwards, the elements of its
result that still hold a number derive from the sampled blocks alone, and only those are compared.

What cannot be judged this way is said, never passed: a kernel whose blocks wait for each other (SyncAll,
cross-core flags between AI Cores: rule sample.unsampleable), an integer output (no NaN to mark the rest with),
a ModelNew whose result mixes every element (nothing left to compare). Operator projects on the static binding
(no ModelNew: NPUKernelBench goldens) are sampled too, each output compared where the sampled blocks wrote it
(sampled_check); past SAMPLED_BUDGET see sampled_regions.py.
"""
from __future__ import annotations

import numpy as np

from kernelwright.tools.referee.compare import compare_output
from kernelwright.tools.referee.tolerance import Tolerance
from kernelwright.tools.referee.verdict import Mismatch
from kernelwright.tools.toolchain import RunResult

SAMPLE_BLOCKS = 4            # blocks a sampled launch runs: the first, the last and two spread between
FEWER_BLOCKS = 2             # ... when those four exceed the launch's CPU time together: the first and the last
SAMPLED_BUDGET = 1 << 28     # elements (inputs, init tensors, weights) a case may have to be judged at its own shapes
SAMPLED_REFERENCE_S = 360.0  # seconds the reference worker may take for one request in a sampled trial (full shapes)
UNSAMPLEABLE = "sample.unsampleable"


def element_mask(spans: list[tuple[int, int]], size: int, itemsize: int) -> np.ndarray:
    """Elements any of whose bytes lie in the written byte ranges."""
    mask = np.zeros(size, dtype=bool)
    for start, length in spans:
        mask[start // itemsize:min(size, -(-(start + length) // itemsize))] = True
    return mask


def unsampleable(r: RunResult) -> str | None:
    """Why a sampled run could not judge the kernel (its blocks exchange data), if it could not."""
    d = next((d for d in r.diagnostics if d.rule == UNSAMPLEABLE), None)
    return d.message if d else None


def masked_reply(name: str, arr: np.ndarray, spans: list[tuple[int, int]]) -> tuple[np.ndarray | None, str]:
    """The output handed back to ModelNew: the sampled blocks' elements, NaN elsewhere; (None, why) when the
    dtype has no NaN to mark the rest with, or the kernel wrote NaN itself (a failure: see CallBinder)."""
    if arr.dtype.kind != "f" and "float" not in str(arr.dtype):
        return None, (f"output {name} is {arr.dtype}: an integer output has no NaN to mark the elements the sampled "
                      "blocks did not write, so a sample cannot judge it")
    mask = element_mask(spans, arr.size, arr.dtype.itemsize).reshape(arr.shape)
    own_nan = int(np.isnan(arr[mask].astype(np.float32)).sum())
    if own_nan:   # NaN marks what the sample did not write: a kernel's own NaN would hide among them
        return None, f"the sampled blocks wrote NaN into {own_nan} element(s) of output {name}"
    out = np.array(arr, copy=True)
    out[~mask] = np.nan
    return out, ""


def written_inputs(inputs: dict[str, np.ndarray], r: RunResult) -> list[str]:
    """Inputs the sampled blocks wrote other values into (the reference leaves them unchanged)."""
    bad = []
    for name, before in inputs.items():
        spans, after = r.written.get(name) or [], r.outputs.get(name)
        if spans and after is None:      # a generated input (not read back): any write is one
            bad.append(name)
        if not spans or after is None:
            continue
        b, a = np.ascontiguousarray(before).reshape(-1).view(np.uint8), np.ascontiguousarray(after).reshape(-1).view(np.uint8)
        if any((a[s:s + n] != b[s:s + n]).any() for s, n in spans):
            bad.append(name)
    return bad


def compare_sampled(label: str, ref: np.ndarray, got: np.ndarray, tol: Tolerance, block_dim: int
                    ) -> tuple[list[Mismatch], int]:
    """Compare the elements of ModelNew's result that come from the sampled blocks (not NaN); (findings, count)."""
    ref, got = np.asarray(ref), np.asarray(got)
    if ref.shape != got.shape:
        return compare_output(label, ref, got, tol, block_dim=block_dim), 0
    with np.errstate(invalid="ignore"):
        keep = ~np.isnan(got.astype(np.float64) if got.dtype.kind == "f" or "float" in str(got.dtype) else got)
    n = int(keep.sum())
    if n == 0:
        return [], 0
    return compare_output(f"{label} (the {n} of {got.size} elements the sampled blocks wrote)", ref[keep], got[keep],
                          tol, block_dim=0), n


def sampled_check(tol: Tolerance, inputs: dict[str, np.ndarray], pairs: list[tuple[int, str, np.ndarray | None]],
                  r: RunResult) -> list[Mismatch]:
    """The static binding's check on a sampled run: each output (index, kernel name, reference) where the sampled
    blocks wrote it; inputs they wrote into; an output nobody wrote is no pass (nothing judged)."""
    found: list[Mismatch] = []
    compared = 0
    for i, name, ref in pairs:
        got = r.outputs.get(name)
        if got is None or ref is None or np.shape(ref) != got.shape:
            continue
        mask = element_mask(r.written.get(name) or [], got.size, got.dtype.itemsize).reshape(got.shape)
        if mask.any():
            compared += int(mask.sum())
            found += compare_output(f"output {i} ({name}: the {int(mask.sum())} of {got.size} elements the sampled "
                                    "blocks wrote)", np.asarray(ref)[mask], got[mask], tol, block_dim=0)
    found += [Mismatch(rule="input_mutated", output=f"input {n}", message="the sampled blocks wrote into an input")
              for n in written_inputs(inputs, r)]
    if compared == 0 and not found:
        found.append(Mismatch(rule="unwritten", output="outputs", message="the sampled blocks wrote no element of "
                              f"any output (blocks {r.sampled} of {r.block_dim})"))
    return found
