"""CANN's own names for the faults we report: the error classes of `npu_check`, the checker of Ascend C's
CPU twin debugging (asc-tools `npuchk/ascendc_npuchk_report.py`). Its classes are defined in the CANN
Ascend C Tools documentation, "npu_check" (gitcode.com/cann/asc-tools, docs/02_npu_check.md, section
"异常检测" / "Anomaly Detection"; also the CANN 8.0 RC3 ascendebug guide, "npucheck功能",
hiascend.com .../auxiliarydevtool/atlasascendebug_16_0133.html):

  ErrorRead1   read of memory not allocated by AllocTensor, or already freed by FreeTensor
  ErrorRead2   [suspicious] read of data that was partly or wholly never written
  ErrorRead3   read past the start/end of the data AllocTensor allocated
  ErrorRead4   read address not 32-byte aligned
  ErrorWrite1  write to memory not allocated by AllocTensor, or already freed
  ErrorWrite2  write past the start/end of the data AllocTensor allocated
  ErrorWrite3  [suspicious] a write over data that was written and not yet consumed
  ErrorWrite4  write address not 32-byte aligned
  ErrorSync1   write synchronisation: a pipe barrier within a pipe or a set/wait between pipes is missing
  ErrorSync2   read synchronisation: likewise, on the reading side
  ErrorSync3   set/wait not paired (a set or a wait is missing)
  ErrorSync4   an event id set (or waited) twice, e.g. mte2 set0/set0
  ErrorLeak    memory allocated and never freed
  ErrorFree    memory freed twice
  ErrorBuffer0 a tensor whose memory InitBuffer never set up
  ErrorBuffer1 a tensor used with a queue of another type than it was initialised with
  ErrorBuffer2 VECIN/VECOUT/VECCALC operations out of order (the EnQue/DeQue state check)
  ErrorBuffer3 a tensor operation on invalid memory (not allocated, or out of bounds)
  ErrorBuffer4 a TBufPool not set up with InitBufPool

Rules with no npu_check counterpart (truncating DataCopy lengths, instruction parameter ranges, GM races,
which npu_check reports in its unnumbered "GM multi-core conflict" check) map to nothing."""
from __future__ import annotations

import re

# rule id -> class, or (class for a read, class for a write) where the operand decides
_CLASSES: dict[str, str | tuple[str, str]] = {
    "ub.out_of_bounds": ("ErrorRead3", "ErrorWrite2"),
    "tensor.index": ("ErrorRead3", "ErrorWrite2"),
    "list.index": "ErrorRead3",
    "ub.align": ("ErrorRead4", "ErrorWrite4"),
    "cube.align": ("ErrorRead4", "ErrorWrite4"),
    "gm.out_of_bounds": ("ErrorRead1", "ErrorWrite1"),
    "state.stale_local": "ErrorRead2",
    "pipe.hazard.raw": "ErrorSync2",
    "pipe.hazard.war": "ErrorSync1",
    "pipe.hazard.waw": "ErrorSync1",
    "flag.wait_without_set": "ErrorSync3",
    "flag.set_overflow": "ErrorSync4",
    "queue.leak": "ErrorLeak",
    "queue.double_free": "ErrorFree",
    "queue.uninitialised": "ErrorBuffer0",
    "tbuf.uninitialised": "ErrorBuffer0",
    "queue.foreign_tensor": "ErrorBuffer1",
    "queue.deque_empty": "ErrorBuffer2",
    "queue.no_free_slot": "ErrorBuffer2",
    "queue.bad_enque": "ErrorBuffer2",
    "queue.free_enqueued": "ErrorBuffer2",
    "queue.depth": "ErrorBuffer2",
    "tbuf.size": "ErrorBuffer3",
    "tbuf.offset": "ErrorBuffer3",
    "ub.capacity": "ErrorBuffer3",
    "local.capacity": "ErrorBuffer3",
}
# how our messages name a written operand, and the APIs that write a tensor element
_WRITES = re.compile(r"\b(writes|dst\w*|SetValue|operator\[\] =)\b")


def npu_check_class(rule: str | None, message: str = "", symbol: str | None = None) -> str | None:
    """The npu_check class of a finding with this rule id (None when npu_check has no such class)."""
    found = _CLASSES.get(rule or "")
    if found is None or isinstance(found, str):
        return found
    read, write = found
    return write if _WRITES.search(f"{symbol or ''} {message}") else read


def documented_rules() -> dict[str, str | tuple[str, str]]:
    return dict(_CLASSES)
