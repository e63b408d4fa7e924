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


def exec_npu_cmd(op: str, names: str, args: list[Any]) -> None:
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
