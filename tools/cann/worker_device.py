"""The NPU as the worker sees it: torch + torch_npu imported lazily (inside the worker process only),
tensors to and from NumPy (bfloat16 through its bits), poisoned output buffers, events, the raw
stream. The device is `npu:0`: the parent makes exactly one NPU visible (ASCEND_RT_VISIBLE_DEVICES).
KERNELWRIGHT_NPU_DEVICE overrides the device string (e.g. `cpu` with a stand-in torch_npu in tests)."""
from __future__ import annotations

import os
import sys
from typing import Any

import numpy as np


class DeviceUnavailable(RuntimeError):
    pass


class Device:
    def __init__(self) -> None:
        if "torch_npu" in sys.modules and sys.modules["torch_npu"] is None:
            raise DeviceUnavailable("torch_npu is installed but hidden: CANN's runtime libraries are not loadable in the "
                                    "worker (source <CANN>/set_env.sh before starting kernelwright)")
        try:
            import torch
            import torch_npu  # noqa: F401  (registers torch.npu)
        except ImportError as e:
            raise DeviceUnavailable(f"torch_npu cannot be imported in the worker: {e} (pip install 'kernelwright[npu]' "
                                    "on an Ascend host)") from None
        self.torch = torch
        self.npu = torch.npu
        self.name = os.environ.get("KERNELWRIGHT_NPU_DEVICE", "npu:0")
        if self.name.startswith("npu"):
            self.npu.set_device(self.name)
        self.dev = torch.device(self.name)
        self._dtypes = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16,
                        "float64": torch.float64, "int8": torch.int8, "uint8": torch.uint8, "int16": torch.int16,
                        "int32": torch.int32, "int64": torch.int64, "bool": torch.bool}

    # ---- facts ----
    def describe(self) -> dict[str, Any]:
        import torch_npu
        soc = ""
        try:
            soc = str(self.npu.get_device_name(0))
        except Exception:  # noqa: BLE001  (informational only)
            pass
        return {"device": self.name, "soc": soc, "count": int(self.npu.device_count()),
                "versions": {"torch": self.torch.__version__, "torch_npu": str(getattr(torch_npu, "__version__", "?")),
                             "cann": os.environ.get("ASCEND_HOME_PATH", "")}}

    # ---- tensors ----
    def torch_dtype(self, name: str):
        if name not in self._dtypes:
            raise ValueError(f"dtype {name} is not supported on the NPU worker (supported: {', '.join(self._dtypes)})")
        return self._dtypes[name]

    def to_device(self, arr: np.ndarray):
        arr = np.ascontiguousarray(arr)
        if arr.dtype.name == "bfloat16":
            t = self.torch.from_numpy(arr.view(np.int16).copy()).view(self.torch.bfloat16)
        elif arr.dtype.name in ("uint16", "uint32", "uint64"):
            t = self.torch.from_numpy(arr.view(arr.dtype.name.replace("u", "")).copy())
        else:
            t = self.torch.from_numpy(arr.copy())
        return t.to(self.dev)

    def to_numpy(self, t, dtype: str | None = None) -> np.ndarray:
        t = t.detach().to("cpu").contiguous()
        if t.dtype == self.torch.bfloat16:
            import ml_dtypes
            return t.view(self.torch.int16).numpy().view(ml_dtypes.bfloat16)
        out = t.numpy()
        return out.view(dtype) if dtype and dtype.startswith("uint") and out.dtype.name != dtype else out

    def poisoned(self, shape: tuple[int, ...], dtype: str, pattern: str | None = None):
        """An output buffer filled with `pattern` (one element's bytes in hex: the referee's poison, a value
        the reference does not hold), else 0xFF bytes: unwritten elements show up, as on the sim."""
        np_name = dtype.replace("uint16", "int16").replace("uint32", "int32").replace("uint64", "int64")
        tdt = self.torch_dtype(np_name)
        n = int(np.prod(shape, dtype=np.int64))
        size = self.torch.empty((), dtype=tdt).element_size()
        element = bytes.fromhex(pattern) if pattern else b""
        if len(element) == size:
            raw = self.torch.from_numpy(np.tile(np.frombuffer(element, dtype=np.uint8), n)).to(self.dev)
        else:
            raw = self.torch.full((n * size,), 255, dtype=self.torch.uint8, device=self.dev)
        return raw.view(tdt).reshape(shape)

    def bytes_buffer(self, nbytes: int, data: bytes = b""):
        t = self.torch.zeros((max(int(nbytes), 1),), dtype=self.torch.uint8, device=self.dev)
        if data:
            t[:len(data)] = self.torch.frombuffer(bytearray(data), dtype=self.torch.uint8).to(self.dev)
        return t

    # ---- execution ----
    def stream_ptr(self) -> int:
        """The current stream's aclrtStream. Read right before every launch: torch_npu empties its task
        queue when it hands out the raw stream, so our launch is ordered after what torch queued."""
        return int(self.npu.current_stream().npu_stream)

    def sync(self) -> None:
        self.npu.synchronize()

    def event(self):
        return self.npu.Event(enable_timing=True)

    def empty_cache(self) -> None:
        try:
            self.npu.empty_cache()
        except Exception:  # noqa: BLE001
            pass
