"""The EXEC_NPU_CMD of a binding built as a CPU extension (referee/aten_binding.py), worker side.

The built binding runs its own ATen code on the CPU; each EXEC_NPU_CMD it reaches calls `exec_npu_cmd`
here with the operator's name, the argument text and the argument values (tensors share the binding's
storage). The call goes to the parent as the stand-in extension's calls do (model_new_serve.py), the parent
runs the built operator, and its outputs are written into the binding's own tensors in place, as the
kernel writes the NPU buffers the binding allocated.
"""
from __future__ import annotations

import importlib.machinery
import importlib.util
import types
from pathlib import Path
from typing import Any, Callable

import numpy as np
import torch

from kernelwright.tools.cpp_split import split_top_level
from kernelwright.tools.tasks.worker_values import describe

Ask = Callable[[dict[str, Any]], dict[str, Any]]

_state: dict[str, Any] = {}


class Aborted(Exception):
    """The parent ran the operator and it failed (or could not run it): the binding stops here."""


def attach(ask: Ask, tmp: Path, to_tensor: Callable[[np.ndarray, str], torch.Tensor]) -> None:
    _state.update(ask=ask, tmp=tmp, to_tensor=to_tensor, count=0, aborted=None)


def aborted() -> str | None:
    return _state.get("aborted")


def _convolution(a: list[Any]) -> list[tuple[int, torch.Tensor]]:
    x, w, b, stride, padding, dilation, transposed, out_pad, groups = a[:9]
    return [(9, torch.convolution(x, w, b, stride, padding, dilation, bool(transposed), out_pad, int(groups)))]


def _batch_norm(a: list[Any]) -> list[tuple[int, torch.Tensor]]:
    x, w, b, mean, var, training, momentum, eps = a[:8]
    dims = [d for d in range(x.dim()) if d != 1]
    found = [(8, torch.nn.functional.batch_norm(x, mean, var, w, b, bool(training), float(momentum), float(eps)))]
    if training:       # saveMean / saveInvstd: the batch statistics, as aclnnBatchNorm returns them
        found += [(9, x.mean(dims)), (10, torch.rsqrt(x.var(dims, unbiased=False) + float(eps)))]
    return found


def _group_norm(a: list[Any]) -> list[tuple[int, torch.Tensor]]:
    x, gamma, beta, n, c, hxw, groups, eps = a[:8]
    out, mean, rstd = torch.native_group_norm(x, gamma, beta, int(n), int(c), int(hxw), int(groups), float(eps))
    return [(8, out), (9, mean), (10, rstd)]


def _mean(a: list[Any]) -> list[tuple[int, torch.Tensor]]:
    x, dims, keep = a[:3]
    return [(len(a) - 1, x.mean(list(dims), keepdim=bool(keep)))]


def _layer_norm(a: list[Any]) -> list[tuple[int, torch.Tensor]]:
    # (self, normalizedShape, weightOptional, biasOptional, eps, out, meanOutOptional, rstdOutOptional): mean and
    # rstd keep the normalized dims as 1s, in float
    x, shape, w, b, eps = a[:5]
    dims = list(range(x.dim() - len(list(shape)), x.dim()))
    w, b = (t if isinstance(t, torch.Tensor) and t.numel() else None for t in (w, b))
    xf = x.float()
    var, mean = torch.var_mean(xf, dims, unbiased=False, keepdim=True)
    return [(5, F.layer_norm(x, list(shape), w, b, float(eps))), (6, mean), (7, torch.rsqrt(var + float(eps)))]


