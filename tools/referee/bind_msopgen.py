"""Bind a task case onto an msopgen operator (the OpDef the build read: `BuildResult.op`).

Inputs: each OpDef input takes the task tensor of the same name (forward argument, init argument
or model parameter, compared without case and separators), else the next unclaimed forward tensor,
then init tensor, then parameter, in order; a `Scalar()` input, or a required one no tensor is left
for, may take a number. A DYNAMIC (tensor-list) input takes a list as members `x[0]`, `x[1]`, ...
(bind_lists). Attributes: by name among the non-tensor values, else
positionally. Every positional choice that had alternatives is written down in `notes`.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from kernelwright.tools.dtypes import KERNEL_DTYPES, name_of, numpy_dtype
from kernelwright.tools.opspec import OpParam, OpSpec
from kernelwright.tools.referee.bind_lists import list_members, output_keys, param_dtypes
from kernelwright.tools.referee.binding import Bound, TaskValue, abbreviates, name_matches
from kernelwright.tools.tensor_lists import is_dynamic
from kernelwright.tools.toolchain import Case, OutputSpec

class AttrValueError(ValueError):
    """A task value that is not a value of the OpDef attribute's type (a list for an `int`, a string for a
    `float`): the answer and the task disagree, which is a verdict, not a crash."""


def _scalar_attr(kind: str, v: Any) -> Any:
    if isinstance(v, (list, tuple)) and len(v) == 1:
        v = v[0]                                    # a one-element list for a scalar attribute
    if kind == "bool":
        if isinstance(v, (bool, int, np.bool_, np.integer)):
            return bool(v)
        if isinstance(v, str) and v.lower() in ("true", "false"):
            return v.lower() == "true"
        raise AttrValueError(f"{v!r} is not a bool")
    if kind in ("str", "string"):
        if isinstance(v, (str, int, float, bool)):
            return str(v)
        raise AttrValueError(f"{v!r} is not a string")
    if not isinstance(v, (int, float, np.number, np.bool_)):
        raise AttrValueError(f"{v!r} is not a number")
    if kind == "float":
        return float(v)
    if isinstance(v, (float, np.floating)) and not (np.isfinite(v) and float(v).is_integer()):
        raise AttrValueError(f"{v!r} is not a whole number")
    return int(v)


def attr_value(kind: str, v: Any) -> Any:
    """The value of an attribute of msopgen type `kind` (int, float, bool, string, list_int,
    list_list_int, ...); AttrValueError when `v` is none of it. Unknown types pass `v` through."""
    kind = kind.lower().replace("_", "")
    base = kind.removeprefix("list")
    if kind.startswith("list"):
        items = list(v) if isinstance(v, (list, tuple)) else [v]
        return [attr_value(base, x) for x in items]
    if base in ("int", "float", "bool", "str", "string"):
        return _scalar_attr(base, v)
    return v


def _variant(op: OpSpec, dtypes: dict[str, str], out_dtypes: dict[str, str] | None = None) -> int | None:
    """The OpDef dtype column that the given input dtypes select (as the sim picks it); when several
    columns share the inputs (a Cast-like op), the one whose outputs have the reference's dtypes."""
    columns = max((len(p.dtypes) for p in op.inputs + op.outputs), default=0)

    def fits(params: list[OpParam], want: dict[str, str], col: int) -> bool:
        return all(_at(p, col) == want[p.name] for p in params if p.name in want and p.dtypes)
    found = [col for col in range(columns) if fits(op.inputs, dtypes, col)]
    both = [col for col in found if out_dtypes and fits(op.outputs, out_dtypes, col)]
    return (both or found or [None])[0]


def _expected_dtypes(op: OpSpec, expected: list) -> dict[str, str]:
    keys = output_keys(op, len(expected)) or []
    return {k: r.dtype for k, r in zip(keys, expected) if "[" not in k and getattr(r, "dtype", None)}


def _at(p: OpParam, col: int) -> str:
    """The dtype of column `col` (an OpDef that declares none: float32, as the sim takes it)."""
    return p.dtypes[min(col, len(p.dtypes) - 1)] if p.dtypes else "float32"


def _kernel_dtype(name: str) -> str:
    """A declared dtype an array can carry (float32 for one outside the table, e.g. a quantised type);
    complex64 is carried as its float pairs (NPUKernelBench's AbsMath and Muls allocate complex64 outputs)."""
    return name if name in KERNEL_DTYPES or name == "complex64" else "float32"


def _pick(pool: list[TaskValue], claimed: set[int], wanted: str, kinds: tuple[str, ...],
          short: bool = False) -> tuple[TaskValue | None, str]:
    """The free value named `wanted`, else (with `short`) one whose name abbreviates it, else the first free one."""
    free = [v for v in pool if id(v) not in claimed and v.value.kind in kinds]
    for v in free:
        if name_matches(v, wanted):
            return v, "name"
    for v in free if short else []:
        if abbreviates(v, wanted):
            return v, "abbreviation"
    return (free[0], "position") if free else (None, "")


