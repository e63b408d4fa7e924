"""Typed timing results of a backend that measures on hardware (the `cann` backend), for the
referee's measure stage. Timing follows the harness practice (harnesses-and-peers.md §1.3, §5.4):
device events around each call, warm-up calls first, an L2 flush of at least 2x the SoC's L2
outside the timed window, fresh inputs, and the PyTorch eager reference timed live in the same
worker on the same inputs. Times are milliseconds."""
from __future__ import annotations

import math
import statistics
from typing import Any, Literal

from pydantic import BaseModel, Field

from kernelwright.tools.toolchain import Diagnostic

FLUSH_FLOOR_BYTES = 256 << 20      # AscendKernelBench flushes max(256 MiB, 2 x L2)


def flush_bytes(l2_bytes: int) -> int:
    """Bytes written between timed calls so that no input stays in L2."""
    return max(FLUSH_FLOOR_BYTES, 2 * int(l2_bytes))


class TimingConfig(BaseModel):
    warmup: int = Field(10, ge=0)
    trials: int = Field(100, ge=1)
    flush: bool = True
    fresh_inputs: bool = True
    fresh_budget_bytes: int = 256 << 20     # input sets kept on the device for rotation
    timeout_s: float = 600.0


class ReferenceSpec(BaseModel):
    """The PyTorch eager reference to time next to the kernel: `Model` from a task file, built with
    `init_args`, called with `forward_args` (arrays go to the device)."""

    model_config = {"arbitrary_types_allowed": True}

    source: str                              # path of the .py defining the class
    class_name: str = "Model"
    init_args: list[Any] = Field(default_factory=list)
    forward_args: list[Any] = Field(default_factory=list)


class TimingStats(BaseModel):
    n: int
    mean_ms: float
    median_ms: float
    std_ms: float
    min_ms: float
    max_ms: float

    @classmethod
    def of(cls, samples_ms: list[float]) -> "TimingStats":
        if not samples_ms:
            raise ValueError("no timing samples")
        xs = [float(x) for x in samples_ms]
        return cls(n=len(xs), mean_ms=statistics.fmean(xs), median_ms=statistics.median(xs),
                   std_ms=statistics.stdev(xs) if len(xs) > 1 else 0.0, min_ms=min(xs), max_ms=max(xs))

    @property
    def spread(self) -> float:
        """Coefficient of variation (std / mean)."""
        return self.std_ms / self.mean_ms if self.mean_ms else math.inf


class TimingResult(BaseModel):
    toolchain: str
    status: Literal["ok", "crash", "timeout", "rule_violation", "bad_case", "host_error", "build_error", "unsupported"]
    kernel: TimingStats | None = None
    reference: TimingStats | None = None
    speedup_median: float | None = None      # reference median / kernel median (> 1: the kernel is faster)
    speedup_mean: float | None = None
    warmup: int = 0
    flush_bytes: int = 0
    fresh_input_sets: int = 0
    device: str = ""                         # e.g. "npu:0 (Ascend910B2)"
    versions: dict[str, str] = Field(default_factory=dict)    # cann, torch, torch_npu
    diagnostics: list[Diagnostic] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def with_speedups(self) -> "TimingResult":
        if self.kernel and self.reference and self.kernel.median_ms > 0 and self.kernel.mean_ms > 0:
            self.speedup_median = self.reference.median_ms / self.kernel.median_ms
            self.speedup_mean = self.reference.mean_ms / self.kernel.mean_ms
        return self