# CANN's own operators a binding may launch beside (or instead of) the answer's: aclnn name -> what they
# compute (the aclnn signatures of CANN 8.x's aclnnop headers: inputs, attributes, outputs in order), as
# PyTorch computes it. They are CANN's library, not the answer's kernel (anticheat.check_builtin_only says
# so when the binding launches nothing else).
F = torch.nn.functional
BUILTINS: dict[str, Callable[[list[Any]], list[tuple[int, torch.Tensor]]]] = {
    "aclnnConvolution": _convolution, "aclnnBatchNorm": _batch_norm, "aclnnGroupNorm": _group_norm,
    "aclnnMean": _mean, "aclnnLayerNorm": _layer_norm,
    "aclnnGelu": lambda a: [(1, F.gelu(a[0]))],
    "aclnnRelu": lambda a: [(1, torch.relu(a[0]))],
    # (self, weight, kernelSize, bias, stride, padding, dilation, out, cubeMathType)
    "aclnnConvDepthwise2d": lambda a: [(7, F.conv2d(a[0], a[1], a[3], a[4], a[5], a[6], groups=a[0].shape[1]))],
    # (self, kernelSize, strides, paddings, ceilMode, countIncludePad, divisorOverride, cubeMathType, out)
    "aclnnAvgPool2d": lambda a: [(8, F.avg_pool2d(a[0], a[1], a[2], a[3], bool(a[4]), bool(a[5]), int(a[6]) or None))],
    # (theta, outputSize, alignCorners, out)
    "aclnnAffineGrid": lambda a: [(3, F.affine_grid(a[0], list(a[1]), align_corners=bool(a[2])))],
    # (self, grid, interpolationMode, paddingMode, alignCorners, out)
    "aclnnGridSampler2D": lambda a: [(5, torch.grid_sampler_2d(a[0], a[1], int(a[2]), int(a[3]), bool(a[4])))],
    # (self, outputSize, alignCorners, scalesH, scalesW, out)
    "aclnnUpsampleBilinear2dAA": lambda a: [(5, torch._upsample_bilinear2d_aa(a[0], list(a[1]), bool(a[2]),
                                                                               a[3] or None, a[4] or None))],
}


def _builtin(op: str, args: list[Any]) -> None:
    with torch.no_grad():
        for i, value in BUILTINS[op](args):
            out = args[i] if i < len(args) else None
            if isinstance(out, torch.Tensor) and isinstance(value, torch.Tensor) and out.numel() == value.numel():
                out.copy_(value.reshape(out.shape).to(out.dtype))
    _state["builtin"] = sorted(set(_state.get("builtin", [])) | {op})


def exec_npu_cmd(op: str, names: str, args: list[Any]) -> None:
    if op in BUILTINS:
        _builtin(op, args)
        return
    ask: Ask = _state["ask"]
    tmp: Path = _state["tmp"]
    arg_names = [a.strip() for a in split_top_level(names)] if names.strip() else []
    arg_names += [f"arg{i}" for i in range(len(arg_names), len(args))]
    store: dict[str, np.ndarray] = {}
    specs = [describe(v, store, f"arg.{i}") for i, v in enumerate(args)]
    _state["count"] += 1
    path = tmp / f"native_call{_state['count']}.npz"
    np.savez(path, **store)
    reply = ask({"fn": "EXEC_NPU_CMD", "exec_op": op, "names": arg_names[:len(args)], "args": specs, "data": str(path)})
    path.unlink(missing_ok=True)
    if "abort" in reply:
        _state["aborted"] = reply["abort"]
        raise Aborted(reply["abort"])
    with np.load(reply["data"]) as data:
        for i, v in enumerate(args):
            key = f"out.{i}"
            if key in data and isinstance(v, torch.Tensor):
                t = _state["to_tensor"](data[key], reply["dtypes"][str(i)])
                if t.numel() == v.numel():
                    v.copy_(t.reshape(v.shape).to(v.dtype))
    Path(reply["data"]).unlink(missing_ok=True)


def load_module(path: str, name: str) -> types.ModuleType:
    """The built extension, imported from its file under the name ModelNew imports."""
    loader = importlib.machinery.ExtensionFileLoader(name, path)
    spec = importlib.util.spec_from_file_location(name, path, loader=loader)
    if spec is None:
        raise ImportError(f"cannot load {path}")
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod
