"""The reference worker's `model_new` request (worker side; imports torch): run the answer's ModelNew on
the case's inputs, made under the same seed as the reference's, and hand every call into its extension to
the parent, which runs the built operator and sends its outputs back.

Each call is read as the answer's binding does it: the prelude of the pybind function (pybind_alloc)
gives the output tensors it allocates, the EXEC_NPU_CMD arguments give the operator's arguments in order
(inputs, attributes, outputs, as aclnn takes them), and the function returns what its `return` names.
Protocol: the worker writes `{"ok": true, "call": {...}}` on its channel and reads one reply line:
`{"data": npz}` with the operator's outputs by argument index (`out.<i>`), or `{"abort": reason}` when
the kernel failed (the run ends there; the parent has the verdict)."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np
import torch

from kernelwright.tools.tasks import aten_hook
from kernelwright.tools.tasks.model_new import ModelNewRun, run_model_new
from kernelwright.tools.tasks.pybind_alloc import UNKNOWN, evaluate, value_of
from kernelwright.tools.tasks.worker_values import TORCH_DTYPES, describe, flatten_outputs

Ask = Callable[[dict[str, Any]], dict[str, Any]]


@dataclass
class Fn:
    """referee.pybind_sig.BoundFunction as JSON brings it."""
    name: str
    cpp: str = ""
    params: list[str] = field(default_factory=list)
    exec_op: str | None = None
    exec_args: list[str] = field(default_factory=list)
    prelude: str = ""
    returns: list[str] | None = None
    helpers: dict[str, list] = field(default_factory=dict)
    constants: str = ""


_NATIVE: dict[str, Any] = {}     # built bindings loaded in this worker, by path (an extension loads once)


class KernelAborted(Exception):
    """The parent ran the operator and it failed: ModelNew stops here."""


def _tensor(arr: np.ndarray, dtype: str) -> torch.Tensor:
    t = torch.from_numpy(np.ascontiguousarray(arr))
    return t.view(torch.bfloat16) if dtype == "bfloat16" else t.to(TORCH_DTYPES.get(dtype, t.dtype))


def dispatcher(ask: Ask, tmp: Path) -> Callable[[Fn, dict[str, Any]], Any]:
    count = [0]

    def dispatch(fn: Fn, named: dict[str, Any]) -> Any:
        if not fn.exec_op:
            raise KernelAborted(f"the pybind function bound as '{fn.name}' has no EXEC_NPU_CMD: no operator to run")
        scope = evaluate(fn.prelude, named, fn.helpers, fn.constants)
        values = [value_of(a, scope) for a in fn.exec_args]
        store: dict[str, np.ndarray] = {}
        specs = []
        for i, (expr, v) in enumerate(zip(fn.exec_args, values)):
            spec = {"kind": "unknown", "repr": expr} if v is UNKNOWN else describe(v, store, f"arg.{i}")
            spec["made"] = expr not in named      # allocated by the binding (an output), not handed in by ModelNew
            specs.append(spec)
        count[0] += 1
        path = tmp / f"call{count[0]}.npz"
        np.savez(path, **store)
        reply = ask({"fn": fn.name, "exec_op": fn.exec_op, "names": fn.exec_args, "args": specs, "data": str(path)})
        path.unlink(missing_ok=True)
        if "abort" in reply:
            raise KernelAborted(reply["abort"])
        got: dict[int, torch.Tensor] = {}
        with np.load(reply["data"]) as data:
            for i, spec in enumerate(specs):
                if f"out.{i}" in data:
                    got[i] = _tensor(data[f"out.{i}"], reply["dtypes"][str(i)])
        Path(reply["data"]).unlink(missing_ok=True)
        for i, t in got.items():                 # the operator wrote these: the binding's tensors now hold it
            v, name = values[i], fn.exec_args[i]
            if isinstance(v, torch.Tensor) and not v.is_meta and v.numel() == t.numel() and v.dtype == t.dtype:
                v.copy_(t.reshape(v.shape))      # the kernel wrote the binding's buffer: its shape stands (0-d too)
            else:
                values[i] = t
                scope[name] = t
        if fn.returns:
            out = [scope.get(n) for n in fn.returns]
        else:   # no plain `return`: what the binding allocated and the operator wrote
            out = [values[i] for i in sorted(got) if specs[i]["made"]]
        return out[0] if len(out) == 1 else tuple(out)
    return dispatch


def serve(model_src: str, functions: dict[str, dict[str, Any]], *, init: list[Any], args: list[Any], seed: int,
          dtype: torch.dtype | None, ask: Ask, tmp: Path, store: dict[str, np.ndarray],
          native: str | None = None) -> dict[str, Any]:
    """ModelNew(*init)(*args), each extension call run by the parent; the outputs go into `store`. With
    `native` (the answer's binding built for the CPU, referee/aten_binding.py) ModelNew calls that module and
    only its EXEC_NPU_CMDs reach the parent."""
    fns = {k: Fn(**{f: v for f, v in spec.items() if f in Fn.__dataclass_fields__}) for k, spec in functions.items()}
    module = None
    if native:
        aten_hook.attach(ask, tmp, _tensor)
        module = _NATIVE.get(native) or _NATIVE.setdefault(native, aten_hook.load_module(native, "custom_ops_lib"))

    def stopped() -> BaseException | None:
        why = aten_hook.aborted()
        return KernelAborted(why) if why else None
    try:
        run = run_model_new(model_src, init=init, inputs=args, functions=fns, dispatch=dispatcher(ask, tmp),  # type: ignore[arg-type]
                            seed=seed, dtype=dtype, native=module, stopped=stopped)
    except KernelAborted as e:
        return {"aborted": str(e), "outputs": [], "calls": -1}
    return _response(run, store)


def _response(run: ModelNewRun, store: dict[str, np.ndarray]) -> dict[str, Any]:
    if run.problem:
        return {"problem": run.problem, "outputs": [], "calls": run.calls}
    outs = flatten_outputs(run.output)
    return {"outputs": [describe(o, store, f"out.{j}") for j, o in enumerate(outs)], "calls": run.calls,
            "outputs_seq": isinstance(run.output, (list, tuple))}