def bind_msopgen(op: OpSpec, values: list[TaskValue], expected: list, *, mutated: set[int] = frozenset(),
                 supported: set[str] | None = None) -> Bound:
    """`expected`: the outputs the kernel must produce; `mutated`: forward arguments the reference modifies."""
    bound = Bound()
    claimed: set[int] = set()
    inputs: dict[str, np.ndarray] = {}
    scalars: dict[str, tuple[np.ndarray, TaskValue]] = {}
    # name matches first, over every OpDef input, so an earlier positional pick cannot steal a named value
    by_name = {}
    for p in op.inputs:
        for v in values:
            if id(v) not in claimed and name_matches(v, p.name) and v.value.kind in ("tensor", "tensor_list", "none", "scalar"):
                by_name[p.name] = v
                claimed.add(id(v))
                break
    for p in op.inputs:
        v, how = (by_name[p.name], "name") if p.name in by_name else \
            _pick(values, claimed, p.name, ("tensor", "tensor_list", "scalar") if p.scalar else
                  ("tensor", "tensor_list"))
        if v is None and p.param_type == "required":   # a number the kernel takes as a 1-element tensor
            v, how = _pick(values, claimed, p.name, ("scalar",))
            how = "position" if v is not None else how
        if v is None or v.value.kind == "none":
            if p.param_type == "required":
                bound.problem = (f"OpDef input '{p.name}' is required and the task has no tensor left for it "
                                 f"(task values: {', '.join(x.label for x in values)})")
                return bound
            bound.notes.append(f"optional input '{p.name}' left empty")
            continue
        claimed.add(id(v))
        if how == "position":
            bound.notes.append(f"OpDef input '{p.name}' <- {v.label} (by position: no task value is named "
                               f"'{p.name}')")
        if is_dynamic(p) or v.value.kind == "tensor_list":
            if not is_dynamic(p):
                bound.problem = (f"OpDef input '{p.name}' is one tensor ({p.param_type}) and {v.label} is a list "
                                 f"of {len(v.value.items)} tensors (hint: declare it .ParamType(DYNAMIC))")
                return bound
            got, notes, bound.problem = list_members(p, v)
            if bound.problem:
                return bound
            inputs.update(got)
            bound.notes += notes
            if v.origin == "input" and v.index in mutated:
                bound.inplace.update({k: v.index for k in got})
            continue
        declared = p.dtypes
        arr = np.asarray(v.value.value) if v.value.kind == "scalar" else v.value.array
        if arr.dtype.kind not in "biufc" and name_of(arr) != "bfloat16":
            bound.problem = f"OpDef input '{p.name}' <- {v.label} = {v.value.value!r}, which is not a number or tensor"
            return bound
        real = arr.dtype.kind != "c"
        # a number (or a Scalar()/ScalarList() input's values, which aclnn converts to the declared dtype) the
        # binding passes as a small tensor: typed once the variant is known
        if real and (v.value.kind == "scalar" or (p.scalar and name_of(arr) not in declared) or
                     (arr.size <= 1 and declared and name_of(arr) not in declared)):
            scalars[p.name] = (arr, v)
        else:
            inputs[p.name] = arr
        if v.origin == "input" and v.index in mutated:
            bound.inplace[p.name] = v.index
    col = _variant(op, param_dtypes(op, inputs))
    for p in op.inputs:
        if p.name in scalars:
            arr, v = scalars[p.name]
            dtype = _kernel_dtype(_at(p, col or 0))
            inputs[p.name] = arr.reshape(-1 if arr.ndim else 1).astype(numpy_dtype(dtype))
            shown = arr.reshape(-1)[0] if arr.size == 1 else arr.reshape(-1).tolist()
            bound.notes.append(f"OpDef input '{p.name}' <- {v.label} = {shown!r} as a {arr.size}-element {dtype} "
                               "tensor (as the binding passes a scalar)")
    bad = sorted({name_of(a) for a in inputs.values()} - supported) if supported is not None else []
    if bad:
        bound.problem, bound.unsupported = f"the backend has no {', '.join(bad)} support", True
        return bound
    attrs: dict[str, Any] = {}
    for a in op.attrs:
        v, how = _pick(values, claimed, a.name, ("scalar",), short=True)
        raw = v.value.value if v is not None else None
        if v is None and not a.type.lower().startswith("list"):
            # a 1-element tensor for a number: pybind converts it as it binds a `double`/`int64_t` parameter
            # (NPUKernelBench's Gemm passes alpha = torch.rand(1) to an attribute)
            ones = [x for x in values if x.value.kind == "tensor" and x.value.array is not None and x.value.array.size == 1]
            v, how = _pick(ones, claimed, a.name, ("tensor",))
            raw = v.value.array.reshape(-1)[0].item() if v is not None else None
            if v is not None:
                bound.notes.append(f"attribute '{a.name}' <- {v.label} = {raw!r} (a 1-element tensor, as pybind converts it)")
        if v is None:
            continue
        claimed.add(id(v))
        try:
            attrs[a.name] = attr_value(a.type, raw)
        except (TypeError, ValueError):   # e.g. a tuple (stride=(2, 2, 2)) for an int attribute
            bound.problem = (f"attribute '{a.name}' <- {v.label} = {v.value.value!r}, which is not a value of "
                             f"the OpDef's attribute type {a.type}")
            return bound
        if how in ("position", "abbreviation"):
            bound.notes.append(f"attribute '{a.name}' <- {v.label} = {raw!r} (by {how})")
    unused = [v.label for v in values if id(v) not in claimed and v.origin != "param" and v.value.kind not in ("none",)]
    if unused:
        bound.notes.append(f"task values not passed to the kernel: {', '.join(unused)}")
    case = Case(inputs=inputs, attrs=attrs)
    col = _variant(op, param_dtypes(op, inputs), _expected_dtypes(op, expected))
    keys = output_keys(op, len(expected))
    if keys is not None and col is not None:
        params = {p.name: p for p in op.outputs}
        for ref, key in zip(expected, keys):
            p = params[key.split("[")[0]]
            if p.dtypes and key not in inputs:
                dt = _kernel_dtype(_at(p, col))
                case.outputs[key] = OutputSpec(shape=tuple(ref.shape or ()), dtype=dt)
    for name, arr in inputs.items():     # read every input back after the run: the mutation check
        case.outputs.setdefault(name, OutputSpec(shape=tuple(arr.shape), dtype=str(arr.dtype)))
    bound.case, bound.inputs = case, inputs
    return bound
