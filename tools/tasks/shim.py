"""Make NPU-flavoured reference code run on the CPU (worker side; imports torch).

References written for Ascend do `import torch_npu`, `from torch_npu.contrib import transfer_to_npu`,
`import kernel_gen_ops`, call `.npu()`, pass `device="npu:0"` or call `torch.npu.synchronize()`.
`install()` provides harmless stand-ins for those modules, and `DeviceToCpu` (a torch function mode,
active for the worker's lifetime) rewrites npu/cuda devices to the CPU. NPU-only fused ops
(`torch_npu.npu_rms_norm`, ...) raise a clear error instead: there is no CPU version to fall back to.
"""
from __future__ import annotations

import sys
import types

import torch
from torch.overrides import TorchFunctionMode

_ACCEL = ("npu", "cuda")


class NpuOnly(RuntimeError):
    pass


def _raiser(owner: str):
    def getattr_(name: str):
        if name.startswith("_"):  # probes such as torch's `_is_in_bad_fork` must see a plain module
            raise AttributeError(name)

        def call(*_a, **_k):
            raise NpuOnly(f"{owner}.{name} runs only on an Ascend NPU; the CPU reference cannot call it")
        return call
    return getattr_


def _module(name: str, attrs: dict | None = None, fallback=None) -> types.ModuleType:
    mod = types.ModuleType(name)
    mod.__dict__.update(attrs or {})
    if fallback:
        mod.__getattr__ = fallback  # type: ignore[attr-defined]
    sys.modules[name] = mod
    return mod


class _Event:
    """torch.npu.Event stand-in: timing calls work, times are from the CPU clock."""

    def __init__(self, *_a, **_k):
        self.t = 0.0

    def record(self, *_a, **_k):
        import time
        self.t = time.perf_counter()

    def synchronize(self):
        pass

    def elapsed_time(self, other: "_Event") -> float:
        return (other.t - self.t) * 1000.0


def _npu_device_module() -> types.ModuleType:
    return _module("torch.npu", {
        "is_available": lambda: False, "device_count": lambda: 1, "current_device": lambda: 0,
        "set_device": lambda *_a, **_k: None, "synchronize": lambda *_a, **_k: None,
        "empty_cache": lambda: None, "manual_seed": lambda *_a: None, "manual_seed_all": lambda *_a: None,
        "_is_in_bad_fork": lambda: False,
        "Event": _Event, "current_stream": lambda *_a, **_k: None, "get_device_name": lambda *_a: "cpu (kernelwright shim)",
    }, _raiser("torch.npu"))


def _binding_check_precision(outputs, outputs_new, max_abs_error, max_rel_error):
    """NPUKernelBench's `framework.utils.check_precision` contract (an element fails only when both
    its absolute and relative error are above the bars), for task files that import it."""
    outputs = outputs if isinstance(outputs, list) else [outputs]
    outputs_new = outputs_new if isinstance(outputs_new, list) else [outputs_new]
    ok, abs_all, rel_all = True, [], []
    for ref, out in zip(outputs, outputs_new):
        if out.dtype == torch.bool:
            ref, out = ref.to(torch.int), out.to(torch.int)
        diff = (ref - out).abs()
        rel = diff / (ref.abs() + 1e-7)
        abs_all.append(diff.reshape(-1))
        rel_all.append(rel.reshape(-1))
        if not (torch.isfinite(ref).all() and torch.isfinite(out).all()):
            ok = False
        if ((diff > max_abs_error) & (rel > max_rel_error)).any():
            ok = False
    return int(ok), torch.cat(abs_all), torch.cat(rel_all)


def install() -> None:
    if getattr(torch, "_kernelwright_shim", False):
        return
    torch.utils.rename_privateuse1_backend("npu")
    npu = _npu_device_module()
    torch._register_device_module("npu", npu)
    contrib = _module("torch_npu.contrib", {"transfer_to_npu": _module("torch_npu.contrib.transfer_to_npu")})
    _module("torch_npu", {"npu": npu, "contrib": contrib, "__version__": "0+cpu-shim"}, _raiser("torch_npu"))
    for ext in ("kernel_gen_ops", "custom_ops_lib"):
        _module(ext, {}, _raiser(ext))
    framework = _module("framework")
    framework.utils = _module("framework.utils", {"check_precision": _binding_check_precision})  # type: ignore[attr-defined]
    identity = lambda self, *_a, **_k: self  # noqa: E731
    for cls in (torch.Tensor, torch.nn.Module):
        cls.npu = identity  # type: ignore[attr-defined]
        cls.cuda = identity  # type: ignore[assignment]
    torch.Tensor.is_npu = property(lambda self: False)  # type: ignore[attr-defined]
    torch._kernelwright_shim = True  # type: ignore[attr-defined]


def _is_accel(v) -> bool:
    if isinstance(v, torch.device):
        return v.type in _ACCEL
    return isinstance(v, str) and v.split(":")[0] in _ACCEL


class DeviceToCpu(TorchFunctionMode):
    """Rewrite npu/cuda devices to cpu in every torch call (factories' `device=`, `Tensor.to(...)`)."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = dict(kwargs or {})
        if _is_accel(kwargs.get("device")):
            kwargs["device"] = "cpu"
        if args and any(_is_accel(a) for a in args[1:]):
            args = tuple("cpu" if i and _is_accel(a) else a for i, a in enumerate(args))
        return func(*args, **kwargs)
