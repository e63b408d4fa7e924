"""How fast: a cost model of the Ascend AI Core over the emulation's instruction trace.

`estimate(trace, soc)` times a traced kernel on a SoC (tools/perf/estimate.py, one core per block in
tools/perf/pipes.py); `estimate_eager(ops, soc)` times the reference's ATen ops as eager PyTorch would
launch them (tools/perf/eager.py). Every constant is a published fact with its source
(tools/perf/calibration.py). Both are estimates, and say so; the `cann` backend measures instead.
A search over tiling knobs runs each candidate on the emulation and calls `estimate_run(run, soc)`
(milliseconds: equal blocks are timed once)."""
from kernelwright.tools.perf.eager import EagerEstimate, estimate_eager
from kernelwright.tools.perf.estimate import Estimate, estimate, estimate_run
from kernelwright.tools.perf.trace import KernelTrace, TraceBuilder

__all__ = ["EagerEstimate", "Estimate", "KernelTrace", "TraceBuilder", "estimate", "estimate_eager", "estimate_run"]
