"""Worker side: describe task values (tensors, tensor lists, scalars) as JSON-able specs, store their
data for the parent, and make inputs at shrunk sizes (`ShrinkSizes`, a torch function mode that maps
the size arguments of tensor factories through the parent's dim mapping)."""
from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch.overrides import TorchFunctionMode

DTYPE_NAMES = {torch.float32: "float32", torch.float16: "float16", torch.bfloat16: "bfloat16", torch.float64: "float64",
               torch.int8: "int8", torch.uint8: "uint8", torch.int16: "int16", torch.int32: "int32",
               torch.int64: "int64", torch.bool: "bool", torch.complex64: "complex64", torch.complex128: "complex128",
               torch.uint16: "uint16", torch.uint32: "uint32", torch.uint64: "uint64"}
TORCH_DTYPES = {v: k for k, v in DTYPE_NAMES.items()}


def to_numpy(t: torch.Tensor) -> np.ndarray:
    """The tensor's data; bfloat16 travels as its uint16 bit pattern (the spec names the real dtype)."""
    t = t.detach().cpu().contiguous()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().view(np.uint16).copy()
    return t.numpy().copy()


def describe(value: Any, store: dict[str, np.ndarray] | None, key: str) -> dict[str, Any]:
    """A spec for one value; with `store`, tensor data goes into it under `key` (or `key.k` for lists)."""
    if isinstance(value, np.generic):       # numpy scalars (np.int64(3)) are plain numbers to a kernel
        value = value.item()
    elif isinstance(value, np.ndarray):     # numpy arrays travel as tensors
        value = torch.from_numpy(np.ascontiguousarray(value))
    if isinstance(value, torch.Tensor) and value.layout != torch.strided:
        return {"kind": "other", "repr": f"{value.layout} tensor {list(value.shape)} {DTYPE_NAMES.get(value.dtype)}"}
    if isinstance(value, torch.Tensor):
        spec = {"kind": "tensor", "shape": list(value.shape), "dtype": DTYPE_NAMES.get(value.dtype, str(value.dtype))}
        if value.is_meta:   # a generated input (region_worker.py): shape only, the emulator makes its values
            return {**spec, "generated": True}
        if store is not None:
            store[key] = to_numpy(value)
        return spec
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, torch.Tensor) for v in value):
        return {"kind": "tensor_list", "items": [describe(v, store, f"{key}.{k}") for k, v in enumerate(value)]}
    if value is None:
        return {"kind": "none"}
    if isinstance(value, torch.dtype):
        return {"kind": "scalar", "value": DTYPE_NAMES.get(value, str(value))}
    if isinstance(value, (bool, int, float, str)) or _plain_list(value):
        return {"kind": "scalar", "value": list(value) if isinstance(value, tuple) else value}
    return {"kind": "other", "repr": repr(value)[:200]}


def _plain_list(v: Any) -> bool:
    return isinstance(v, (list, tuple)) and all(isinstance(x, (bool, int, float, str)) or _plain_list(x) for x in v)


def remap(value: Any, mapping: dict[int, int]) -> Any:
    """Map ints that are shrunk dims (never bools); recurse into tuples, lists and torch.Size."""
    if isinstance(value, (bool, np.bool_)) or not mapping:
        return value
    if isinstance(value, (int, np.integer)):
        return type(value)(mapping.get(int(value), value))
    if isinstance(value, torch.Size):
        return torch.Size(remap(list(value), mapping))
    if isinstance(value, (list, tuple)) and not any(isinstance(v, torch.Tensor) for v in value):
        return type(value)(remap(v, mapping) for v in value)
    return value


def _sized_functions() -> tuple[set, set]:
    factories = {torch.randn, torch.rand, torch.randint, torch.zeros, torch.ones, torch.empty, torch.arange,
                 torch.randperm, torch.linspace, torch.logspace, torch.eye, torch.empty_strided}
    reshapers = {torch.Tensor.view, torch.Tensor.reshape, torch.reshape, torch.Tensor.expand, torch.Tensor.repeat,
                 torch.Tensor.new_zeros, torch.Tensor.new_ones, torch.Tensor.new_empty, torch.Tensor.new_full,
                 torch.Tensor.narrow, torch.narrow}
    return factories, reshapers


class ShrinkSizes(TorchFunctionMode):
    """While the task makes its inputs, map the sizes it asks for through `mapping` (original dim ->
    shrunk dim), so `torch.randn(4096, 393216)` becomes `torch.randn(64, 192)` and
    `torch.randint(0, 4096, ...)` still indexes inside the shrunk dim."""

    def __init__(self, mapping: dict[int, int]):
        super().__init__()
        self.mapping = mapping
        self.factories, self.reshapers = _sized_functions()

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = dict(kwargs or {})
        if func in (torch.full, torch.normal):
            if func is torch.full and args:
                args = (remap(args[0], self.mapping),) + tuple(args[1:])
            if "size" in kwargs:
                kwargs["size"] = remap(kwargs["size"], self.mapping)
        elif func in self.factories or func in self.reshapers:
            args = tuple(remap(a, self.mapping) for a in args)
            kwargs = {k: remap(v, self.mapping) if k in ("size", "high", "low", "end", "steps", "n", "m") else v
                      for k, v in kwargs.items()}
        return func(*args, **kwargs)


def flatten_outputs(out: Any) -> list[Any]:
    """Reference outputs as a flat list: a tensor, a (nested) tuple/list of them, a scalar, or None."""
    if out is None:
        return []
    if isinstance(out, (list, tuple)):
        return [x for item in out for x in flatten_outputs(item)]
    if isinstance(out, (bool, int, float)):
        return [torch.tensor(out)]
    return [out]


def cast_floats(value: Any, dtype: torch.dtype) -> Any:
    if isinstance(value, torch.Tensor):
        return value.to(dtype) if value.is_floating_point() else value
    if isinstance(value, (list, tuple)):
        return type(value)(cast_floats(v, dtype) for v in value)
    return value


def clone(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return value.clone()
    if isinstance(value, (list, tuple)):
        return type(value)(clone(v) for v in value)
    return value


def same_bits(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Bitwise equality (NaN-safe), for the reference's own input-mutation check."""
    if a.layout != torch.strided or b.layout != torch.strided:
        return a.layout == b.layout and bool(torch.equal(a.to_dense(), b.to_dense()))
    return a.shape == b.shape and a.dtype == b.dtype and np.array_equal(
        to_numpy(a).reshape(-1).view(np.uint8), to_numpy(b).reshape(-1).view(np.uint8))
