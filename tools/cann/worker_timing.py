"""Timing inside the worker, the way honest harnesses time (harnesses-and-peers.md §1.3, §5.4):
warm-up calls, then per trial an L2 flush (a write of >= 2x L2) *before* the start event, the call
between two NPU events, inputs rotated through fresh sets (floating inputs permuted: same values,
new order and new buffers, so no result can be reused). The PyTorch eager reference is timed in
the same process, on the same device, the same way. Raw samples go back; statistics are the
parent's (kernelwright.tools.timing)."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any, Callable

import numpy as np

from kernelwright.tools.cann.faults import looks_like_npu_fault
from kernelwright.tools.cann.worker_device import Device

MAX_FRESH_SETS = 16


def fresh_arrays(arr: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Same values in a new order for floating inputs (indices, masks and lengths keep their values)."""
    if arr.size > 1 and (arr.dtype.kind == "f" or arr.dtype.name == "bfloat16"):
        return rng.permutation(arr.reshape(-1)).reshape(arr.shape)
    return arr.copy()


def set_count(total_bytes: int, trials: int, budget: int, fresh: bool) -> int:
    if not fresh or total_bytes <= 0:
        return 1
    return max(1, min(trials, MAX_FRESH_SETS, budget // max(total_bytes, 1)))


def _loop(dev: Device, fn: Callable[[], Any], rebind: Callable[[int], None], sets: int, warmup: int, trials: int,
          flush) -> list[float]:
    for i in range(warmup):
        rebind(i % sets)
        fn()
    dev.sync()
    pairs = []
    for i in range(trials):
        rebind(i % sets)
        if flush is not None:
            flush.zero_()                       # outside the timed window
        start, end = dev.event(), dev.event()
        start.record()
        fn()
        end.record()
        pairs.append((start, end))
    dev.sync()
    return [float(s.elapsed_time(e)) for s, e in pairs]


def _import_model(source: str, class_name: str):
    folder = str(Path(source).parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    spec = importlib.util.spec_from_file_location("kw_timing_reference", source)
    if spec is None or spec.loader is None:
        raise FileNotFoundError(f"cannot import the reference {source}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if not hasattr(module, class_name):
        raise AttributeError(f"{source} defines no {class_name}")
    return getattr(module, class_name)


def _device_args(dev: Device, values: list[Any]) -> list[Any]:
    return [dev.to_device(v) if isinstance(v, np.ndarray) else v for v in values]


def time_kernel(dev: Device, call, inputs: dict[str, np.ndarray], cfg: dict[str, Any], flush_bytes: int,
                reference: dict[str, Any] | None, seed: int = 0) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    dev.empty_cache()
    flush = dev.torch.empty((flush_bytes // 4,), dtype=dev.torch.int32, device=dev.dev) if cfg["flush"] else None
    total = sum(a.nbytes for a in inputs.values())
    n_sets = set_count(total, cfg["trials"], cfg["fresh_budget_bytes"], cfg["fresh_inputs"])
    sets = [dict(call.inputs)] + [{k: dev.to_device(fresh_arrays(a, rng)) for k, a in inputs.items()}
                                  for _ in range(n_sets - 1)]
    kernel_ms = _loop(dev, call, lambda i: call.rebind(sets[i]), n_sets, cfg["warmup"], cfg["trials"], flush)
    call.release()
    out: dict[str, Any] = {"kernel_ms": kernel_ms, "fresh_sets": n_sets, "flush_bytes": flush_bytes if flush is not None else 0}
    del sets
    if reference is not None:
        try:
            out["reference_ms"] = time_reference(dev, reference, cfg, flush, rng)
        except Exception as e:  # noqa: BLE001  (a broken reference is reported next to the kernel's times)
            text = f"{type(e).__name__}: {e}"
            if looks_like_npu_fault(text):
                raise
            out["reference_error"] = text
    return out


def time_reference(dev: Device, ref: dict[str, Any], cfg: dict[str, Any], flush, rng: np.random.Generator) -> list[float]:
    torch = dev.torch
    model_cls = _import_model(ref["source"], ref.get("class_name", "Model"))
    init = [torch.from_numpy(np.ascontiguousarray(v)) if isinstance(v, np.ndarray) else v for v in ref["init_args"]]
    model = model_cls(*init)
    if isinstance(model, torch.nn.Module):
        model = model.to(dev.dev).eval()
    forward = list(ref["forward_args"])
    total = sum(v.nbytes for v in forward if isinstance(v, np.ndarray))
    n_sets = set_count(total, cfg["trials"], cfg["fresh_budget_bytes"], cfg["fresh_inputs"])
    sets = [_device_args(dev, forward)] + [_device_args(dev, [fresh_arrays(v, rng) if isinstance(v, np.ndarray) else v
                                                              for v in forward]) for _ in range(n_sets - 1)]
    current: list[list[Any]] = [sets[0]]

    def rebind(i: int) -> None:
        current[0] = sets[i]

    with torch.no_grad():
        return _loop(dev, lambda: model(*current[0]), rebind, n_sets, cfg["warmup"], cfg["trials"], flush)
