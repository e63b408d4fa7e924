"""The ATen operators a reference runs, in order, with the shapes and dtypes of their tensors: what
eager PyTorch would launch, one kernel each (read by the cost model's eager baseline,
tools/perf/eager.py). Runs inside the reference worker (torch is imported there)."""
from __future__ import annotations

from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

MAX_OPS = 20000


def _meta(t: torch.Tensor, storages: dict[int, int]) -> dict[str, Any]:
    """`storage`: which tensors share memory (a number per storage, in order of first use), so the eager
    baseline sees an op read what an earlier op wrote (its L2 model, tools/perf/eager.py)."""
    try:
        key: int | None = storages.setdefault(t.untyped_storage()._cdata, len(storages))
    except (RuntimeError, NotImplementedError, AttributeError):     # sparse and other storage-less tensors
        key = None
    return {"shape": list(t.shape), "dtype": str(t.dtype).replace("torch.", ""), "contiguous": bool(t.is_contiguous()),
            "storage": key}


class OpRecorder(TorchDispatchMode):
    def __init__(self) -> None:
        super().__init__()
        self.ops: list[dict[str, Any]] = []
        self.dropped = 0
        self.storages: dict[int, int] = {}

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if len(self.ops) >= MAX_OPS:
            self.dropped += 1
            return out
        ins = [_meta(t, self.storages) for t in tree_flatten((args, kwargs or {}))[0] if isinstance(t, torch.Tensor)]
        outs = [_meta(t, self.storages) for t in tree_flatten(out)[0] if isinstance(t, torch.Tensor)]
        self.ops.append({"op": str(func.overloadpacket.__name__), "overload": str(func), "inputs": ins, "outputs": outs})
        return out


def record(model: Any, args: list[Any]) -> dict[str, Any]:
    """The ops of one forward (under no_grad, as the referee runs it)."""
    rec = OpRecorder()
    with torch.no_grad(), rec:
        model(*args)
    return {"ops": rec.ops, "dropped": rec.dropped}
