"""The operator prototype of a kernel project (inputs, outputs, attributes with their dtypes) and
the CANN build metadata, plus their msopgen JSON form.

Dtypes are kept as NumPy-style names (`float32`, `float16`, `bfloat16`, `int32`, `bool`, ...), so a
referee can use them directly; the msopgen JSON spelling (`float`, `float16`, `bfloat16`, ...) and
the graph-engine spelling (`DT_FLOAT`, ...) are conversions at the edges.
"""
from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, Field

from kernelwright.errors import UserError
from kernelwright.tools.dtypes import BY_GE, BY_NAME

# graph-engine spellings that are not the enumerator's own name
_GE_ALIASES = {"DT_FLOAT32": "float32", "DT_HALF": "float16"}
# msopgen JSON spellings (op_gen's INPUT_OUTPUT_DTYPE_MAP) -> our names; fp32 is written `float` on export.
_JSON_ALIASES = {"float": "float32", "fp32": "float32", "half": "float16", "fp16": "float16", "bf16": "bfloat16",
                 "double": "float64", "fp64": "float64"}
_TO_JSON = {"float32": "float", "float64": "double"}
# OpDef attribute setter <-> msopgen JSON attribute type (op_gen's IR_ATTR_TYPE_MAP).
ATTR_SETTERS = {"Int": "int", "Float": "float", "Bool": "bool", "String": "string", "ListInt": "list_int",
                "ListFloat": "list_float", "ListBool": "list_bool", "ListListInt": "list_list_int"}


class OpSpecError(UserError):
    """An operator prototype we cannot read (bad input)."""


def dtype_name(spelling: str) -> str:
    """Any of the NumPy, msopgen JSON or `ge::DT_*` spellings -> our NumPy-style name."""
    s = spelling.strip().removeprefix("ge::")
    if s in BY_GE:
        return BY_GE[s].name
    if s in _GE_ALIASES:
        return _GE_ALIASES[s]
    s = s.lower()
    s = _JSON_ALIASES.get(s, s)
    if s not in BY_NAME:
        raise OpSpecError(f"unknown dtype {spelling!r} (known: {', '.join(sorted(BY_NAME))})")
    return s


class OpParam(BaseModel):
    """One input or output: its name, whether it is required, and the dtypes/formats it supports,
    column by column (column i of every parameter together is one supported combination)."""

    name: str
    param_type: Literal["required", "optional", "dynamic"] = "required"
    dtypes: list[str] = Field(default_factory=list)     # NumPy-style names
    formats: list[str] = Field(default_factory=list)    # "ND", "NCHW", ... (same length as dtypes)
    scalar: bool = False                 # Scalar()/ScalarList(): a number may be passed as a small tensor
    value_depend: bool = False           # ValueDepend: the tiling function reads the input's data
    shape_depend_on_compute: bool = False  # OutputShapeDependOnCompute: the kernel reports the output's shape


class OpAttr(BaseModel):
    name: str
    type: str = "float"                  # msopgen attribute type: int, float, bool, string, list_int, ...
    param_type: Literal["required", "optional"] = "optional"
    default: Any = None


