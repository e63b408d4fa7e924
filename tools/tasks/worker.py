"""The reference worker: a subprocess that imports a task (through the NPU shim), makes its inputs
with a seed, optionally at shrunk sizes, and runs the PyTorch reference on the CPU.

Protocol: one JSON request per line on stdin, one JSON response per line on the original stdout
(the task's own prints go to stderr). Requests: `load` {task}, `count` {}, `describe` {case} (shapes
only, under FakeTensorMode: nothing is allocated), `run` {case, seed, mapping, out} (tensors are
written to the `out` .npz), `check` {case, data, dtypes, seq} (the task's custom_check_precision),
`aten_ops` {case, mapping, fake_only} (the ATen ops one forward runs, for the eager baseline). A task error is a
response with `ok: false`, never a crash.
"""
from __future__ import annotations

import contextlib
import importlib.util
import inspect
import json
import os
import random
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any

import numpy as np
import torch

from kernelwright.tools.tasks import region_worker, shim
from kernelwright.tools.tasks.kernel_call import first_call, parameter_names, returned_outputs
from kernelwright.tools.tasks.model_new_serve import serve
from kernelwright.tools.tasks.window_floors import WindowFloors
from kernelwright.tools.tasks.worker_values import (TORCH_DTYPES, ShrinkSizes, cast_floats, clone, describe,
                                                    flatten_outputs, remap, same_bits)


class Row(dict):
    """A CSV row as NPUKernelBench tasks read it (a pandas Series: `row.get(k)`, `row[k]`, `row.k`)."""

    def __getattr__(self, key: str) -> Any:
        try:
            return self[key]
        except KeyError:
            raise AttributeError(key) from None


class TaskFailed(Exception):
    def __init__(self, where: str, exc: BaseException):
        super().__init__(f"{where}: {type(exc).__name__}: {exc}")
        self.where, self.exc = where, exc


