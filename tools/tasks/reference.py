"""Run a task's PyTorch reference in a worker subprocess with time and memory limits, sandboxed:
it sees the interpreter, kernelwright, the task's own directory (read-only) and a private scratch
directory, with no network and no credentials in its environment.

The parent never imports torch: the worker (`kernelwright.tools.tasks.worker`) makes the inputs and
runs `Model` on the CPU, and hands back specs as JSON and tensors as an .npz file. A reference that
raises, hangs or runs out of memory comes back as a `RefFailure`, and the next request starts a fresh
worker. One worker serves one task; reuse it across cases and trials (importing torch takes seconds).
"""
from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from kernelwright.tools.buildkit import sandbox
from kernelwright.tools.buildkit.sandbox import View
from kernelwright.tools.task import Task, TaskCase


class RefValue(BaseModel):
    """One task value: a tensor (with its data when it came from a run), a tensor list, a scalar."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    kind: str                                  # tensor | tensor_list | scalar | none | other
    name: str | None = None
    shape: list[int] | None = None
    dtype: str | None = None
    value: Any = None
    repr: str | None = None
    items: list["RefValue"] = Field(default_factory=list)
    array: np.ndarray | None = Field(default=None, exclude=True)
    generated: bool = False                    # on the meta device: the emulator generates it (sampled_regions.py)

    def tensors(self) -> list["RefValue"]:
        return [self] if self.kind == "tensor" else list(self.items)


class RefShapes(BaseModel):
    """What a case looks like, without data (from the worker's FakeTensorMode pass)."""

    args: list[RefValue]
    init: list[RefValue]
    params: list[RefValue] = Field(default_factory=list)
    outputs: list[RefValue] | None = None
    outputs_error: str | None = None
    floors: dict[int, int] = Field(default_factory=dict)     # dim -> least length a window over it needs
    unfolded: int = 0                 # elements of the convolutions' unfolded inputs (window_floors.py)
    groups: dict[int, int] = Field(default_factory=dict)     # a group norm's channels -> its number of groups
    multiples: dict[int, int] = Field(default_factory=dict)  # a grouped conv's channels -> what they stay a multiple of


class RefRun(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    args: list[RefValue]
    init: list[RefValue]
    params: list[RefValue]
    outputs: list[RefValue]
    post: dict[int, RefValue] = Field(default_factory=dict)   # inputs the reference itself mutated: final state
    outputs_seq: bool = False                                 # forward returned a list/tuple (not one tensor)
    # NPUKernelBench: what the task's ModelNew hands the operator (tasks/kernel_call.py): the values, their
    # names in the task's pybind function, and which are the case's own ("input 0", "init 1") or new (None)
    call: list[RefValue] = Field(default_factory=list)
    call_names: list[str] = Field(default_factory=list)
    call_from: list[str | None] = Field(default_factory=list)
    # ... and what that pybind function hands back for this call (kernel_call.returned_outputs): the names of
    # the tensors it returns and the arguments of its EXEC_NPU_CMD; None when its source does not say plainly
    call_returns: list[str] | None = None
    call_exec: list[str] = Field(default_factory=list)

    def shapes(self) -> "RefShapes":
        """What this run looked like, for planning (when describing without data was not possible)."""
        return RefShapes(args=self.args, init=self.init, params=self.params, outputs=self.outputs)
    notes: list[str] = Field(default_factory=list)
    seconds: float = 0.0


class ModelNewResult(BaseModel):
    """What the answer's ModelNew returned (model_new_serve.py), or why it did not."""

    outputs: list[RefValue] = Field(default_factory=list)
    outputs_seq: bool = False
    calls: int = 0
    problem: str | None = None          # the answer's ModelNew failed (its own code, no extension call)
    aborted: str | None = None          # the parent stopped it (the operator failed)


OnCall = Callable[[dict[str, Any]], dict[str, Any]]


class RefFailure(BaseModel):
    where: str                                 # import | get_inputs | Model() | forward | timeout | memory | worker
    error: str
    frames: list[str] = Field(default_factory=list)

    def render(self) -> str:
        where = f" (at {self.frames[-1]})" if self.frames else ""
        return f"the reference failed in {self.where}: {self.error}{where}"


def _np_dtype(name: str) -> np.dtype:
    if name == "bfloat16":
        import ml_dtypes
        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(name)


def _values(specs: list[dict], data: Any, prefix: str) -> list[RefValue]:
    out = []
    for i, spec in enumerate(specs):
        key = f"{prefix}.{spec['name']}" if prefix == "param" else f"{prefix}.{i}"
        out.append(value_from_spec(spec, data, key))
    return out


def value_from_spec(spec: dict, data: Any, key: str) -> RefValue:
    v = RefValue(**{k: spec[k] for k in ("kind", "name", "shape", "dtype", "value", "repr", "generated") if k in spec})
    if v.kind == "tensor" and data is not None and key in data:
        v.array = data[key].view(_np_dtype(v.dtype)) if v.dtype == "bfloat16" else data[key]
    if v.kind == "tensor_list":
        v.items = [value_from_spec(item, data, f"{key}.{k}") for k, item in enumerate(spec["items"])]
    return v


THREADS = 4096   # torch starts a thread per core in several pools (RLIMIT_NPROC counts threads): room for big hosts


def task_dirs(task: Task) -> tuple[str, ...]:
    """The directories of a task's files (read-only in its sandbox): a task may import its neighbours
    and read data beside it."""
    files = [task.source, task.inputs_source]
    return tuple(sorted({str(Path(f).resolve().parent) for f in files if f}))


class ReferenceWorker:
    def __init__(self, task: Task, *, timeout_s: float = 120.0, memory_bytes: int = 8 << 30):
        self.task, self.timeout_s, self.memory_bytes = task, timeout_s, memory_bytes
        self.proc: subprocess.Popen | None = None
        self.signature: dict[str, list[str]] = {}
        self.tmp = Path(tempfile.mkdtemp(prefix="kw-ref-"))
        self._n = 0

    # ---- process management ----
    def _start(self) -> RefFailure | None:
        self._close_stderr()
        self.stderr = open(self.tmp / "stderr.txt", "w+b")
        view = View(writable=(str(self.tmp),), readable=task_dirs(self.task), python=True,
                    env=(("OMP_NUM_THREADS", os.environ.get("OMP_NUM_THREADS", "2")),))
        limits = sandbox.Limits(cpu_s=None, memory_bytes=self.memory_bytes, file_bytes=None, processes=THREADS)
        self.proc = sandbox.popen([sys.executable, "-m", "kernelwright.tools.tasks.worker"], cwd=self.tmp, view=view,
                                  limits=limits, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr)
        resp = self._request({"op": "load", "task": self.task.model_dump(mode="json")}, self.timeout_s + 60)
        if isinstance(resp, RefFailure):
            return resp
        self.signature = {"forward_params": resp["forward_params"], "init_params": resp["init_params"]}
        return None

    def _kill(self) -> None:
        if self.proc:
            sandbox.kill(self.proc)   # the worker and anything it started, even after the worker exited
        self.proc = None

    def _close_stderr(self) -> None:
        if getattr(self, "stderr", None) is not None:
            self.stderr.close()
            self.stderr = None

    def close(self) -> None:
        self._kill()
        self._close_stderr()
        shutil.rmtree(self.tmp, ignore_errors=True)   # and whatever the task left in its scratch directory

    def __enter__(self) -> "ReferenceWorker":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _stderr_tail(self) -> str:
        try:
            self.stderr.seek(0, os.SEEK_END)
            size = self.stderr.tell()
            self.stderr.seek(max(0, size - 1500))
            return self.stderr.read().decode(errors="replace")
        except (OSError, ValueError):
            return ""

    def _send(self, message: dict[str, Any]) -> None:
        assert self.proc and self.proc.stdin
        try:
            self.proc.stdin.write((json.dumps(message) + "\n").encode())
            self.proc.stdin.flush()
        except BrokenPipeError:
            pass

    def _request(self, req: dict[str, Any], timeout_s: float,
                 on_call: OnCall | None = None) -> dict[str, Any] | RefFailure:
        """One request's answer; messages `{"call": ...}` before it (a ModelNew's calls into its extension)
        are answered by `on_call`, and each restarts the clock."""
        self._send(req)
        while True:
            resp = self._answer(timeout_s)
            if isinstance(resp, RefFailure) or "call" not in resp or on_call is None:
                return resp
            self._send(on_call(resp["call"]))

    def _answer(self, timeout_s: float) -> dict[str, Any] | RefFailure:
        assert self.proc and self.proc.stdout
        deadline = time.monotonic() + timeout_s
        ready: list = []
        while time.monotonic() < deadline and self.proc.poll() is None:
            ready, _, _ = select.select([self.proc.stdout], [], [], min(1.0, max(0.0, deadline - time.monotonic())))
            if ready:
                break
        line = self.proc.stdout.readline() if ready else b""
        if not line:
            timed_out = self.proc.poll() is None
            tail = self._stderr_tail()
            self._kill()
            if timed_out:
                return RefFailure(where="timeout", error=f"no answer within {timeout_s:.0f} s (a slow or hanging reference)")
            memory = "MemoryError" in tail or "std::bad_alloc" in tail or "DefaultCPUAllocator" in tail
            return RefFailure(where="memory" if memory else "worker",
                              error=(f"out of memory (limit {self.memory_bytes >> 20} MiB)" if memory else
                                     "the worker died") + (f": {tail.strip()[-600:]}" if tail.strip() else ""))
        resp = json.loads(line)
        if not resp.pop("ok"):
            where = "memory" if "MemoryError" in resp["error"] or "alloc" in resp["error"] else resp["where"]
            return RefFailure(where=where, error=resp["error"], frames=resp.get("frames", []))
        return resp

    def _ask(self, req: dict[str, Any], on_call: OnCall | None = None) -> dict[str, Any] | RefFailure:
        if self.proc is None or self.proc.poll() is not None:
            failed = self._start()
            if failed:
                self._kill()
                return failed
        return self._request(req, self.timeout_s, on_call)

    # ---- requests ----
    def params(self) -> dict[str, list[str]] | RefFailure:
        """The names of Model.forward's and Model.__init__'s parameters."""
        if not self.signature:
            failed = self._start() if self.proc is None else None
            if failed:
                self._kill()
                return failed
        return self.signature

    def count_groups(self) -> int | RefFailure:
        resp = self._ask({"op": "count"})
        return resp if isinstance(resp, RefFailure) else int(resp["groups"])

    def describe(self, case: TaskCase, mapping: dict[int, int] | None = None) -> RefShapes | RefFailure:
        """The case's shapes, without data; with `mapping`, every size the task asks for is shrunk (worker.py)."""
        resp = self._ask({"op": "describe", "case": case.model_dump(mode="json"),
                          "mapping": {str(k): v for k, v in (mapping or {}).items()}})
        if isinstance(resp, RefFailure):
            return resp
        return RefShapes(args=_values(resp["args"], None, "in"), init=_values(resp["init"], None, "init"),
                         params=_values(resp.get("params", []), None, "param"),
                         outputs=_values(resp["outputs"], None, "out") if "outputs" in resp else None,
                         outputs_error=resp.get("outputs_error"),
                         floors={int(k): int(v) for k, v in resp.get("floors", {}).items()},
                         unfolded=int(resp.get("unfolded", 0)),
                         groups={int(k): int(v) for k, v in resp.get("groups", {}).items()},
                         multiples={int(k): int(v) for k, v in resp.get("multiples", {}).items()})

    def run(self, case: TaskCase, seed: int, mapping: dict[int, int] | None = None) -> RefRun | RefFailure:
        self._n += 1
        out = self.tmp / f"run{self._n}.npz"
        resp = self._ask({"op": "run", "case": case.model_dump(mode="json"), "seed": seed,
                          "mapping": {str(k): v for k, v in (mapping or {}).items()}, "out": str(out)})
        if isinstance(resp, RefFailure):
            return resp
        with np.load(out) as data:
            run = RefRun(args=_values(resp["args"], data, "in"), init=_values(resp["init"], data, "init"),
                         params=_values(resp["params"], data, "param"), outputs=_values(resp["outputs"], data, "out"),
                         notes=resp.get("notes", []), seconds=resp.get("seconds", 0.0),
                         outputs_seq=resp.get("outputs_seq", False))
            for i in resp["mutated"]:
                run.post[i] = value_from_spec(resp["args"][i], data, f"post.{i}")
            if resp.get("call"):
                call = resp["call"]
                run.call, run.call_names, run.call_from = _values(call["args"], data, "call"), call["names"], call["from"]
                run.call_returns, run.call_exec = call.get("returns"), call.get("exec", [])
        out.unlink(missing_ok=True)
        return run

    def model_new(self, case: TaskCase, seed: int, mapping: dict[int, int] | None, *, model_src: str,
                  functions: dict[str, Any], on_call: OnCall, native: Path | None = None) -> ModelNewResult | RefFailure:
        """The answer's ModelNew(*init)(*inputs) on this case's inputs (as `run` makes them, same seed), each
        call into its extension answered by `on_call` (which runs the operator): its outputs, or why it
        stopped (`aborted`: on_call ended it; `problem`: the answer's ModelNew failed). `native`: the answer's
        binding built for the CPU (referee/aten_binding.py), which ModelNew then calls instead of the stand-in."""
        self._n += 1
        out = self.tmp / f"model_new{self._n}.npz"
        resp = self._ask({"op": "model_new", "case": case.model_dump(mode="json"), "seed": seed, "out": str(out),
                          "mapping": {str(k): v for k, v in (mapping or {}).items()}, "model_src": model_src,
                          "functions": functions, "native": self._native(native)}, on_call)
        if isinstance(resp, RefFailure):
            return resp
        result = ModelNewResult(calls=resp.get("calls", 0), problem=resp.get("problem"), aborted=resp.get("aborted"),
                                outputs_seq=resp.get("outputs_seq", False))
        if out.is_file():
            with np.load(out) as data:
                result.outputs = _values(resp["outputs"], data, "out")
            out.unlink(missing_ok=True)
        return result

    def region(self, case: TaskCase, seed: int, what: str, on_call: OnCall | None = None, **more: Any
               ) -> tuple[dict[str, Any], dict[str, np.ndarray]] | RefFailure:
        """Judging past the element budget (referee/sampled_regions.py): `what` is rule, model_new (with model_src,
        functions) or reference (with boxes). The response, and the arrays it wrote."""
        self._n += 1
        out = self.tmp / f"region{self._n}.npz"
        resp = self._ask({"op": "region", "what": what, "case": case.model_dump(mode="json"), "seed": seed,
                          "out": str(out), **more}, on_call)
        if isinstance(resp, RefFailure):
            return resp
        arrays: dict[str, np.ndarray] = {}
        if out.is_file():
            with np.load(out) as data:
                arrays = {k: data[k] for k in data.files}
            out.unlink(missing_ok=True)
        return resp, arrays

    def _native(self, built: Path | None) -> str | None:
        """The built binding copied into the worker's own directory (all a contained worker sees)."""
        if built is None:
            return None
        target = self.tmp / "native" / built.name
        if not target.is_file():
            target.parent.mkdir(exist_ok=True)
            shutil.copyfile(built, target)
        return str(target)

    def aten_ops(self, case: TaskCase, mapping: dict[int, int] | None = None,
                 fake_only: bool = False) -> dict[str, Any] | RefFailure:
        """The ATen ops one forward runs at the (shrunk) shapes, in order: {"ops": [{op, overload, inputs,
        outputs}], "dropped": ops past the recorder's limit}; `fake_only`: on fake tensors or not at all."""
        return self._ask({"op": "aten_ops", "case": case.model_dump(mode="json"),
                          "mapping": {str(k): v for k, v in (mapping or {}).items()}, "fake_only": fake_only})

    def custom_check(self, case: TaskCase, expected: list[np.ndarray], got: list[np.ndarray],
                     seq: bool) -> dict[str, Any] | RefFailure:
        """Run the task's `custom_check_precision` on the kernel's outputs: {pass, max_abs, max_rel}."""
        self._n += 1
        data = self.tmp / f"check{self._n}.npz"
        store, dtypes = {}, []
        for i, (ref, out) in enumerate(zip(expected, got)):
            for key, arr in ((f"ref.{i}", ref), (f"out.{i}", out)):
                bf16 = arr.dtype.name == "bfloat16"
                store[key] = arr.view(np.uint16) if bf16 else arr
                dtypes.append("bfloat16" if bf16 else arr.dtype.name)
        np.savez(data, **store)
        resp = self._ask({"op": "check", "case": case.model_dump(mode="json"), "data": str(data), "dtypes": dtypes,
                          "seq": seq})
        data.unlink(missing_ok=True)
        return resp
