"""NPU run-time messages (ascendc-api.md §15.3 and the runtime's error codes) classified into the
verdicts the sim gives for the same rule."""
from __future__ import annotations

import pytest

from kernelwright.tools.cann.faults import classify, looks_like_npu_fault

TORCH_507035 = ("RuntimeError: operator():build/CMakeFiles/torch_npu.dir/compiler_depend.ts:25 NPU function error: "
                "c10_npu::acl::AclrtSynchronizeStreamWithTimeout(copy_stream), error code is 507035\n[ERROR] 2025-04-29-18:46:11 "
                "(PID:1066924, Device:1, RankID:-1) ERR00100 PTA call acl api failed\n[Error]: The vector core execution is abnormal.")
RUNTIME_507015 = ("[ERROR] RUNTIME(1385038,):2026-05-26-02:27:09.374.287 [api_c_device.cc:245]1385038 "
                  "rtDeviceSynchronizeWithTimeout:ErrCode=507015, desc=[aicore exception], InnerCode=0x7150026")
MTE = ("EZ9999: [PID: 1456583] 2025-09-29-07:20:57.963.942 The error from device(chipId:0, dieId:0), serial number is 48, "
       "there is an fftsplus aicore error exception, core id is 23, error code = 0x800000, dump info: pc start: "
       "0x1240026099f8\n        TraceBack (most recent call last):\n       The extend info: errcode:(0x800000, 0x4000, 0) "
       "errorStr: The DDR address of the MTE instruction is out of range.CCU instruction address check error. fixp_error0 "
       "info: 0x3000078, fixp_error1 info: 0x2a, fsmId:1, tslot:2, thread:0, ctxid:0, blk:19, sublk:0, subErrType:4."
       "[FUNC:ProcessStarsCoreErrorInfo][FILE:device_error_proc.cc][LINE:1446]\n       Kernel task happen error, "
       "retCode=0x26, [aicore exception].")
WRITE_MTE = "errorStr: The write address of the MTE instruction is out of range. subErrType: 0x4."
UUB = ("there is an aivec error, core id is 0, error code = 0x10 ... errorStr: Illegal instruction, which is usually caused "
       "by unaligned UUB addresses.")
TIMEOUT = "[ERROR] aclrtSynchronizeStream(stream) failed: 507014\n[Error]: The aicore execution times out."
SYNC_TIMEOUT = ("NPU function error: c10_npu::acl::AclrtSynchronizeStreamWithTimeout(copy_stream), error code is 507048\n"
                "[Error]: The execution of the internal task times out.")
L0C = ("[Error]: The aicore execution is abnormal. EZ9999: Inner Error! there is an exception of fftsplus aicore error, "
       "core id is 12, error code = 0x20000 The extend info: errcode:(0x20000, 0, 0x10000) errorStr: L0C read/write "
       "conflict(vec read operation or cube write operation). fixp_error0 info: 0xca, error code is 507015")
HEARTBEAT = "RuntimeError: NPU function error: aclrtSetDevice, error code is 507010 (ts lost heartbeat)"
TRAP = "NPU function error: aclrtSynchronizeStream, error code is 507036"


@pytest.mark.parametrize("text, status, rule, code", [
    (TORCH_507035, "crash", "kernel.crash", 507035),
    (RUNTIME_507015, "crash", "kernel.crash", 507015),
    (MTE, "rule_violation", "gm.out_of_bounds", None),
    (WRITE_MTE, "rule_violation", "gm.out_of_bounds", None),
    (UUB, "rule_violation", "ub.align", None),
    (TIMEOUT, "timeout", "kernel.timeout", 507014),
    (SYNC_TIMEOUT, "timeout", "kernel.timeout", 507048),
    (L0C, "crash", "kernel.crash", 507015),
    (HEARTBEAT, "crash", "npu.device_lost", 507010),
    (TRAP, "crash", "kernel.trap", 507036),
])
def test_runtime_texts(text, status, rule, code):
    f = classify(text)
    assert (f.status, f.rule) == (status, rule)
    assert f.values.get("code") == code
    d = f.diagnostic()
    assert d.stage == "run" and d.rule == rule and d.hint and d.category == "runtime_rule"


def test_details_from_the_device_message():
    f = classify(MTE)
    assert f.block == 19 and f.values["core_id"] == 23 and f.values["core_kind"] == "fftsplus aicore"
    assert f.values["device_reason"].startswith("The DDR address of the MTE instruction is out of range")
    assert "core 23" in f.message
    assert "L0C read/write conflict" in classify(L0C).message
    assert classify(HEARTBEAT).device_lost and not classify(TORCH_507035).device_lost


def test_silence_and_death():
    hung = classify("", hung=True, timeout_s=90)
    assert (hung.status, hung.rule) == ("timeout", "kernel.timeout") and "90 s" in hung.message
    died = classify("Fatal Python error: Segmentation fault", died=True, signal=11)
    assert (died.status, died.rule) == ("crash", "worker.crash") and "signal 11" in died.message
    # a device message in the dying worker's stderr still names the fault
    assert classify(TIMEOUT, died=True).rule == "kernel.timeout"


def test_fault_detection_for_the_worker():
    for text in (TORCH_507035, MTE, UUB, TIMEOUT, HEARTBEAT):
        assert looks_like_npu_fault(text)
    assert not looks_like_npu_fault("ValueError: dtype complex64 is not supported on the NPU worker")
    assert not looks_like_npu_fault("CallError: kw_launch_add returned 7")


@pytest.mark.parametrize("code, status, rule, words", [
    (507042, "rule_violation", "mem.out_of_bounds", "AI Core (cube) trapped on an out-of-range read"),
    (507043, "rule_violation", "mem.out_of_bounds", "out-of-range write"),
    (507044, "rule_violation", "mem.out_of_bounds", "vector core trapped on an out-of-range read"),
    (507045, "rule_violation", "mem.out_of_bounds", "vector core trapped on an out-of-range write"),
    (507047, "timeout", "kernel.timeout", "event synchronisation timed out"),
    (507049, "crash", "kernel.crash", "ffts+ exception"),
    (507050, "crash", "kernel.trap", "ffts+ task hit a trap"),
])
def test_codes_that_used_to_fall_through(code, status, rule, words):
    """8.1 rt_error_codes.h: 507042-507045 trap read/write overflow (aic/aiv), 507047 event sync timeout,
    507049 ffts+ exception, 507050 ffts+ trap exception: each its own verdict, not a generic crash."""
    f = classify(f"RuntimeError: NPU function error: aclrtSynchronizeStream, error code is {code}")
    assert (f.status, f.rule, f.values["code"]) == (status, rule, code) and words in f.message
    assert f.diagnostic().hint and f"error {code}" in f.message
