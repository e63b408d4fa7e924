"""NPU run-time faults -> verdicts. The texts are the CANN runtime's (ascendc-api.md §15.3): the ACL
error codes torch_npu reports (`... error code is 507015`, `ErrCode=507015`), the `[Error]:` line
that explains them and the `EZ9999` lines with the device's own reason (`errorStr: ...`).

Rule ids are the CPU emulation's where it has the same rule (gm.out_of_bounds, ub.align,
kernel.timeout, kernel.crash, kernel.trap), so verdicts from both backends compare; an
out-of-range trap that does not say which memory is `mem.out_of_bounds`; a device that stops
answering is `npu.device_lost`."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from kernelwright.tools.toolchain import Diagnostic

# ACL runtime error codes we classify (8.1 include/acl/error_codes/rt_error_codes.h, `leideng/CANN-8.1.RC1`).
TIMEOUT_CODES = {507014: "the AI Core execution timed out", 507034: "the vector core execution timed out",
                 507046: "the stream synchronisation timed out", 507047: "the event synchronisation timed out",
                 507048: "an internal task timed out (ffts+ timeout)", 107020: "a task timed out"}
EXCEPTION_CODES = {507015: "the AI Core execution is abnormal (aicore exception)",
                   507035: "the vector core execution is abnormal (vector core exception)",
                   507049: "the ffts+ task is abnormal (ffts+ exception)"}
TRAP_CODES = {507016: "the AI Core hit a trap", 507036: "the vector core hit a trap",
              507050: "the ffts+ task hit a trap"}
# The cores trap on an out-of-range access; the code says which core and direction, not which memory.
OVERFLOW_CODES = {507042: "the AI Core (cube) trapped on an out-of-range read",
                  507043: "the AI Core (cube) trapped on an out-of-range write",
                  507044: "the vector core trapped on an out-of-range read",
                  507045: "the vector core trapped on an out-of-range write"}
LOST_CODES = {507010: "the device lost its heartbeat", 507901: "the host-device channel closed (hdc disconnect)",
              207004: "no device", 507899: "a driver internal error"}
_CODE = re.compile(r"(?:error code(?: is|:)?|ErrCode=|runtime result =|failed:|retCode=)\s*(\d{6})\b")
_ERRORSTR = re.compile(r"errorStr:\s*(.+?)(?:\s+(?:fixp_error|subErrType|fsmId)|\.\[FUNC|$)", re.M)
_CORE = re.compile(r"there is an? (?:exception of )?(?P<kind>[\w ]+?) error(?: exception)?, core id is (?P<core>\d+)")
_BLOCK = re.compile(r"\bblk:(\d+)")
_MTE_RANGE = re.compile(r"(?:DDR|read|write) address of the MTE instruction is out of range", re.I)
_UNALIGNED = re.compile(r"unaligned U?UB address", re.I)
_DEVICE_LOST = re.compile(r"lost heartbeat|heartbeat (?:of the device )?is lost|hdc disconnect|device (?:is )?lost|"
                          r"device not found|no device", re.I)

HINTS = {
    "gm.out_of_bounds": "a DataCopy/DataCopyPad read or wrote outside its GM buffer: check the block offsets "
                        "(GetBlockIdx() * per-block length), the tail tile and copy lengths against the tensor sizes; "
                        "`--backend sim` names the call and the block",
    "ub.align": "UB (LocalTensor) addresses must be 32-byte aligned: check InitBuffer lengths and sub-tensor offsets "
                "(t[offset] with offset * sizeof(T) a multiple of 32); the sim checks this as ub.align",
    "mem.out_of_bounds": "a read or write went past its buffer and trapped the core: check GM offsets and copy lengths "
                         "(DataCopy/DataCopyPad against the tensor sizes, the tail tile) and UB indexing past an "
                         "InitBuffer length; `--backend sim` names the call (gm.out_of_bounds or ub.out_of_bounds)",
    "kernel.timeout": "a block waited forever or looped: a DeQue without a matching EnQue, a WaitFlag without its SetFlag, "
                      "SyncAll not reached by every block, or a loop bound that never ends; the sim reports where "
                      "blocks wait",
    "kernel.crash": "the kernel faulted on the core: run the case on `--backend sim` to locate it (uninitialised "
                    "TBuf/TQue, UB out of range, missing MTE/vector syncs, a cube L0C read/write conflict)",
    "kernel.trap": "the kernel executed a trap (Trap(), an assert, or an illegal instruction)",
    "npu.device_lost": "the device stopped answering; it is taken out of the pool for this session (check `npu-smi "
                       "info`; a reset may be needed)",
    "worker.crash": "the worker process died outside the kernel (a bad launcher argument, or out of host memory)",
}


@dataclass
class Fault:
    status: str                     # RunResult status: timeout | rule_violation | crash
    rule: str
    message: str
    values: dict[str, Any] = field(default_factory=dict)
    block: int | None = None
    device_lost: bool = False

    def diagnostic(self) -> Diagnostic:
        return Diagnostic(stage="run", rule=self.rule, category="runtime_rule", message=self.message, block=self.block,
                          hint=HINTS.get(self.rule), values=self.values)


def _values(text: str) -> dict[str, Any]:
    values: dict[str, Any] = {}
    codes = [int(c) for c in _CODE.findall(text)]
    if codes:
        values["code"] = next((c for c in codes if c >= 500000), codes[0])
    core = _CORE.search(text)
    if core:
        values["core_id"], values["core_kind"] = int(core.group("core")), core.group("kind").strip()
    reason = _ERRORSTR.search(text)
    if reason:
        values["device_reason"] = reason.group(1).strip().rstrip(".")
    return values


def classify(text: str, *, died: bool = False, signal: int | None = None, hung: bool = False,
             timeout_s: float | None = None) -> Fault:
    """What went wrong on the NPU, from the worker's error text (exception message + stderr tail).
    `died`: the worker exited without answering; `hung`: it gave no answer in time and was killed."""
    values = _values(text)
    code = values.get("code")
    m = _BLOCK.search(text)
    block = int(m.group(1)) if m else None
    reason = f" ({values['device_reason']})" if "device_reason" in values else ""
    where = f" on core {values['core_id']}" if "core_id" in values else ""
    if _MTE_RANGE.search(text):
        return Fault("rule_violation", "gm.out_of_bounds", f"the MTE accessed a GM address out of range{where}: "
                     f"{values.get('device_reason', 'MTE address out of range')}", values, block)
    if _UNALIGNED.search(text):
        return Fault("rule_violation", "ub.align", f"illegal instruction from an unaligned UB address{where}"
                     f"{reason}", values, block)
    if code in LOST_CODES or _DEVICE_LOST.search(text):
        return Fault("crash", "npu.device_lost", f"the NPU was lost: {LOST_CODES.get(code, 'device lost')}{reason}",
                     values, block, device_lost=True)
    if code in OVERFLOW_CODES:
        return Fault("rule_violation", "mem.out_of_bounds", f"{OVERFLOW_CODES[code]} (error {code}){where}{reason}",
                     values, block)
    if code in TIMEOUT_CODES:
        return Fault("timeout", "kernel.timeout", f"{TIMEOUT_CODES[code]} (error {code}){where}{reason}", values, block)
    if code in TRAP_CODES:
        return Fault("crash", "kernel.trap", f"{TRAP_CODES[code]} (error {code}){where}{reason}", values, block)
    if code in EXCEPTION_CODES:
        return Fault("crash", "kernel.crash", f"{EXCEPTION_CODES[code]} (error {code}){where}{reason}", values, block)
    if hung:
        limit = f" within {timeout_s:.0f} s" if timeout_s else ""
        return Fault("timeout", "kernel.timeout", f"the NPU worker gave no answer{limit} and was killed (a hung kernel "
                     "the runtime did not report)", values, block)
    if code is not None:
        return Fault("crash", "kernel.crash", f"the NPU runtime reported error {code}{where}{reason}", values, block)
    if died:
        how = f"signal {signal}" if signal else "an unexpected exit"
        return Fault("crash", "worker.crash", f"the NPU worker died ({how}) without reporting an NPU error: "
                     f"{text.strip()[-600:] or 'no output'}", values, block)
    return Fault("crash", "kernel.crash", f"the run failed: {text.strip()[-600:] or 'no message'}", values, block)


def looks_like_npu_fault(text: str) -> bool:
    """Whether an exception text is a device fault (the worker's device state is then suspect)."""
    return bool(_CODE.search(text) or _MTE_RANGE.search(text) or _UNALIGNED.search(text) or _DEVICE_LOST.search(text)
                or "EZ9999" in text or "[Error]:" in text)
