"""Run one case of a `cann` build on an NPU worker and answer in the sim's RunResult shape (same
statuses, outputs keyed by name, diagnostics with rule ids), so verdicts compare across backends.
Timing is the same request with event timing (TimingResult). Faults are classified
(kernelwright.tools.cann.faults); after one the worker is restarted and checked before the next
case, and a device that does not come back is reported lost."""
from __future__ import annotations

import json
import time
from functools import lru_cache
from pathlib import Path
from typing import Any

from kernelwright.tools.cann.client import NpuWorker, Reply
from kernelwright.tools.cann.faults import Fault, classify
from kernelwright.tools.cann.plan import plan_aclnn, plan_launch
from kernelwright.tools.cann.signatures import KernelSignature
from kernelwright.tools.timing import ReferenceSpec, TimingConfig, TimingResult, TimingStats
from kernelwright.tools.toolchain import BadCase, BuildResult, Case, Diagnostic, RunResult

RUN_GRACE_S = 30.0     # beyond the case's own timeout: worker start-up, copies to and from the device
UNAVAILABLE_HINT = ("run on an Ascend host: `source <CANN>/set_env.sh`, `pip install -e '.[npu]'`, and check "
                    "`kernelwright doctor`; without an NPU use `--backend cann-syntax` or `sim`")


@lru_cache(maxsize=64)
def _signatures(path: str) -> dict[str, KernelSignature]:
    return {k: KernelSignature.model_validate(v) for k, v in json.loads(Path(path).read_text()).items()}


def request_for(build: BuildResult, case: Case) -> dict[str, Any]:
    """The worker request for `case` (raises BadCase when the case does not fit the build)."""
    if build.op is not None:
        if "aclnn_library" not in build.artifacts:
            raise BadCase("this msopgen build has no aclnn launcher (it did not finish)")
        return {"kind": "aclnn", "library": build.artifacts["aclnn_library"], "plan": plan_aclnn(build.op, case).model_dump()}
    if "library" not in build.artifacts or "launchers" not in build.artifacts:
        raise BadCase("this build has no kernel library (it did not finish)")
    plan = plan_launch(_signatures(build.artifacts["launchers"]), case)
    return {"kind": "launch", "library": build.artifacts["library"], "plan": plan.model_dump()}


def _failure(reply: Reply, timeout_s: float) -> Fault | Diagnostic:
    """A fault on the device, or (for errors that are not) a diagnostic with the status to report."""
    if reply.hung or reply.died or reply.fault:
        return classify(reply.text, died=reply.died, signal=reply.signal, hung=reply.hung, timeout_s=timeout_s)
    err = reply.error
    if err.startswith("DeviceUnavailable"):
        return Diagnostic(stage="run", rule="npu.unavailable", category="other", message=err, hint=UNAVAILABLE_HINT)
    if "GetWorkspaceSize returned" in err:
        return Diagnostic(stage="host", rule="host.tiling_failed", category="runtime_rule", message=err,
                          hint="the operator's TilingFunc (or its aclnn parameter checks) rejected this case")
    return Diagnostic(stage="run", rule="worker.error", category="other", message=err,
                      notes=[reply.data.get("trace", "")[-1500:]] if reply.data.get("trace") else [])


def _apply(result: RunResult | TimingResult, failure: Fault | Diagnostic, worker: NpuWorker) -> None:
    if isinstance(failure, Fault):
        result.status = failure.status  # type: ignore[assignment]
        result.diagnostics.append(failure.diagnostic())
        result.detail = failure.message
        recover(worker, result)
        return
    result.status = "host_error" if failure.rule in ("host.tiling_failed", "npu.unavailable") else "crash"  # type: ignore[assignment]
    result.diagnostics.append(failure)
    result.detail = failure.message


def recover(worker: NpuWorker, result: RunResult | TimingResult) -> None:
    """Restart the worker after a fault; a device that does not answer again is lost."""
    worker.kill()
    again = worker.start()
    if again.ok:
        return
    worker.lost = True
    result.diagnostics.append(Diagnostic(stage="run", rule="npu.device_lost", category="runtime_rule",
                                         message=f"npu:{worker.device} did not come back after the fault: "
                                                 f"{(again.text or 'no answer').strip()[-600:]}",
                                         hint="the device is taken out of the pool; `npu-smi info` shows its health"))


def run_case(worker: NpuWorker, build: BuildResult, case: Case) -> RunResult:
    start = time.monotonic()
    result = RunResult(toolchain="cann", status="ok")
    try:
        if not build.ok:
            result.status, result.detail = "build_error", "the project did not build"
            return result
        req = request_for(build, case)
        result.block_dim = int(req["plan"].get("block_dim") or 0)
        limit = case.timeout_s + RUN_GRACE_S
        reply = worker.request({"op": "run", **req}, timeout_s=limit)
        if reply.ok:
            result.outputs = dict(reply.data["outputs"])
            result.block_status = ["done"] * result.block_dim
        else:
            _apply(result, _failure(reply, limit), worker)
    except BadCase as e:
        result.status, result.detail = "bad_case", str(e)
        result.diagnostics.append(Diagnostic(stage="run", category="other", message=str(e)))
    finally:
        result.seconds = time.monotonic() - start
    return result


def time_case(worker: NpuWorker, build: BuildResult, case: Case, *, config: TimingConfig, flush_bytes: int,
              reference: ReferenceSpec | None = None, seed: int = 0) -> TimingResult:
    result = TimingResult(toolchain="cann", status="ok", warmup=config.warmup)
    if not build.ok:
        result.status, result.detail = "build_error", "the project did not build"
        return result
    try:
        req = request_for(build, case)
    except BadCase as e:
        result.status, result.detail = "bad_case", str(e)
        return result
    reply = worker.request({"op": "time", **req, "config": config.model_dump(), "flush_bytes": flush_bytes,
                            "reference": reference.model_dump() if reference else None, "seed": seed},
                           timeout_s=config.timeout_s)
    if not reply.ok:
        _apply(result, _failure(reply, config.timeout_s), worker)
        return result
    d = reply.data
    result.kernel = TimingStats.of(d["kernel_ms"])
    if d.get("reference_ms"):
        result.reference = TimingStats.of(d["reference_ms"])
    if d.get("reference_error"):
        result.notes.append(f"the reference could not be timed: {d['reference_error']}")
    result.flush_bytes, result.fresh_input_sets = int(d["flush_bytes"]), int(d["fresh_sets"])
    dev = d.get("device", {})
    result.device = f"{dev.get('device', '')} ({dev.get('soc', '') or 'unknown SoC'})"
    result.versions = {k: str(v) for k, v in dev.get("versions", {}).items()}
    if result.kernel.spread > 0.2:
        result.notes.append(f"kernel times vary by {result.kernel.spread:.0%} (std/mean); another process may share the NPU")
    return result.with_speedups()
