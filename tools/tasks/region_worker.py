"""Worker side of judging past the element budget (referee/sampled_regions.py; imports torch): the task's inputs
made on the meta device (shapes, no memory; each must come from torch.rand, whose distribution the emulator's
generated inputs follow), the rule by which each output element depends on an input slice (found on a small
probe), and the reference computed on the input slices that the sampled blocks' outputs need."""
from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch.overrides import TorchFunctionMode

from kernelwright.tools.referee.region_values import region, values_at
from kernelwright.tools.tasks.worker_values import describe, flatten_outputs

GENERATED_FACTORIES = {"rand", "rand_like"}   # torch.rand's distribution: what generated.cpp makes


class _Factories(TorchFunctionMode):
    """Records which torch function made each tensor (by identity)."""

    def __init__(self) -> None:
        super().__init__()
        self.made: dict[int, str] = {}

    def __torch_function__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if isinstance(out, torch.Tensor):
            self.made[id(out)] = getattr(func, "__name__", str(func))
        return out


def meta_args(make, case: dict[str, Any]) -> tuple[list[Any], str | None]:
    """The case's inputs on the meta device, or why they cannot be generated."""
    rec = _Factories()
    with torch.device("meta"), rec:
        args, _ = make(case, {})
    tensors = [(i, a) for i, a in enumerate(args) if isinstance(a, torch.Tensor)]
    if len(tensors) != 1:
        return args, f"the task has {len(tensors)} tensor inputs; generated inputs are made for exactly one"
    i, t = tensors[0]
    made = rec.made.get(id(t), "?")
    if made not in GENERATED_FACTORIES or t.dtype != torch.float32:
        return args, (f"input {i} is made by torch.{made} as {t.dtype}; the emulator generates float32 torch.rand "
                      "values only")
    return args, None


def _probe_shape(shape: list[int]) -> list[int]:
    return [min(n, 5 + 2 * j) for j, n in enumerate(shape)]     # small, and distinct where the task's allow


def _sliced(model, x: torch.Tensor, box: list[slice]) -> torch.Tensor:
    with torch.no_grad():
        return flatten_outputs(model(x[tuple(box)].contiguous()))[0]


def slice_rule(model, shape: list[int], out_shape: list[int]) -> dict[str, Any]:
    """How each output element depends on the input: {"whole": input dim every output element reads whole (None:
    elementwise), "out_dims": the input dim of each output dim (-1: a kept reduced dim)}, or {"refused": why}.
    Found on a probe input: the candidate whose output shape matches and whose slices commute with the model."""
    probe = _probe_shape(shape)
    x = torch.from_numpy(values_at(1, np.arange(int(np.prod(probe)))).reshape(probe))
    with torch.no_grad():
        outs = flatten_outputs(model(x))
    if len(outs) != 1 or not isinstance(outs[0], torch.Tensor):
        return {"refused": f"the reference returns {len(outs)} values; sliced references are made for one tensor"}
    full = outs[0]
    r = len(shape)
    for whole in [None, *range(r)]:
        if whole is None:
            cands = [(list(range(r)), probe, shape)]
        else:
            drop = [j for j in range(r) if j != whole]
            cands = [(drop, [probe[j] for j in drop], [shape[j] for j in drop]),
                     ([-1 if j == whole else j for j in range(r)], [1 if j == whole else probe[j] for j in range(r)],
                      [1 if j == whole else shape[j] for j in range(r)]),
                     (list(range(r)), probe, shape)]           # row-wise: same shape, one dim read whole
        for out_dims, want_probe, want_task in cands:
            if list(full.shape) != want_probe or list(out_shape) != want_task:
                continue
            if all(_commutes(model, x, full, whole, out_dims, lo) for lo in (0, 1)):
                return {"whole": whole, "out_dims": out_dims}
    return {"refused": "no output element of the reference depends on an input slice alone (tried elementwise, "
                       "and each dimension read whole: reductions and row-wise ops), on a probe of shape "
                       f"{probe}"}


def _commutes(model, x, full, whole, out_dims, lo: int) -> bool:
    box = [slice(None) if j == whole else slice(lo, max(lo + 1, n - 1)) for j, n in enumerate(x.shape)]
    try:
        part = _sliced(model, x, box)
    except Exception:   # noqa: BLE001 - the model refuses the slice: not this rule
        return False
    want = full[tuple(slice(None) if d < 0 else box[d] for d in out_dims)]
    return part.shape == want.shape and torch.allclose(part.double(), want.double(), rtol=1e-5, atol=1e-6, equal_nan=True)


def reference_on(model, arg_index: int, args: list[Any], seed: int, boxes: list[list[list[int]]],
                 store: dict[str, np.ndarray]) -> dict[str, Any]:
    """Model on the generated input's slices `boxes` (per dim [start, stop)): out.<k> for box k."""
    shape = tuple(args[arg_index].shape)
    for k, box in enumerate(boxes):
        x = torch.from_numpy(region(seed, shape, tuple(slice(a, b) for a, b in box)))
        call = list(args)
        call[arg_index] = x
        with torch.no_grad():
            out = flatten_outputs(model(*call))[0]
        describe(out, store, f"out.{k}")
    return {"boxes": len(boxes)}