class OpSpec(BaseModel):
    """The operator prototype: what msopgen's JSON describes and what the `OpDef` registers (a build's
    `BuildResult.op`, with the type it registered)."""

    op_type: str = ""                    # the registered operator type, when a build read it
    inputs: list[OpParam] = Field(default_factory=list)
    outputs: list[OpParam] = Field(default_factory=list)
    attrs: list[OpAttr] = Field(default_factory=list)

    def to_msopgen_json(self, op_type: str) -> str:
        """The msopgen prototype JSON (`msopgen gen -i <op>.json`), in one stable layout."""
        def param(p: OpParam) -> dict[str, Any]:
            return {"name": p.name, "param_type": p.param_type,
                    "format": p.formats or ["ND"] * max(len(p.dtypes), 1),
                    "type": [_TO_JSON.get(d, d) for d in p.dtypes]}
        entry: dict[str, Any] = {"op": op_type, "language": "cpp",
                                 "input_desc": [param(p) for p in self.inputs],
                                 "output_desc": [param(p) for p in self.outputs]}
        if self.attrs:
            entry["attr"] = [{"name": a.name, "param_type": a.param_type, "type": a.type}
                             | ({"default_value": a.default} if a.default is not None else {}) for a in self.attrs]
        return json.dumps([entry], indent=4) + "\n"

    @classmethod
    def from_msopgen_json(cls, text: str, where: str) -> tuple[str, "OpSpec"]:
        """Parse msopgen's prototype JSON (a list with one op, or one op object) -> (op type, spec)."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise OpSpecError(f"{where}: not valid JSON ({e.msg} at line {e.lineno} column {e.colno})") from None
        ops = data if isinstance(data, list) else [data]
        if len(ops) != 1 or not isinstance(ops[0], dict) or not isinstance(ops[0].get("op"), str):
            raise OpSpecError(f"{where}: expected a list holding one operator object with an \"op\" name "
                              f"(found {type(data).__name__} of {len(ops)})")
        op = ops[0]
        try:
            spec = cls(inputs=[_param(p, where) for p in op.get("input_desc") or []],
                       outputs=[_param(p, where) for p in op.get("output_desc") or []],
                       attrs=[_attr(a, where) for a in op.get("attr") or []])
        except (TypeError, AttributeError, KeyError) as e:
            raise OpSpecError(f"{where}: malformed input_desc/output_desc/attr entry ({e})") from None
        return op["op"], spec


def _param(p: dict[str, Any], where: str) -> OpParam:
    types = p.get("type") or []
    types = [types] if isinstance(types, str) else list(types)
    formats = p.get("format") or []
    formats = [formats] if isinstance(formats, str) else list(formats)
    if formats and types and len(formats) != len(types):   # msopgen widens a single entry to the other's length
        if len(formats) == 1:
            formats = formats * len(types)
        elif len(types) == 1:
            types = types * len(formats)
        else:
            raise OpSpecError(f"{where}: parameter {p.get('name')!r} has {len(types)} types but {len(formats)} formats")
    param_type = str(p.get("param_type", "required")).lower()
    if param_type not in ("required", "optional", "dynamic"):
        raise OpSpecError(f"{where}: parameter {p.get('name')!r} has param_type {param_type!r} "
                          "(expected required, optional or dynamic)")
    return OpParam(name=p["name"], param_type=param_type, dtypes=[dtype_name(t) for t in types],
                   formats=[str(f) for f in formats])


def _attr(a: dict[str, Any], where: str) -> OpAttr:
    t = a.get("type", "float")
    t = t[0] if isinstance(t, list) and len(t) == 1 else t   # MultiKernelBench writes ["float"]
    if not isinstance(t, str):
        raise OpSpecError(f"{where}: attribute {a.get('name')!r} has type {t!r} (expected one of "
                          f"{', '.join(ATTR_SETTERS.values())})")
    param_type = str(a.get("param_type", "optional")).lower()
    if param_type not in ("required", "optional"):
        raise OpSpecError(f"{where}: attribute {a.get('name')!r} has param_type {param_type!r}")
    return OpAttr(name=a["name"], type=t, param_type=param_type, default=a.get("default_value"))


class CannBuild(BaseModel):
    """How CANN builds the project: the compute units an msopgen operator is compiled for
    (`ASCEND_COMPUTE_UNIT`, the OpDef's `AddConfig`), the bisheng arch of a kernel-launch build,
    and the names of the Python-facing pieces."""

    compute_units: list[str] = Field(default_factory=list)  # e.g. ["ascend910b", "ascend910_93"]
    npu_arch: str | None = None          # kernel-launch builds: bisheng --npu-arch, e.g. "dav-2201"
    vendor: str = "customize"            # msopgen vendor_name
    module_name: str | None = None       # Python extension module of the binding (e.g. "custom_ops_lib")
    model_entry: str | None = None       # "<glue path>::<class>" of the ModelNew entry
