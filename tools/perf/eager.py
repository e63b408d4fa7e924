"""The eager baseline: the reference's ATen ops (tools/tasks/aten_ops.py), each launched as its own
kernel that runs at the SoC's bound under the same cost model (its bytes at the full HBM bandwidth, less
the inputs that come from L2 as the kernel side's rule says (an earlier op's tensor that still fits),
its vector work at the measured peak rates on every vector core, its matmuls at the cube rate on every
cube core, and never faster than one copy in and one copy out per core) plus one launch overhead. An
optimistic eager, so an estimated speed-up over it is not flattered: a kernel only wins by moving
fewer bytes, launching fewer kernels, or both.

One kernel per fused ATen norm op is what torch_npu launches: native_group_norm is one aclnnGroupNorm
call (Ascend/op-plugin, op_plugin/ops/opapi/GroupNormKernelNpuOpApi.cpp; one GroupNormV2 op giving y, mean
and rstd, hicann/ops-nn norm/group_norm_v2), InstanceNorm reaches one aclnnBatchNorm (ATen's composite
instance_norm calls batch_norm on the (1, N*C, ...) view; ops-nn batch_norm_v3), softmax one aclnnSoftmax."""
from __future__ import annotations

import math
from typing import Any

import numpy as np
from pydantic import BaseModel, Field

from kernelwright.tools.dtypes import BY_NAME
from kernelwright.tools.hardware import SocProfile, load_soc
from kernelwright.tools.perf import calibration as cal
from kernelwright.tools.perf.pipes import copy_cycles
from kernelwright.tools.perf.trace import dtype_bytes

EAGER_SOURCE = "estimate: each ATen op of the reference as one kernel at the SoC's bound plus a launch (tools/perf)"

# ops that launch nothing: views, metadata, allocation without initialisation
FREE = {"view", "_unsafe_view", "reshape", "_reshape_alias", "t", "transpose", "permute", "expand", "expand_as",
        "unsqueeze", "squeeze", "slice", "select", "alias", "detach", "as_strided", "split", "split_with_sizes",
        "chunk", "unbind", "narrow", "lift_fresh", "empty", "empty_like", "empty_strided", "device", "sym_size",
        "view_as_real", "view_as_complex", "unflatten", "flatten", "_local_scalar_dense", "numpy_T", "movedim"}
CUBE_OPS = {"mm", "addmm", "bmm", "baddbmm", "convolution", "_convolution", "linear", "matmul", "addbmm"}
# the vector instructions one pass over the data costs, per op (default: one VADD pass)
PASSES: dict[str, list[str]] = {
    "add": ["VADD"], "sub": ["VSUB"], "rsub": ["VSUB"], "mul": ["VMUL"], "div": ["VDIV"], "exp": ["VEXP"],
    "log": ["VLN"], "sqrt": ["VSQRT"], "rsqrt": ["VRSQRT"], "reciprocal": ["VREC"], "abs": ["VABS"],
    "relu": ["VRELU"], "neg": ["VMULS"], "clamp": ["VMAXS", "VMINS"], "clamp_min": ["VMAXS"], "clamp_max": ["VMINS"],
    "maximum": ["VMAX"], "minimum": ["VMIN"], "where": ["VSEL"], "_to_copy": ["VCONV"], "copy_": ["VCOPY"],
    "clone": ["VCOPY"], "fill_": ["VECTORDUP"], "zeros": ["VECTORDUP"], "ones": ["VECTORDUP"], "full": ["VECTORDUP"],
    "sigmoid": ["VMULS", "VEXP", "VADDS", "VREC"], "tanh": ["VMULS", "VEXP", "VADDS", "VDIV", "VSUB"],
    "gelu": ["VMUL", "VMUL", "VMULS", "VEXP", "VADDS", "VDIV", "VMUL"], "silu": ["VMULS", "VEXP", "VADDS", "VDIV"],
    "erf": ["VMUL", "VMUL", "VADD", "VMUL", "VEXP", "VMUL"], "pow": ["VLN", "VMULS", "VEXP"],
    "softplus": ["VEXP", "VADDS", "VLN"], "elu": ["VEXP", "VADDS", "VMULS", "VSEL"], "mish": ["VEXP", "VADDS", "VLN",
    "VEXP", "VDIV", "VMUL"], "hardswish": ["VADDS", "VMAXS", "VMINS", "VMUL", "VMULS"],
    "leaky_relu": ["VLRELU"], "sum": ["VCADD"], "mean": ["VCADD", "VMULS"], "amax": ["VCMAX"], "amin": ["VCMIN"],
    "max": ["VCMAX"], "min": ["VCMIN"], "argmax": ["VCMAX", "VCMAX"], "argmin": ["VCMIN", "VCMIN"],
    "_softmax": ["VCMAX", "VSUB", "VEXP", "VCADD", "VDIV"], "_log_softmax": ["VCMAX", "VSUB", "VEXP", "VCADD", "VLN",
    "VSUB"], "native_layer_norm": ["VCADD", "VSUB", "VMUL", "VCADD", "VRSQRT", "VMUL", "VMUL", "VADD"],
    "native_group_norm": ["VCADD", "VSUB", "VMUL", "VCADD", "VRSQRT", "VMUL", "VMUL", "VADD"],
    "_native_batch_norm_legit_no_training": ["VSUB", "VMUL", "VMUL", "VADD"], "var": ["VCADD", "VSUB", "VMUL",
    "VCADD"], "cumsum": ["VADD", "VADD"], "sort": ["VBITSORT", "VMRGSORT"], "topk": ["VBITSORT", "VMRGSORT"],
}


