"""One prepared call of a built kernel inside the worker: device buffers allocated, the C argument
array laid out, callable again and again (timing), with its inputs swappable for fresh ones.

* LaunchCall: `kw_launch_<kernel>(blockDim, stream, void** args)` of a kernel-launch build;
* AclnnCall: `kw_aclnn_run(...)` of an msopgen build (aclnn two-stage API in a private OPP)."""
from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

from kernelwright.tools.cann.plan import acl_dtype, dtype_name
from kernelwright.tools.cann.worker_device import Device

_LIBS: dict[str, ctypes.CDLL] = {}


class CallError(RuntimeError):
    """The launcher refused the call (not a device fault)."""


def load(path: str) -> ctypes.CDLL:
    if path not in _LIBS:
        _LIBS[path] = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
    return _LIBS[path]


class _Call:
    dev: Device
    inputs: dict[str, Any]           # name -> device tensor
    readback: dict[str, tuple[Any, str]]

    def rebind(self, tensors: dict[str, Any]) -> None:
        raise NotImplementedError

    def outputs(self) -> dict[str, np.ndarray]:
        return {name: self.dev.to_numpy(t, dtype) for name, (t, dtype) in self.readback.items()}

    def release(self) -> None:
        """Called after the stream synchronised."""


class LaunchCall(_Call):
    def __init__(self, dev: Device, library: str, plan: dict[str, Any]):
        self.dev, self.plan = dev, plan
        fn = load(library)[plan["symbol"]]
        fn.restype = ctypes.c_int32
        fn.argtypes = [ctypes.c_uint32, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p)]
        self.fn = fn
        self.inputs = {n: dev.to_device(a) for n, a in plan["inputs"].items()}
        outs = {n: dev.poisoned(tuple(s), d, plan.get("poison", {}).get(n)) for n, (s, d) in plan["outputs"].items()}
        self.readback = {n: (outs[n], plan["outputs"][n][1]) for n in outs}
        self.readback.update({n: (self.inputs[n], dtype_name(plan["inputs"][n])) for n in plan["inout"]})
        self.tensors = dict(self.inputs) | outs
        self.keep: list[Any] = []
        self.argv = (ctypes.c_void_p * max(len(plan["args"]), 1))()
        self.slots: dict[str, list[int]] = {}
        for i, a in enumerate(plan["args"]):
            kind = a[0]
            if kind == "ptr":
                self.argv[i] = self.tensors[a[1]].data_ptr()
                self.slots.setdefault(a[1], []).append(i)
            elif kind == "value":
                buf = ctypes.create_string_buffer(bytes(a[1]), max(len(a[1]), 1))
                self.keep.append(buf)
                self.argv[i] = ctypes.addressof(buf)
            elif kind == "buffer":
                t = dev.bytes_buffer(a[2], a[3])
                self.keep.append(t)
                self.argv[i] = t.data_ptr()
            else:
                self.argv[i] = None

    def rebind(self, tensors: dict[str, Any]) -> None:
        for name, t in tensors.items():
            for i in self.slots.get(name, []):
                self.argv[i] = t.data_ptr()

    def __call__(self) -> None:
        rc = self.fn(self.plan["block_dim"], ctypes.c_void_p(self.dev.stream_ptr()), self.argv)
        if rc != 0:
            raise CallError(f"{self.plan['symbol']} returned {rc}")


class AclnnCall(_Call):
    def __init__(self, dev: Device, library: str, plan: dict[str, Any]):
        self.dev, self.plan = dev, plan
        lib = load(library)
        self.run_fn, self.release_fn = lib["kw_aclnn_run"], lib["kw_aclnn_release"]
        self.run_fn.restype = ctypes.c_int32
        self.release_fn.restype = None
        tensors = plan["tensors"]
        self.inputs, self.readback, self.slots = {}, {}, {}
        n = max(len(tensors), 1)
        self.data = (ctypes.c_void_p * n)()
        dims: list[int] = []
        self.ranks = (ctypes.c_int64 * n)()
        self.dtypes = (ctypes.c_int32 * n)()
        for i, t in enumerate(tensors):
            if t[0] == "in":
                if t[2] is None:
                    self.data[i] = None
                    continue
                arr = t[2]
                dt = self.inputs[t[1]] = dev.to_device(arr)
                shape, code = arr.shape, acl_dtype(dtype_name(arr))
                if t[1] in plan["inout"]:
                    self.readback[t[1]] = (dt, dtype_name(arr))
            else:
                _, name, shape, dtype, code = t
                dt = dev.poisoned(tuple(shape), dtype, plan.get("poison", {}).get(name))
                self.readback[name] = (dt, dtype)
            self.data[i], self.ranks[i], self.dtypes[i] = dt.data_ptr(), len(shape), code
            self.slots[t[1]] = i
            dims += [int(d) for d in shape]
        self.dims = (ctypes.c_int64 * max(len(dims), 1))(*dims)
        self.keep: list[Any] = []
        na = max(len(plan["attrs"]), 1)
        self.attrs, self.attr_lens = (ctypes.c_void_p * na)(), (ctypes.c_int64 * na)()
        for i, (kind, value) in enumerate(plan["attrs"]):
            buf, count = _attr_buffer(kind, value)
            self.keep.append(buf)
            self.attrs[i], self.attr_lens[i] = ctypes.addressof(buf), count
        self.workspace = None
        self.err = ctypes.create_string_buffer(2048)

    def rebind(self, tensors: dict[str, Any]) -> None:
        for name, t in tensors.items():
            if name in self.slots:
                self.data[self.slots[name]] = t.data_ptr()

    def __call__(self) -> None:
        needed = ctypes.c_uint64(0)
        for _ in range(2):
            cap = 0 if self.workspace is None else int(self.workspace.numel())
            ptr = None if self.workspace is None else self.workspace.data_ptr()
            rc = self.run_fn(ctypes.c_void_p(self.dev.stream_ptr()), self.data, self.dims, self.ranks, self.dtypes,
                             self.attrs, self.attr_lens, ctypes.c_void_p(ptr), ctypes.c_uint64(cap), ctypes.byref(needed),
                             self.err, ctypes.c_uint64(len(self.err)))
            if rc != 2:
                break
            self.workspace = self.dev.bytes_buffer(int(needed.value))
        if rc != 0:
            raise CallError(self.err.value.decode(errors="replace") or f"kw_aclnn_run returned {rc}")

    def release(self) -> None:
        self.release_fn()


def _attr_buffer(kind: str, value: Any) -> tuple[Any, int]:
    if kind == "int":
        return ctypes.c_int64(int(value)), 1
    if kind == "float":
        return ctypes.c_double(float(value)), 1
    if kind == "bool":
        return ctypes.c_uint8(1 if value else 0), 1
    if kind == "string":
        return ctypes.create_string_buffer(str(value).encode()), 1
    elem = {"list_int": ctypes.c_int64, "list_float": ctypes.c_float, "list_bool": ctypes.c_uint8}[kind]
    items = list(value)
    return (elem * max(len(items), 1))(*items), len(items)


def make_call(dev: Device, request: dict[str, Any]) -> _Call:
    if request["kind"] == "launch":
        return LaunchCall(dev, request["library"], request["plan"])
    return AclnnCall(dev, request["library"], request["plan"])
