"""Tensor lists in the msopgen binding: a DYNAMIC OpDef parameter `x` takes a task's list of tensors as
the case members `x[0]`, `x[1]`, ... (see tools/tensor_lists.py), and a DYNAMIC output gets one
member per reference output it stands for."""
from __future__ import annotations

from typing import Any

import numpy as np

from kernelwright.tools.dtypes import name_of
from kernelwright.tools.opspec import OpParam, OpSpec
from kernelwright.tools.referee.binding import TaskValue
from kernelwright.tools.tensor_lists import is_dynamic, member, split_member


def list_members(p: OpParam, v: TaskValue) -> tuple[dict[str, np.ndarray], list[str], str | None]:
    """The case members a DYNAMIC input takes from task value `v`: (members, notes, problem)."""
    name = p.name
    if v.value.kind == "tensor":
        return {member(name, 0): v.value.array}, [f"OpDef input '{name}' is a tensor list; {v.label} passed as a "
                                                   "list of one tensor"], None
    if v.value.kind != "tensor_list":
        return {}, [], (f"OpDef input '{name}' is a tensor list (ParamType(DYNAMIC)) and {v.label} is a "
                        f"{v.value.kind}, not a list of tensors")
    arrays = [item.array for item in v.value.items]
    if any(a is None for a in arrays):
        return {}, [], f"{v.label}: the reference run returned no data for some tensors of the list"
    dtypes = sorted({name_of(a) for a in arrays})
    if len(dtypes) > 1:
        return {}, [], (f"OpDef input '{name}' is a tensor list, whose tensors share one dtype per kernel variant; "
                        f"{v.label} mixes {', '.join(dtypes)} (hint: the task should build the list in one dtype)")
    return {member(name, k): a for k, a in enumerate(arrays)}, [], None


def param_dtypes(op: OpSpec, inputs: dict[str, np.ndarray]) -> dict[str, str]:
    """Input dtype per OpDef parameter name (a list by its first member), for choosing the variant."""
    out: dict[str, str] = {}
    for key, arr in inputs.items():
        s = split_member(key)
        name = s[0] if s and any(p.name == s[0] and is_dynamic(p) for p in op.inputs) else key
        out.setdefault(name, name_of(arr))
    return out


def output_keys(op: OpSpec, n_expected: int) -> list[str] | None:
    """The kernel output names the reference's `n_expected` outputs map onto, in order: a DYNAMIC output
    stands for as many as are left over (shared evenly when there are several); None when the counts
    cannot agree."""
    outs = op.outputs
    dynamic = [p for p in outs if is_dynamic(p)]
    fixed = len(outs) - len(dynamic)
    if not dynamic:
        return [p.name for p in outs] if n_expected == len(outs) else None
    left = n_expected - fixed
    if left < 0 or left % len(dynamic):
        return None
    each = left // len(dynamic)
    keys: list[str] = []
    for p in outs:
        keys += [member(p.name, k) for k in range(each)] if is_dynamic(p) else [p.name]
    return keys


def _sorted_members(keys: Any, name: str) -> list[str]:
    """The members of list `name` among `keys`, by index (x[2] before x[10])."""
    found = [(s[1], k) for k in keys if (s := split_member(k)) is not None and s[0] == name]
    return [k for _, k in sorted(found)]


def output_order(op: OpSpec, got: dict[str, Any]) -> list[str]:
    """Kernel output names in OpDef order, each DYNAMIC output expanded into the members the run returned."""
    order: list[str] = []
    for p in op.outputs:
        if is_dynamic(p):
            order += _sorted_members(got, p.name)
        else:
            order.append(p.name)
    return order


def post_array(post: dict[int, Any], index: int, name: str) -> np.ndarray | None:
    """The final state of the task argument `index` the kernel input `name` (maybe a list member) came from."""
    v = post.get(index)
    if v is None:
        return None
    s = split_member(name)
    if v.kind == "tensor_list" and s is not None:
        return v.items[s[1]].array if s[1] < len(v.items) else None
    return v.array


def joined_lists(op: OpSpec, got: dict[str, np.ndarray]) -> tuple[dict[str, np.ndarray], dict[str, list[str]]]:
    """Each tensor list the run returned (a DYNAMIC output, or a DYNAMIC input read back) flattened and
    concatenated as `x[*]`, as references often return `torch.cat([t.flatten() for t in xs])`; and the
    members each joined name stands for."""
    flat: dict[str, np.ndarray] = {}
    members: dict[str, list[str]] = {}
    for p in op.inputs + op.outputs:
        if not is_dynamic(p) or f"{p.name}[*]" in flat:
            continue
        keys = _sorted_members(got, p.name)
        if keys:
            flat[f"{p.name}[*]"] = np.concatenate([np.asarray(got[k]).reshape(-1) for k in keys])
            members[f"{p.name}[*]"] = keys
    return flat, members
