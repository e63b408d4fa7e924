"""The primitive table (data/primitives.json): each kernel primitive's arguments, keywords, summary
and lowering. The kernel parser binds calls through it, so the usage a finding quotes is the
table's, and the writer's reference can be generated from the same data."""
from __future__ import annotations

import ast
import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from kernelwright.tools.dsl.errors import DslError


@dataclass(frozen=True)
class Arg:
    name: str
    kind: str
    required: bool = True
    default: Any = None
    choices: tuple[str, ...] = ()


@dataclass(frozen=True)
class Prim:
    name: str
    kind: str                       # declaration | statement | scalar
    form: str
    args: tuple[Arg, ...]
    keywords: tuple[Arg, ...] = ()
    summary: str = ""
    lowering: str = ""
    dtypes: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def usage(self) -> str:
        return self.form


@lru_cache(maxsize=1)
def prims() -> dict[str, Prim]:
    doc = json.loads((Path(__file__).parent / "data" / "primitives.json").read_text())
    out = {}
    for name, spec in doc["primitives"].items():
        args = tuple(Arg(a["name"], a["kind"]) for a in spec.get("args", []))
        kws = tuple(Arg(k["name"], k["kind"], k.get("required", False), k.get("default"), tuple(k.get("choices", ())))
                    for k in spec.get("keywords", []))
        out[name] = Prim(name, spec["kind"], spec["form"], args, kws, spec.get("summary", ""), spec.get("lowering", ""),
                         {k: tuple(v) for k, v in spec.get("dtypes", {}).items()})
    return out


def bind(call: ast.Call, prim: Prim) -> dict[str, ast.AST | None]:
    """The call's arguments by name (absent keywords are None), or a `call.args` finding quoting the
    table's usage."""
    line = call.lineno
    if len(call.args) != len(prim.args):
        raise DslError("call.args", f"A.{prim.name} takes {len(prim.args)} positional argument(s) "
                                    f"({', '.join(a.name for a in prim.args) or 'none'}), got {len(call.args)}", line,
                       hint=f"use: {prim.usage()}", call=f"A.{prim.name}")
    out: dict[str, ast.AST | None] = {a.name: node for a, node in zip(prim.args, call.args)}
    allowed = {k.name: k for k in prim.keywords}
    for kw in call.keywords:
        if kw.arg is None or kw.arg not in allowed:
            raise DslError("call.args", f"A.{prim.name} has no keyword `{kw.arg}`", line,
                           hint=f"use: {prim.usage()}", call=f"A.{prim.name}")
        spec = allowed[kw.arg]
        if spec.choices and not (isinstance(kw.value, ast.Constant) and kw.value.value in spec.choices):
            raise DslError("call.args", f"{kw.arg}= of A.{prim.name} must be one of "
                                        f"{', '.join(repr(c) for c in spec.choices)}", line, hint=f"use: {prim.usage()}")
        if spec.kind == "flag" and not (isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, bool)):
            raise DslError("call.args", f"{kw.arg}= of A.{prim.name} must be the literal True or False", line,
                           hint="the flag is fixed when the kernel is compiled")
        out[kw.arg] = kw.value
    for k in prim.keywords:
        if k.name not in out:
            if k.required:
                raise DslError("call.args", f"A.{prim.name} needs {k.name}=", line, hint=f"use: {prim.usage()}")
            out[k.name] = None
    return out


def flag(node: ast.AST | None, default: bool = False) -> bool:
    return default if node is None else bool(node.value)   # bind() checked it is a literal bool