class EagerOp(BaseModel):
    op: str
    us: float                        # launch + max of the three floors
    bound: str                       # GM | L2 | vector | cube | latency (one copy in and out per core)
    bytes: int = 0
    l2_bytes: int = 0                # the part of its reads that hit L2


class EagerEstimate(BaseModel):
    soc: str
    total_us: float = 0.0
    kernels: int = 0                 # ops that launch a kernel
    launch_us: float = 0.0
    ops: list[EagerOp] = Field(default_factory=list)
    source: str = EAGER_SOURCE
    notes: list[str] = Field(default_factory=list)


def _numel(t: dict[str, Any]) -> int:
    return math.prod(t.get("shape") or [1])


def _bytes(ts: list[dict[str, Any]]) -> int:
    return sum(_numel(t) * dtype_bytes(t.get("dtype", "float32")) for t in ts)


def _macs(op: str, ins: list[dict[str, Any]], outs: list[dict[str, Any]]) -> int:
    mats = [t["shape"] for t in ins if len(t.get("shape") or []) >= 2]
    out = outs[0]["shape"] if outs else []
    if op in ("convolution", "_convolution") and len(mats) >= 2:
        w = mats[1]                  # (out channels, in channels / groups, kernel...)
        return _numel(outs[0]) * math.prod(w[1:]) if outs else 0
    if len(mats) >= 2 and out:
        return math.prod(out) * mats[-2][-1]          # every output element sums over the shared dim k
    return 0


def _ctype(dtype: str) -> str:
    d = BY_NAME.get(dtype)
    return d.ctype if d and d.ctype else dtype


def _cube_cycles(macs: int, dtype: str) -> float:
    """A 16x16x16 fp16 fractal per cycle; fp32 at its k-step [pypto]."""
    return macs / (16 * 16 * cal.CUBE_KSTEP.get(_ctype(dtype), 16))


def _vector_cycles(op: str, elements: int, dtype: str) -> float:
    name = _ctype(dtype)
    repeats = elements * dtype_bytes(dtype) / 256
    total = 0.0
    for instr in PASSES.get(op, ["VADD"]):
        api = next((a for a, i in cal.API_INSTRUCTION.items() if i == instr), "Add")
        total += repeats * 256 / cal.vector_cost(api, name)[1]
    return total


def eager_op(o: dict[str, Any], soc: SocProfile, hit_bytes: int = 0) -> EagerOp | None:
    """One ATen op as one kernel; `hit_bytes` of its inputs come from L2 (see estimate_eager)."""
    op = str(o.get("op", ""))
    if op in FREE:
        return None
    ins, outs = list(o.get("inputs") or []), list(o.get("outputs") or [])
    dtype = (ins or outs or [{"dtype": "float32"}])[0].get("dtype", "float32")
    nbytes = _bytes(ins) + _bytes(outs)
    hz = cal.CLOCK_MHZ * 1e6
    # HBM moves what missed L2; every access passes through L2 (the kernel side's floors, estimate.py)
    floors = {"GM": (nbytes - hit_bytes) / cal.HBM_BYTES_PER_S,
              "L2": nbytes / (cal.L2_READ_BYTES_PER_CYCLE * soc.aic_cores * hz)}
    if op in CUBE_OPS:
        floors["cube"] = _cube_cycles(_macs(op, ins, outs), dtype) / soc.aic_cores / hz
    else:
        elements = max([_numel(t) for t in ins + outs] or [0])
        floors["vector"] = _vector_cycles(op, elements, dtype) / soc.aiv_cores / hz
    # however well tiled, each core reads its share into UB and writes its results back at least once,
    # and a copy pays its latency (the same copy costs as our kernels)
    cores = soc.aiv_cores
    floors["latency"] = float(copy_cycles("GM_TO_UB", np.array([max(1.0, _bytes(ins) / cores)]))[0]
                              + copy_cycles("UB_TO_GM", np.array([max(1.0, _bytes(outs) / cores)]))[0]) / hz
    bound = max(floors, key=floors.get)  # type: ignore[arg-type]
    return EagerOp(op=op, us=cal.LAUNCH_US + floors[bound] * 1e6, bound=bound, bytes=nbytes, l2_bytes=hit_bytes)


def _hits(ins: list[dict[str, Any]], last: dict[int, int], moved: int, l2_bytes: int) -> int:
    """Bytes of an op's inputs that come from L2: the kernel side's rule (tools/perf/l2.py) for whole tensors: an
    input whose storage an earlier op read or wrote, when everything moved since then and the input fit in L2."""
    return sum(_bytes([t]) for t in ins
               if t.get("storage") in last and moved - last[t["storage"]] + _bytes([t]) <= l2_bytes)


def estimate_eager(ops: list[dict[str, Any]], soc: SocProfile | str | None = None) -> EagerEstimate:
    prof = soc if isinstance(soc, SocProfile) else load_soc(soc)
    est = EagerEstimate(soc=prof.name)
    moved = 0                        # bytes every launched op so far read and wrote
    last: dict[int, int] = {}        # storage -> `moved` when an op last touched it
    for o in ops:
        ins, outs = list(o.get("inputs") or []), list(o.get("outputs") or [])
        e = eager_op(o, prof, _hits(ins, last, moved, prof.l2_bytes))
        if e is None:
            continue
        est.ops.append(e)
        moved += e.bytes
        last |= {t["storage"]: moved for t in ins + outs if t.get("storage") is not None}
    est.kernels = len(est.ops)
    est.launch_us = est.kernels * cal.LAUNCH_US
    est.total_us = sum(e.us for e in est.ops)
    if not est.ops:
        est.notes.append("the reference launches no kernel (views only): eager costs nothing to compare with")
    return est
