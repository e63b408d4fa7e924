"""The NPU worker: `python -m kernelwright.tools.cann.worker`, one process per NPU. It imports
torch_npu (nothing else in kernelwright does at import time), loads built kernel libraries with
ctypes and runs prepared calls on its device.

Protocol (kernelwright.tools.cann.protocol frames on stdin / the original stdout; anything the
runtime prints goes to stderr): requests are dicts with an `op`:
  hello {}                                        -> device, SoC, versions
  run   {kind: launch|aclnn, library, plan}       -> outputs (NumPy arrays) after the stream synced
  time  {kind, library, plan, config, flush_bytes, reference, seed} -> raw event times (ms)
Every reply has `ok`; a failure carries `error` and `fault` (the device state is suspect). After
a fault the worker answers and exits: the parent starts a fresh one for the next case."""
from __future__ import annotations

import os
import sys
import time
import traceback
from typing import Any

from kernelwright.tools.cann import protocol
from kernelwright.tools.cann.faults import looks_like_npu_fault


def _inputs(request: dict[str, Any]) -> dict[str, Any]:
    plan = request["plan"]
    if request["kind"] == "launch":
        return dict(plan["inputs"])
    return {t[1]: t[2] for t in plan["tensors"] if t[0] == "in" and t[2] is not None}


class Worker:
    def __init__(self) -> None:
        self.dev = None

    def device(self):
        if self.dev is None:
            from kernelwright.tools.cann.worker_device import Device
            self.dev = Device()
        return self.dev

    def hello(self, _req: dict[str, Any]) -> dict[str, Any]:
        dev = self.device()
        import numpy as np

        t = dev.to_device(np.arange(16, dtype=np.float32))     # the device takes a copy and answers
        dev.sync()
        del t
        return dev.describe()

    def run(self, req: dict[str, Any]) -> dict[str, Any]:
        from kernelwright.tools.cann.worker_calls import make_call

        dev = self.device()
        call = make_call(dev, req)
        dev.sync()
        start = time.perf_counter()
        call()
        dev.sync()
        seconds = time.perf_counter() - start
        call.release()
        return {"outputs": call.outputs(), "seconds": seconds}

    def time(self, req: dict[str, Any]) -> dict[str, Any]:
        from kernelwright.tools.cann.worker_calls import make_call
        from kernelwright.tools.cann.worker_timing import time_kernel

        dev = self.device()
        call = make_call(dev, req)
        out = time_kernel(dev, call, _inputs(req), req["config"], int(req["flush_bytes"]), req.get("reference"),
                          int(req.get("seed", 0)))
        out["device"] = dev.describe()
        return out

    def handle(self, req: dict[str, Any]) -> dict[str, Any]:
        op = req.get("op")
        if op not in ("hello", "run", "time"):
            return {"ok": False, "error": f"unknown request {op!r}", "fault": False}
        try:
            reply = getattr(self, op)(req)
        except Exception as e:  # a failing kernel or reference is an answer, not a crash
            text = f"{type(e).__name__}: {e}"
            fault = looks_like_npu_fault(text)
            return {"ok": False, "error": text, "fault": fault, "where": op, "trace": traceback.format_exc()[-4000:]}
        reply["ok"] = True
        return reply


def main() -> int:
    out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())   # stray prints (CANN logs) must not corrupt frames
    inp = sys.stdin.buffer
    worker = Worker()
    while True:
        req = protocol.recv(inp)
        if req is None:
            return 0
        reply = worker.handle(req)
        protocol.send(out, reply)
        if reply.get("fault"):
            return 3


if __name__ == "__main__":
    sys.exit(main())
