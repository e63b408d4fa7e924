"""A CPU stand-in for torch_npu, for contract tests of the NPU worker on machines without an NPU:
`torch.npu` with events (wall-clock), a current stream whose raw handle is 0x5EED, synchronize and
device queries. Setting KW_FAKE_SYNC_ERROR makes the first synchronize after a launch raise it,
as torch_npu raises the runtime's error after a device fault."""
import os
import time
import types

import torch

__version__ = "0.0+fake"
_launched = [False]


class _Event:
    def __init__(self, enable_timing: bool = False):
        self.t = None

    def record(self, stream=None):
        self.t = time.perf_counter()

    def elapsed_time(self, other: "_Event") -> float:
        return (other.t - self.t) * 1000.0


class _Stream:
    @property
    def npu_stream(self) -> int:
        _launched[0] = True          # the raw stream is only asked for to launch on it
        return 0x5EED

    def synchronize(self) -> None:
        synchronize()


def synchronize(device=None) -> None:
    error = os.environ.get("KW_FAKE_SYNC_ERROR")
    if error and _launched[0]:
        raise RuntimeError(error)


torch.npu = types.SimpleNamespace(
    Event=_Event, synchronize=synchronize, current_stream=lambda device=None: _Stream(),
    set_device=lambda device: None, device_count=lambda: 1, get_device_name=lambda index=0: "Ascend910B2",
    empty_cache=lambda: None)
