"""Read the operator prototype from an op_host `OpDef` class (`this->Input("x").ParamType(REQUIRED)
.DataType({ge::DT_FLOAT, ...}).Format({...})`, `this->Attr("a").AttrType(OPTIONAL).Float(1.0)`),
for formats that need the msopgen JSON when the project has none. A static reading: dtype lists
held in variables cannot be resolved and come back empty."""
from __future__ import annotations

import ast
import re
from typing import Any

from kernelwright.tools.opspec import ATTR_SETTERS, OpAttr, OpParam, OpSpec, OpSpecError, dtype_name

_CLASS = re.compile(r"\bclass\s+(\w+)\s*:\s*public\s+(?:ops\s*::\s*)?OpDef\b")
_STMT = re.compile(r"this\s*->\s*(Input|Output|Attr)\s*\(\s*\"([^\"]+)\"\s*\)([^;]*);", re.S)
_CALL = re.compile(r"\.\s*(\w+)\s*\(((?:[^()]|\([^()]*\))*)\)", re.S)


def read_opdef(host: str) -> tuple[str, OpSpec] | None:
    """(op type, prototype) of the first OpDef class in a host source, or None if it has none."""
    m = _CLASS.search(host)
    if not m:
        return None
    body = host[m.end():]
    nxt = _CLASS.search(body)
    body = body[:nxt.start()] if nxt else body
    spec = OpSpec()
    for kind, name, chain in _STMT.findall(body):
        calls = {c: a for c, a in _CALL.findall(chain)}
        if kind == "Attr":
            spec.attrs.append(_attr(name, calls))
            continue
        param_type = _word(calls.get("ParamType", "REQUIRED")).lower()
        dtypes = re.findall(r"\bDT_\w+", calls.get("DataType", calls.get("DataTypeList", "")))
        formats = [f.removeprefix("FORMAT_") for f in re.findall(r"\bFORMAT_\w+", calls.get("Format", calls.get("FormatList", "")))]
        try:
            names = [dtype_name(d) for d in dtypes]
        except OpSpecError:
            names = []
        param = OpParam(name=name, param_type=param_type if param_type in ("required", "optional", "dynamic") else "required",
                        dtypes=names, formats=formats if len(formats) == len(names) else ["ND"] * len(names))
        (spec.inputs if kind == "Input" else spec.outputs).append(param)
    return m.group(1), spec


def _word(arg: str) -> str:
    return arg.strip().rsplit("::", 1)[-1]


def _attr(name: str, calls: dict[str, str]) -> OpAttr:
    param_type = "required" if _word(calls.get("AttrType", "OPTIONAL")).upper() == "REQUIRED" else "optional"
    for setter, json_type in ATTR_SETTERS.items():
        if setter in calls:
            return OpAttr(name=name, type=json_type, param_type=param_type, default=_value(calls[setter], json_type))
    return OpAttr(name=name, param_type=param_type)


def _value(arg: str, json_type: str) -> Any:
    """A C++ default argument as a JSON value (`1.0f` -> 1.0, `{1, 2}` -> [1, 2], `true` -> True)."""
    text = arg.strip()
    if not text:
        return None
    text = re.sub(r"(?<=[0-9.])[fFlLuU]+\b", "", text).replace("{", "[").replace("}", "]")
    text = re.sub(r"\btrue\b", "True", re.sub(r"\bfalse\b", "False", text))
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return None
    if json_type == "float" and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    return list(value) if isinstance(value, tuple) else value
