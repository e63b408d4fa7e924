"""A case, checked and laid out for the NPU worker (all checks happen here, in the parent, so a bad
case is a `bad_case` verdict and never a fault on the device):

* kernel-launch: each `ArgSpec` against the kernel's parameter (GM pointer, scalar, by-value struct),
  scalars packed in the parameter's own C type;
* msopgen (aclnn): inputs, attributes and outputs in the operator's order, dtypes as aclDataType."""
from __future__ import annotations

import struct
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from kernelwright.tools.cann.signatures import KernelParam, KernelSignature
from kernelwright.tools.dtypes import GE_VALUES, NUMPY_TO_GE, numpy_dtype
from kernelwright.tools.opspec import OpAttr, OpSpec
from kernelwright.tools.toolchain import ArgSpec, BadCase, Case

SYSTEM_WORKSPACE_BYTES = 16 << 20   # what AscendC reserves in front of a user workspace (GetUserWorkspace)


class LaunchPlan(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    kernel: str
    symbol: str
    block_dim: int
    args: list[tuple] = Field(default_factory=list)   # ("ptr", name) | ("value", bytes) | ("null",) | ("buffer", name, nbytes, bytes)
    inputs: dict[str, np.ndarray] = Field(default_factory=dict)
    outputs: dict[str, tuple[tuple[int, ...], str]] = Field(default_factory=dict)   # name -> (shape, dtype)
    inout: list[str] = Field(default_factory=list)    # inputs whose final contents come back
    poison: dict[str, str] = Field(default_factory=dict)   # output -> one element's bytes (hex) it starts as


class AclnnPlan(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    op: str
    tensors: list[tuple] = Field(default_factory=list)  # ("in", name, array | None) | ("out", name, shape, dtype, acl)
    attrs: list[tuple] = Field(default_factory=list)    # (kind, value)
    inout: list[str] = Field(default_factory=list)
    poison: dict[str, str] = Field(default_factory=dict)   # as LaunchPlan.poison


def dtype_name(arr: np.ndarray) -> str:
    return "bfloat16" if arr.dtype.name == "bfloat16" else str(arr.dtype)


def acl_dtype(name: str) -> int:
    if name not in NUMPY_TO_GE:
        raise BadCase(f"dtype {name} has no aclDataType (supported: {', '.join(sorted(NUMPY_TO_GE))})")
    return GE_VALUES[NUMPY_TO_GE[name]]


def pack_scalar(p: KernelParam, value: Any) -> bytes:
    """A scalar in the kernel parameter's own C type (bfloat16 through its bit pattern)."""
    if p.ctype.endswith("bfloat16_t"):
        import ml_dtypes
        return np.array([value], dtype=ml_dtypes.bfloat16).tobytes()
    try:
        if p.fmt in "bBhHiIqQ?":
            if isinstance(value, float) and not float(value).is_integer():
                raise BadCase(f"parameter '{p.name}' is {p.ctype}; the case gives the non-integer {value}")
            value = int(value)
        return struct.pack("<" + (p.fmt or "i"), value)
    except struct.error as e:
        raise BadCase(f"parameter '{p.name}' ({p.ctype}) cannot hold {value!r}: {e}") from None


def _launch_arg(i: int, a: ArgSpec, p: KernelParam, case: Case, plan: LaunchPlan) -> tuple:
    where = f"argument {i} ({a.kind}) for parameter '{p.name}' ({p.ctype or p.kind})"
    if a.kind == "tensor":
        if p.kind != "pointer":
            raise BadCase(f"{where}: a tensor needs a GM pointer parameter")
        if a.name in case.inputs:
            plan.inputs[a.name] = np.ascontiguousarray(case.inputs[a.name])
            if a.name in case.outputs and a.name not in plan.inout:
                plan.inout.append(a.name)
        elif a.name in case.outputs:
            spec = case.outputs[a.name]
            numpy_dtype(spec.dtype)
            plan.outputs[a.name] = (tuple(int(d) for d in spec.shape), spec.dtype)
            if spec.poison:
                plan.poison[a.name] = spec.poison
        else:
            raise BadCase(f"{where}: tensor '{a.name}' is neither an input nor an output of the case")
        return ("ptr", a.name)
    if a.kind in ("int", "float"):
        if p.kind != "scalar":
            raise BadCase(f"{where}: a scalar needs a scalar parameter, not a {p.kind}")
        return ("value", pack_scalar(p, a.value))
    if a.kind == "bytes":
        if p.kind == "pointer":
            raise BadCase(f"{where}: bytes are passed by value; the parameter is a GM pointer (use kind 'tiling')")
        return ("value", bytes.fromhex(a.value or ""))
    if a.kind == "null":
        if p.kind != "pointer":
            raise BadCase(f"{where}: null needs a pointer parameter")
        return ("null",)
    data = bytes.fromhex(a.value) if isinstance(a.value, str) and a.value else b""
    if p.kind != "pointer":
        raise BadCase(f"{where}: a {a.kind} buffer needs a GM pointer parameter")
    extra = SYSTEM_WORKSPACE_BYTES if a.kind == "workspace" else 0
    return ("buffer", a.name or a.kind, max(a.bytes, len(data)) + extra, data)


def plan_launch(sigs: dict[str, KernelSignature], case: Case) -> LaunchPlan:
    names = sorted(sigs)
    kernel = case.kernel or (names[0] if len(names) == 1 else None)
    if kernel is None:
        raise BadCase(f"the project has several kernels ({', '.join(names)}); say which one to run (case.kernel)")
    if kernel not in sigs:
        raise BadCase(f"no launchable kernel '{kernel}' (built: {', '.join(names) or 'none'})")
    if case.block_dim is None or case.args is None:
        raise BadCase("a kernel-launch case needs block_dim and args (the kernel's parameters in order)")
    if not 1 <= case.block_dim <= 65535:
        raise BadCase(f"block_dim {case.block_dim} is out of range (1 to 65535)")
    sig = sigs[kernel]
    if len(case.args) != len(sig.params):
        params = ", ".join(f"{p.ctype} {p.name}" for p in sig.params)
        raise BadCase(f"kernel {kernel}({params}) takes {len(sig.params)} arguments; the case gives {len(case.args)}")
    plan = LaunchPlan(kernel=kernel, symbol=sig.symbol, block_dim=int(case.block_dim))
    plan.args = [_launch_arg(i, a, p, case, plan) for i, (a, p) in enumerate(zip(case.args, sig.params))]
    return plan


def _attr(a: OpAttr, case: Case, op: str) -> tuple:
    value = case.attrs.get(a.name, a.default)
    if value in ("", None):
        if a.param_type == "required":
            raise BadCase(f"attribute '{a.name}' is required by {op} and the case does not give it")
        value = 0 if not a.type.startswith("list") else []
    kind = a.type
    try:
        if kind == "int":
            return (kind, int(value))
        if kind == "float":
            return (kind, float(value))
        if kind == "bool":
            return (kind, bool(int(value)) if isinstance(value, str) and value.isdigit() else bool(value))
        if kind in ("string", "str"):
            return ("string", str(value))
        items = value if isinstance(value, (list, tuple)) else [value]
        conv = {"list_int": int, "list_float": float, "list_bool": bool}[kind]
        return (kind, [conv(x) for x in items])
    except (TypeError, ValueError, KeyError) as e:
        raise BadCase(f"attribute '{a.name}' of {op} ({kind}) cannot take {value!r}: {e}") from None


def plan_aclnn(op: OpSpec, case: Case) -> AclnnPlan:
    plan = AclnnPlan(op=op.op_type)
    for p in op.inputs:
        arr = case.inputs.get(p.name)
        if arr is None and p.param_type == "required":
            raise BadCase(f"input '{p.name}' of {op.op_type} is required and missing from the case")
        if arr is not None:
            arr = np.ascontiguousarray(arr)
            acl_dtype(dtype_name(arr))
            if p.name in case.outputs:
                plan.inout.append(p.name)
        plan.tensors.append(("in", p.name, arr))
    for p in op.outputs:
        if p.name in case.outputs:
            spec = case.outputs[p.name]
            plan.tensors.append(("out", p.name, tuple(int(d) for d in spec.shape), spec.dtype, acl_dtype(spec.dtype)))
            if spec.poison:
                plan.poison[p.name] = spec.poison
        else:
            raise BadCase(f"output '{p.name}' of {op.op_type} has no shape in the case: the cann backend does not run "
                          "InferShape; give case.outputs (the referee does)")
    plan.attrs = [_attr(a, case, op.op_type) for a in op.attrs]
    return plan