def _import(path: str, name: str):
    folder = str(Path(path).parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def _params(fn) -> list[str]:
    try:
        return [p.name for p in inspect.signature(fn).parameters.values()
                if p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    except (TypeError, ValueError):
        return []


def _seed(seed: int) -> None:
    torch.manual_seed(seed)
    random.seed(seed)
    np.random.seed(seed % (1 << 32))


def _call(where: str, fn, *args, **kwargs):
    try:
        return fn(*args, **kwargs)
    except Exception as e:  # the task's code failed: report it, keep serving
        raise TaskFailed(where, e) from e


class TaskRunner:
    def __init__(self, task: dict[str, Any]):
        self.task = task
        self.mod = _call("import", _import, task["source"], "kw_task_model")
        self.inputs = _call("import", _import, task["inputs_source"], "kw_task_inputs") if task.get("inputs_source") \
            else self.mod
        model = getattr(self.mod, "Model", None)
        if model is None:
            raise TaskFailed("import", AttributeError(f"{task['source']} defines no Model"))
        self.model_cls = model
        self.forward_params, self.init_params = _params(model.forward), _params(model.__init__)

    # ---- making inputs ----
    def _groups(self, case: dict[str, Any]) -> list[Any]:
        sidecar = Path(self.task["source"]).with_suffix(".json")
        if not sidecar.is_file():
            return _call("get_input_groups", self.mod.get_input_groups)[case["index"]]
        # Hand the task a copy of its JSON lines holding only this group: the other groups may be huge.
        lines = [line for line in sidecar.read_text().splitlines() if line.strip()]
        with tempfile.TemporaryDirectory(prefix="kw-group-") as tmp:
            (Path(tmp) / sidecar.name).write_text(lines[case["index"]] + "\n")
            saved = self.mod.__dict__.get("__file__")
            self.mod.__dict__["__file__"] = str(Path(tmp) / Path(self.task["source"]).name)
            try:
                return _call("get_input_groups", self.mod.get_input_groups)[0]
            finally:
                self.mod.__dict__["__file__"] = saved

    def make(self, case: dict[str, Any], mapping: dict[int, int]) -> tuple[list[Any], list[Any]]:
        kind = self.task["input_kind"]
        if kind == "npukb_rows":
            row = Row({k: float("nan") if v is None else v for k, v in case["params"].items()})
            args = _call("get_inputs", self.inputs.get_inputs, row, device="cpu")
            init = _call("get_init_inputs", self.inputs.get_init_inputs, row, device="cpu") \
                if hasattr(self.inputs, "get_init_inputs") else []
        else:
            args = self._groups(case) if kind == "input_groups" else _call("get_inputs", self.mod.get_inputs)
            init = _call("get_init_inputs", self.mod.get_init_inputs) if hasattr(self.mod, "get_init_inputs") else []
        args = list(args) if isinstance(args, (list, tuple)) else [args]
        init = list(init) if isinstance(init, (list, tuple)) else [init]
        args, init = [remap(a, mapping) for a in args], [remap(a, mapping) for a in init]
        if case.get("dtype"):
            dtype = TORCH_DTYPES[case["dtype"]]
            args, init = cast_floats(args, dtype), cast_floats(init, dtype)
        return args, init

    def _model(self, case: dict[str, Any], init: list[Any]) -> torch.nn.Module:
        model = _call("Model()", self.model_cls, *init)
        if case.get("dtype"):
            model = model.to(TORCH_DTYPES[case["dtype"]])
        return model.eval() if isinstance(model, torch.nn.Module) else model

    def _model_at(self, case: dict[str, Any], init: list[Any], mapping: dict[int, int]) -> torch.nn.Module:
        """The Model under the case's shrunk sizes (sizes it hard-codes shrink too); one whose constructor fails
        there (a Python loop over a hard-coded size filling a tensor the mapping shrank: sparse_attention's mask)
        is built at its own sizes, as the task wrote it, from the same random state."""
        if not mapping:
            return self._model(case, init)
        state = torch.random.get_rng_state()
        try:
            with ShrinkSizes(mapping):
                return self._model(case, init)
        except TaskFailed:
            torch.random.set_rng_state(state)
            return self._model(case, init)

    def _params(self, model: Any, store: dict | None) -> list[dict[str, Any]]:
        if not isinstance(model, torch.nn.Module):
            return []
        named = list(model.named_parameters()) + list(model.named_buffers())
        return [{"name": n, **describe(t, store, f"param.{n}")} for n, t in named]

    def check(self, case: dict[str, Any], data: str, dtypes: list[str], seq: bool) -> dict[str, Any]:
        """The task's own `custom_check_precision(row, reference_outputs, kernel_outputs)` verdict."""
        check = getattr(self.inputs, "custom_check_precision", None) or getattr(self.mod, "custom_check_precision")
        with np.load(data) as npz:
            def tensor(key: str, dtype: str) -> torch.Tensor:
                t = torch.from_numpy(npz[key].copy())
                return t.view(torch.bfloat16) if dtype == "bfloat16" else t
            ref = [tensor(f"ref.{i}", d) for i, d in enumerate(dtypes[0::2])]
            out = [tensor(f"out.{i}", d) for i, d in enumerate(dtypes[1::2])]
        row = Row({k: float("nan") if v is None else v for k, v in case["params"].items()})
        passed, abs_diff, rel_diff = _call("custom_check_precision", check, row, ref if seq or len(ref) > 1 else ref[0],
                                           out if seq or len(out) > 1 else out[0])
        finite = lambda t: float(t[torch.isfinite(t)].max()) if t.numel() and torch.isfinite(t).any() else 0.0  # noqa: E731
        return {"pass": bool(passed), "max_abs": finite(abs_diff.float()), "max_rel": finite(rel_diff.float())}

    def signature(self) -> dict[str, Any]:
        return {"forward_params": self.forward_params, "init_params": self.init_params}

    # ---- requests ----
    def count(self) -> dict[str, Any]:
        from torch._subclasses.fake_tensor import FakeTensorMode
        with FakeTensorMode(allow_non_fake_inputs=True):
            return {"groups": len(_call("get_input_groups", self.mod.get_input_groups))}

    def describe(self, case: dict[str, Any], mapping: dict[int, int]) -> dict[str, Any]:
        """Shapes on fake tensors; with a mapping, every size the task asks torch for is shrunk, in its forward
        too (the real run shrinks the inputs and the Model only: a forward whose outputs differ between the
        two hard-codes a size)."""
        from torch._subclasses.fake_tensor import FakeTensorMode
        shrunk = (lambda: ShrinkSizes(mapping)) if mapping else contextlib.nullcontext
        with FakeTensorMode(allow_non_fake_inputs=True):
            _seed(0)
            with shrunk():
                args, init = self.make(case, mapping)
            result = {"args": [describe(a, None, "") for a in args], "init": [describe(a, None, "") for a in init]}
            try:
                model = self._model_at(case, init, mapping)
                result["params"] = self._params(model, None)
                with torch.no_grad(), WindowFloors() as windows, shrunk():
                    out = model(*args)
                result["outputs"] = [describe(o, None, "") for o in flatten_outputs(out)]
                result["floors"] = {str(k): v for k, v in windows.floors.items()}
                result["unfolded"] = windows.unfolded
                result["groups"] = {str(k): v for k, v in windows.groups.items()}
                result["multiples"] = {str(k): v for k, v in windows.multiples.items()}
            except Exception as e:  # shapes of outputs are a nicety: the real run will tell
                result["outputs_error"] = f"{type(e).__name__}: {str(e)[:300]}"
        return result

    def run(self, case: dict[str, Any], seed: int, mapping: dict[int, int], out: str) -> dict[str, Any]:
        start = time.monotonic()
        _seed(seed)
        with ShrinkSizes(mapping) if mapping else contextlib.nullcontext():
            args, init = self.make(case, mapping)
        _seed(seed)
        model = self._model_at(case, init, mapping)     # sizes the Model hard-codes shrink, too
        before = clone(args)
        notes: list[str] = []
        try:
            with torch.no_grad():
                result = model(*args)
        except Exception as e:
            if not case.get("dtype") or "not implemented for" not in str(e):
                raise TaskFailed("forward", e) from e
            # The CPU lacks a half/bfloat16 kernel for some op: compute in float32, round to the dtype.
            notes.append(f"reference computed in float32 and rounded to {case['dtype']} ({str(e)[:120]})")
            args = cast_floats(clone(before), torch.float32)
            with torch.no_grad():
                result = _call("forward", model.float(), *args)
            result = cast_floats(result, TORCH_DTYPES[case["dtype"]])
        store: dict[str, np.ndarray] = {}
        response = {"args": [describe(a, store, f"in.{i}") for i, a in enumerate(before)],
                    "init": [describe(a, store, f"init.{i}") for i, a in enumerate(init)],
                    "params": self._params(model, store),
                    "outputs": [describe(o, store, f"out.{j}") for j, o in enumerate(flatten_outputs(result))],
                    "mutated": [], "notes": notes, "outputs_seq": isinstance(result, (list, tuple))}
        for i, (a, b) in enumerate(zip(before, args)):
            pairs = list(zip(a, b)) if isinstance(a, (list, tuple)) else [(a, b)]
            if any(isinstance(x, torch.Tensor) and not same_bits(x, y) for x, y in pairs):
                response["mutated"].append(i)
                describe(b, store, f"post.{i}")
        if self.task.get("layout") == "npukb" and hasattr(self.mod, "ModelNew"):
            self._kernel_call(init, before, store, response)
        np.savez(out, **store)
        response["seconds"] = time.monotonic() - start
        return response

    def model_new(self, req: dict[str, Any], mapping: dict[int, int], ask) -> dict[str, Any]:
        """The answer's ModelNew on this case's inputs, made as `run` makes them (model_new_serve.py)."""
        case, seed = req["case"], int(req["seed"])
        _seed(seed)
        with ShrinkSizes(mapping) if mapping else contextlib.nullcontext():
            args, init = self.make(case, mapping)
        store: dict[str, np.ndarray] = {}
        response = serve(req["model_src"], req["functions"], init=init, args=args, seed=seed, ask=ask,
                         dtype=TORCH_DTYPES[case["dtype"]] if case.get("dtype") else None,
                         tmp=Path(req["out"]).parent, store=store, native=req.get("native"))
        np.savez(req["out"], **store)
        return response

    def region(self, req: dict[str, Any], ask) -> dict[str, Any]:
        """Judging past the element budget (region_worker.py): `rule` (how outputs depend on input slices),
        `model_new` (ModelNew on meta inputs, the extension run on generated ones) or `reference` (Model on the
        generated input's slices `boxes`)."""
        case, seed, what = req["case"], int(req["seed"]), req["what"]
        _seed(seed)
        args, why = region_worker.meta_args(self.make, case)
        if why:
            return {"refused": why}
        _seed(seed)
        init = self._init(case)
        index = next(i for i, a in enumerate(args) if isinstance(a, torch.Tensor))
        if what == "model_new":
            store: dict[str, np.ndarray] = {}
            response = serve(req["model_src"], req["functions"], init=init, args=args, seed=seed, ask=ask, dtype=None,
                             tmp=Path(req["out"]).parent, store=store)
            np.savez(req["out"], **store)
            return response
        _seed(seed)
        model = self._model(case, init)
        if what == "rule":
            with torch.no_grad():
                out = flatten_outputs(_call("forward", model, *args))
            if len(out) != 1 or not isinstance(out[0], torch.Tensor):
                return {"refused": f"the reference returns {len(out)} values; sliced references are made for one tensor"}
            rule = _call("forward", region_worker.slice_rule, model, list(args[index].shape), list(out[0].shape))
            return {**rule, "arg": index, "shape": list(args[index].shape), "out_shape": list(out[0].shape)}
        store = {}
        response = _call("forward", region_worker.reference_on, model, index, args, seed, req["boxes"], store)
        np.savez(req["out"], **store)
        return response

    def _init(self, case: dict[str, Any]) -> list[Any]:
        if self.task["input_kind"] == "npukb_rows" or not hasattr(self.mod, "get_init_inputs"):
            return []
        init = _call("get_init_inputs", self.mod.get_init_inputs)
        return list(init) if isinstance(init, (list, tuple)) else [init]

    def aten_ops(self, case: dict[str, Any], mapping: dict[int, int], fake_only: bool = False) -> dict[str, Any]:
        """The ATen ops of one forward at the (shrunk) shapes: traced on fake tensors (nothing computed),
        or on real ones when the reference needs data (nonzero, item, ...) unless `fake_only` (the task's own
        shapes may not fit in memory)."""
        from torch._subclasses.fake_tensor import FakeTensorMode

        from kernelwright.tools.tasks.aten_ops import record

        def traced(fake: bool) -> dict[str, Any]:
            with FakeTensorMode(allow_non_fake_inputs=True) if fake else contextlib.nullcontext():
                _seed(0)
                with ShrinkSizes(mapping) if mapping else contextlib.nullcontext():
                    args, init = self.make(case, mapping)
                _seed(0)
                model = self._model_at(case, init, mapping)
                return record(model, args)
        if fake_only:
            return traced(True)
        try:
            return traced(True)
        except Exception:  # noqa: BLE001 - data-dependent references cannot run on fake tensors
            return traced(False)


    def _kernel_call(self, init: list[Any], args: list[Any], store: dict[str, np.ndarray], response: dict[str, Any]) -> None:
        """The values the task's ModelNew hands the operator (kernel_call.py); those that are not the
        case's own inputs or init values are kept with their data."""
        fresh = clone(args)
        found = first_call(self.mod.ModelNew, init, fresh)
        if found is None:
            return
        fn, values = found
        origins = [next((f"input {i}" for i, x in enumerate(fresh) if x is v), None) or
                   next((f"init {j}" for j, x in enumerate(init) if x is v), None) for v in values]
        names = parameter_names(self.task.get("binding"), fn)
        flags = {n: v for n, v in zip(names, values) if isinstance(v, (bool, int))}
        returned = returned_outputs(self.task.get("binding"), fn, flags)
        response["call"] = {"fn": fn, "names": names, "from": origins,
                            "args": [describe(v, store if o is None else None, f"call.{i}")
                                     for i, (v, o) in enumerate(zip(values, origins))],
                            "returns": returned[0] if returned else None, "exec": returned[1] if returned else []}


def handle(state: dict[str, Any], req: dict[str, Any]) -> dict[str, Any]:
    op = req["op"]
    if op == "load":
        state["runner"] = TaskRunner(req["task"])
        return state["runner"].signature()
    runner: TaskRunner = state["runner"]
    mapping = {int(k): int(v) for k, v in req.get("mapping", {}).items()}
    if op == "count":
        return runner.count()
    if op == "describe":
        return runner.describe(req["case"], mapping)
    if op == "run":
        return runner.run(req["case"], int(req["seed"]), mapping, req["out"])
    if op == "aten_ops":
        return runner.aten_ops(req["case"], mapping, bool(req.get("fake_only")))
    if op == "model_new":
        return runner.model_new(req, mapping, state["ask"])
    if op == "region":
        return runner.region(req, state["ask"])
    if op == "check":
        return runner.check(req["case"], req["data"], req["dtypes"], bool(req["seq"]))
    raise ValueError(f"unknown request {op!r}")


def _task_frames(exc: BaseException) -> list[str]:
    frames = traceback.extract_tb(exc.__traceback__)
    own = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return [f"{f.filename}:{f.lineno}: {f.line}" for f in frames if not f.filename.startswith(own)][-4:]


def main() -> None:
    channel = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # the task's prints must not corrupt the protocol
    shim.install()
    # Order-dependent CPU kernels (index_copy / index_put / scatter with repeated indices) run in parallel and
    # give a different answer per run; the deterministic algorithms give the serial one, so a verdict repeats.
    torch.use_deterministic_algorithms(True, warn_only=True)
    torch.utils.deterministic.fill_uninitialized_memory = False   # torch.empty stays as it was (poison checks)

    def ask(call: dict[str, Any]) -> dict[str, Any]:    # a request to the parent in the middle of ours
        channel.write(json.dumps({"ok": True, "call": call}) + "\n")
        channel.flush()
        return json.loads(sys.stdin.readline() or '{"abort": "the parent closed the channel"}')
    state: dict[str, Any] = {"ask": ask}
    with shim.DeviceToCpu():
        for line in sys.stdin:
            if not line.strip():
                continue
            req = json.loads(line)
            try:
                resp = {"ok": True, **handle(state, req)}
            except TaskFailed as e:
                resp = {"ok": False, "where": e.where, "error": f"{type(e.exc).__name__}: {str(e.exc)[:1500]}",
                        "frames": _task_frames(e.exc)}
            except Exception as e:  # noqa: BLE001 - anything else is reported to the parent as data
                resp = {"ok": False, "where": req.get("op", "?"), "error": f"{type(e).__name__}: {str(e)[:1500]}",
                        "frames": _task_frames(e)}
            channel.write(json.dumps(resp) + "\n")
            channel.flush()


if __name__ == "__main__":
    main()
