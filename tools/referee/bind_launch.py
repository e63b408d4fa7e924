"""Bind a task case onto a kernel-launch project through its `LaunchSpec`: input arguments take the
task tensor of the same name (else the next forward tensor), output arguments take the reference's
outputs in order, scalars, workspace sizes and block_dim are small expressions over the case's
shapes (see `launch_expr`)."""
from __future__ import annotations

import numpy as np

from kernelwright.tools.project import LaunchSpec
from kernelwright.tools.referee.binding import Bound, TaskValue, name_matches, norm
from kernelwright.tools.referee.launch_expr import ExprError, TensorInfo, evaluate
from kernelwright.tools.tasks.reference import RefValue
from kernelwright.tools.toolchain import ArgSpec, Case, OutputSpec

_FLOAT_CTYPES = {"float", "double", "half", "bfloat16_t", "float32_t", "float16_t"}
MAX_BLOCK_DIM = 65535   # the launch API takes blockDim in [1, 65535] (AscendC kernel launch <<<...>>>)


def bind_launch(spec: LaunchSpec, values: list[TaskValue], expected: list[RefValue], *, cores: int, ub_bytes: int,
                mutated: set[int] = frozenset()) -> Bound:
    bound = Bound()
    inputs: dict[str, np.ndarray] = {}
    outputs: dict[str, OutputSpec] = {}
    env: dict = {"cores": cores, "ub_bytes": ub_bytes}
    for v in values:
        if v.value.kind == "scalar" and isinstance(v.value.value, (int, float)) and not isinstance(v.value.value, bool):
            env.setdefault(norm(v.name), v.value.value)
    claimed: set[int] = set()
    n_out = 0
    for a in spec.args:
        if a.kind == "input":
            named = [v for v in values if id(v) not in claimed and v.value.kind == "tensor" and name_matches(v, a.name or "")]
            free = named or [v for v in values if id(v) not in claimed and v.value.kind == "tensor"]
            if not free:
                bound.problem = f"launch argument '{a.name}' is an input and the task has no tensor left for it"
                return bound
            v = free[0]
            claimed.add(id(v))
            if not named:
                bound.notes.append(f"launch input '{a.name}' <- {v.label} (by position)")
            inputs[a.name or v.name] = v.value.array
            if v.origin == "input" and v.index in mutated:
                bound.inplace[a.name or v.name] = v.index
        elif a.kind == "output":
            if n_out >= len(expected):
                bound.problem = (f"launch argument '{a.name}' is output {n_out}, and the reference returns only "
                                 f"{len(expected)} output(s)")
                return bound
            ref = expected[n_out]
            outputs[a.name or f"out{n_out}"] = OutputSpec(shape=tuple(ref.shape or ()), dtype=ref.dtype or "float32")
            bound.outputs.append((n_out, a.name or f"out{n_out}"))
            n_out += 1
    for name, arr in inputs.items():
        env[name] = TensorInfo(name, arr.shape, arr.dtype.itemsize)
    for name, o in outputs.items():
        env[name] = TensorInfo(name, o.shape, np.dtype("uint16" if o.dtype == "bfloat16" else o.dtype).itemsize)
    args: list[ArgSpec] = []
    try:
        for a in spec.args:
            if a.kind in ("input", "output"):
                args.append(ArgSpec(kind="tensor", name=a.name))
            elif a.kind == "scalar":
                value = evaluate(a.expr or "0", env)
                kind = "float" if a.ctype in _FLOAT_CTYPES else "int"
                args.append(ArgSpec(kind=kind, value=float(value) if kind == "float" else int(value)))
            elif a.kind == "workspace":
                args.append(ArgSpec(kind="workspace", name=a.name or "workspace", bytes=int(evaluate(a.expr or "0", env))))
            else:
                args.append(ArgSpec(kind="null"))
        block_dim = int(evaluate(spec.block_dim, env))
        if not 1 <= block_dim <= MAX_BLOCK_DIM:
            raise ExprError(f"block_dim {spec.block_dim!r} = {block_dim}: a launch takes 1 to {MAX_BLOCK_DIM} blocks")
    except ExprError as e:
        bound.problem = f"launch spec: {e}"
        return bound
    if n_out < len(expected):
        bound.notes.append(f"the reference returns {len(expected)} outputs; the launch spec passes {n_out}")
    for name, arr in inputs.items():   # inputs come back after the run: the mutation check
        outputs.setdefault(name, OutputSpec(shape=tuple(arr.shape), dtype=str(arr.dtype)))
    bound.case = Case(inputs=inputs, outputs=outputs, kernel=spec.kernel, block_dim=block_dim, args=args)
    bound.inputs = inputs
    return bound
