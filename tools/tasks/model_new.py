"""Run an answer's `ModelNew` as MultiKernelBench does (worker side; imports torch).

MultiKernelBench's contract (utils/correctness.py): under one seed, `Model(*init_inputs)` and
`ModelNew(*init_inputs)` are built (the seed set again before each, so parameters held in `nn.Linear` /
`nn.Conv2d` / `nn.GroupNorm` come out the same), then `ModelNew(*inputs)` is compared with `Model(*inputs)`.
ModelNew calls the compiled extension (`custom_ops_lib.gemm_custom(x, self.fc.weight, ...)`). Here that
module is a stand-in whose functions have the parameters of the answer's pybind source (referee/pybind_sig)
and hand their named arguments to `dispatch`, which runs the operator on the chosen backend.

An answer whose ModelNew fails (no class, a bad call, its own exception) is a `ModelNewRun` with a
problem; an exception raised by `dispatch` (ours) propagates unchanged.
"""
from __future__ import annotations

import sys
import types
from dataclasses import dataclass
from typing import Any, Callable, Protocol

import torch

from kernelwright.tools.tasks import shim


class Signature(Protocol):     # referee.pybind_sig.BoundFunction, without importing the referee here
    name: str
    params: list[str]
    exec_op: str | None
    exec_args: list[str]
    prelude: str
    returns: list[str] | None


Dispatch = Callable[[Any, dict[str, Any]], Any]


@dataclass
class ModelNewRun:
    output: Any = None
    problem: str | None = None
    calls: int = 0                 # calls that reached the extension


class _FromDispatch(Exception):
    def __init__(self, error: BaseException):
        super().__init__(str(error))
        self.error = error


class _BadCall(TypeError):
    pass


def _function(fn: Signature, dispatch: Dispatch, run: ModelNewRun) -> Callable[..., Any]:
    def call(*args: Any, **kwargs: Any) -> Any:
        if len(args) > len(fn.params):
            raise _BadCall(f"{fn.name}() takes {len(fn.params)} arguments ({', '.join(fn.params)}), got {len(args)}")
        named = dict(zip(fn.params, args))
        for k, v in kwargs.items():
            if k not in fn.params or k in named:
                raise _BadCall(f"{fn.name}() got an unexpected or repeated argument '{k}'")
            named[k] = v
        run.calls += 1
        try:
            return dispatch(fn, named)
        except Exception as e:          # noqa: BLE001 - ours, re-raised as itself by run_model_new
            raise _FromDispatch(e) from e
    call.__name__ = fn.name
    return call


def extension(name: str, functions: dict[str, Signature], dispatch: Dispatch, run: ModelNewRun) -> types.ModuleType:
    """A module named `name` whose functions are the pybind source's, each calling `dispatch`."""
    mod = types.ModuleType(name)
    for fname, fn in functions.items():
        setattr(mod, fname, _function(fn, dispatch, run))

    def missing(attr: str) -> Any:
        if attr.startswith("_"):
            raise AttributeError(attr)
        raise AttributeError(f"the extension has no function '{attr}' (the pybind source exports: "
                             f"{', '.join(sorted(functions)) or 'nothing'})")
    mod.__getattr__ = missing  # type: ignore[attr-defined]
    return mod


def counted(native: types.ModuleType, run: ModelNewRun, stopped: Callable[[], BaseException | None]) -> types.ModuleType:
    """The answer's own binding built as a CPU extension (referee/aten_binding.py), its calls counted; a
    call the parent stopped (the kernel failed) ends ModelNew as a dispatch error does."""
    mod = types.ModuleType(native.__name__)

    def wrap(f: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            run.calls += 1
            try:
                return f(*args, **kwargs)
            except Exception as e:      # noqa: BLE001 - the binding's own errors are the answer's; ours re-raised
                why = stopped()
                if why is not None:
                    raise _FromDispatch(why) from e
                raise
        return call
    for attr in dir(native):
        value = getattr(native, attr)
        setattr(mod, attr, wrap(value) if callable(value) and not attr.startswith("_") else value)
    return mod


def set_seed(seed: int) -> None:
    torch.manual_seed(seed)


def run_model_new(model_src: str, *, init: list[Any], inputs: list[Any], functions: dict[str, Signature],
                  dispatch: Dispatch, seed: int, module_names: tuple[str, ...] = ("custom_ops_lib",),
                  dtype: torch.dtype | None = None, native: types.ModuleType | None = None,
                  stopped: Callable[[], BaseException | None] = lambda: None) -> ModelNewRun:
    """`ModelNew(*init)(*inputs)` with the seed set before construction, the extension stood in for (or,
    `native`, the answer's binding built for the CPU, whose EXEC_NPU_CMDs reach the operator)."""
    run = ModelNewRun()
    shim.install()                      # torch_npu and friends, as the reference worker has them
    ext = counted(native, run, stopped) if native is not None else extension(module_names[0], functions, dispatch, run)
    saved = {n: sys.modules.get(n) for n in module_names}
    sys.modules.update({n: ext for n in module_names})
    try:
        namespace: dict[str, Any] = {"__name__": "kw_model_new"}
        exec(compile(model_src, "model_new.py", "exec"), namespace)   # noqa: S102 - the answer's own code, in the worker
        cls = namespace.get("ModelNew")
        if not isinstance(cls, type):
            run.problem = "model_src defines no class ModelNew"
            return run
        with torch.no_grad():
            set_seed(seed)
            model = cls(*init)
            if dtype is not None and isinstance(model, torch.nn.Module):
                model = model.to(dtype)      # as the reference's Model for a case of another dtype
            run.output = model(*inputs)
    except _FromDispatch as e:
        raise e.error
    except Exception as e:              # noqa: BLE001 - the answer's code failed: a verdict, not a crash
        run.problem = f"ModelNew failed: {type(e).__name__}: {e}"
    finally:
        for n, m in saved.items():
            if m is None:
                sys.modules.pop(n, None)
            else:
                sys.modules[n] = m
    if run.problem is None and run.calls == 0:
        run.problem = "ModelNew returned without calling the extension (the kernel never ran)"
    return run
