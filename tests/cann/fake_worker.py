"""A stand-in NPU worker for contract tests of the parent side: it speaks the worker protocol and
behaves as the library's file name says (`ok`, `fault507015`, `mte`, `ub`, `timeout507014`,
`die`, `hang`, `lost`), answering faults with the runtime's real texts (ascendc-api.md §15.3).
State across restarts lives in $KW_FAKE_STATE (a `starts` file, a `lost-<device>` marker)."""
import os
import signal
import sys
import time
from pathlib import Path

import numpy as np

from kernelwright.tools.cann import protocol

STATE = Path(os.environ["KW_FAKE_STATE"])
LOST = STATE / f"lost-{os.environ.get('ASCEND_RT_VISIBLE_DEVICES', '')}"     # this device stopped answering
TEXTS = {
    "fault507015": ("RuntimeError: synchronize:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:361 NPU function error: "
                    "c10_npu::acl::AclrtSynchronizeStreamWithTimeout(stream()), error code is 507015\n[ERROR] "
                    "ERR00100 PTA call acl api failed\n[Error]: The aicore execution is abnormal.\n"
                    "        Rectify the fault based on the error information in the ascend log."),
    "vector507035": ("RuntimeError: operator():build/CMakeFiles/torch_npu.dir/compiler_depend.ts:25 NPU function error: "
                     "c10_npu::acl::AclrtSynchronizeStreamWithTimeout(copy_stream), error code is 507035\n[ERROR] "
                     "ERR00100 PTA call acl api failed\n[Error]: The vector core execution is abnormal."),
    "timeout507014": ("RuntimeError: NPU function error: aclrtSynchronizeStream, error code is 507014\n"
                      "[Error]: The aicore execution times out."),
    "mte": ("RuntimeError: NPU function error: c10_npu::acl::AclrtSynchronizeStreamWithTimeout(stream()), error code is "
            "507015\n[Error]: The aicore execution is abnormal.\nEZ9999: Inner Error!\nEZ9999[PID: 146616] The error from "
            "device(chipId:0, dieId:0), serial number is 14, there is an aivec error exception, core id is 3, error code "
            "= 0x800000, dump info: pc start: 0x100040800008\n        TraceBack (most recent call last):\n       The extend "
            "info: errcode:(0x800000, 0, 0) errorStr: The DDR address of the MTE instruction is out of range. fixp_error0 "
            "info: 0x30498f0, fsmId:0, tslot:0, thread:0, ctxid:0, blk:5, sublk:0, subErrType:4."),
    "ub": ("RuntimeError: NPU function error: aclrtSynchronizeStream, error code is 507035\nEZ9999: Inner Error!\n"
           "there is an aivec error, core id is 0, error code = 0x10 errorStr: Illegal instruction, which is usually "
           "caused by unaligned UUB addresses."),
    "lost": ("RuntimeError: NPU function error: aclrtSynchronizeStream, error code is 507015\n"
             "[Error]: The aicore execution is abnormal."),
}
LOST_HELLO = ("RuntimeError: NPU function error: aclrtSetDevice, error code is 507010 (ts lost heartbeat)")


def outputs(plan):
    if "tensors" in plan:      # an aclnn plan: ("in", name, array) / ("out", name, shape, dtype, acl)
        ins = [np.asarray(t[2]) for t in plan["tensors"] if t[0] == "in" and t[2] is not None]
        wanted = {t[1]: (t[2], t[3]) for t in plan["tensors"] if t[0] == "out"}
    else:
        ins = [np.asarray(a) for a in plan["inputs"].values()]
        wanted = plan["outputs"]
    out = {}
    for name, (shape, dtype) in wanted.items():
        same = [a for a in ins if a.shape == tuple(shape)]
        out[name] = (sum(same) if same else np.zeros(shape)).astype(dtype)
    return out


def handle(req):
    if req["op"] == "hello":
        if LOST.exists():
            return {"ok": False, "error": LOST_HELLO, "fault": True}
        return {"ok": True, "device": "npu:0", "soc": "Ascend910B2", "count": 1, "versions": {"torch_npu": "fake"}}
    kind = Path(req["library"]).stem
    if kind == "die":
        os.kill(os.getpid(), signal.SIGSEGV)
    if kind == "hang":
        time.sleep(3600)
    if kind == "lost":
        LOST.write_text("lost")
    if kind in TEXTS:
        return {"ok": False, "error": TEXTS[kind], "fault": True}
    if kind == "callerror":
        return {"ok": False, "error": "CallError: kw_launch_add returned 7", "fault": False, "trace": "Traceback ..."}
    if req["op"] == "time":
        n = req["config"]["trials"]
        return {"ok": True, "kernel_ms": [1.0 + 0.01 * (i % 3) for i in range(n)],
                "reference_ms": [2.0 + 0.02 * (i % 3) for i in range(n)] if req.get("reference") else [],
                "fresh_sets": 4, "flush_bytes": req["flush_bytes"],
                "device": {"device": "npu:0", "soc": "Ascend910B2", "versions": {"torch_npu": "fake"}}}
    return {"ok": True, "outputs": outputs(req["plan"]), "seconds": 0.001}


def main():
    with open(STATE / "starts", "a") as fh:
        fh.write(f"{os.getpid()} {os.environ.get('ASCEND_RT_VISIBLE_DEVICES', '')} "
                 f"{os.environ.get('ASCEND_CUSTOM_OPP_PATH', '')}\n")
    out = os.fdopen(os.dup(1), "wb")
    while True:
        req = protocol.recv(sys.stdin.buffer)
        if req is None:
            return 0
        reply = handle(req)
        protocol.send(out, reply)
        if reply.get("fault"):
            return 3


if __name__ == "__main__":
    sys.exit(main())
