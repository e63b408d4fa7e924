"""Tensor lists in a case: a DYNAMIC (tensor-list) input or output `x` of an msopgen op travels as the
members `x[0]`, `x[1]`, ... of `Case.inputs` / `Case.outputs` (the sim then passes the kernel one GM
descriptor per list; layout in tools/sim/include/kw/list_tensor.h)."""
from __future__ import annotations

import re
from typing import Iterable

from kernelwright.tools.opspec import OpParam

_MEMBER = re.compile(r"^(?P<name>.+)\[(?P<k>\d+)\]$")


def member(name: str, k: int) -> str:
    """The case key of the k-th tensor of list `name`."""
    return f"{name}[{k}]"


def split_member(key: str) -> tuple[str, int] | None:
    """`x[2]` -> ("x", 2); None for a plain name."""
    m = _MEMBER.match(key)
    return (m.group("name"), int(m.group("k"))) if m else None


def members(keys: Iterable[str], name: str) -> list[str]:
    """The case keys of list `name`, in order; a gap (x[0], x[2]) is an error the caller reports."""
    found = sorted(k for key in keys if (s := split_member(key)) and s[0] == name for k in [s[1]])
    return [member(name, k) for k in found]


def gaps(keys: Iterable[str], name: str) -> list[int]:
    """Indices missing below the highest member of list `name` (x[0], x[2] -> [1])."""
    found = {s[1] for key in keys if (s := split_member(key)) and s[0] == name}
    return [k for k in range(max(found) + 1) if k not in found] if found else []


def is_dynamic(param: OpParam) -> bool:
    return param.param_type == "dynamic"


def instance_keys(param: OpParam, keys: Iterable[str]) -> list[str]:
    """The case keys one OpDef parameter takes: its members when DYNAMIC, else its own name when the
    case has it (an absent OPTIONAL parameter has none)."""
    keys = list(keys)
    if is_dynamic(param):
        return members(keys, param.name)
    return [param.name] if param.name in keys else []

