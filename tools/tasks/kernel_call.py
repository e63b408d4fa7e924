"""What an NPUKernelBench task's own `ModelNew` hands the operator (worker side; imports torch).

The benchmark judges a kernel through the task's `ModelNew`, which may prepare values before it calls
the pybind function (`kernel_gen_ops.gelu_grad(dy, x, gelu(x))`, a cast to float16, a chunk). Running it
with a stand-in `kernel_gen_ops` that records the first call, and stops there, gives those values; the
names are the parameters of that function in the task's `validation/pybind.cpp`."""
from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import torch

EXTENSION = "kernel_gen_ops"


class _Called(Exception):
    def __init__(self, fn: str, args: list[Any]):
        super().__init__(fn)
        self.fn, self.args = fn, args


def first_call(model_new: type, init: list[Any], args: list[Any]) -> tuple[str, list[Any]] | None:
    """(function, arguments) of ModelNew(*init)(*args)'s first call into the extension, or None when it
    makes none (or fails before it)."""
    ext = sys.modules.get(EXTENSION)
    if ext is None:
        return None
    saved = ext.__dict__.get("__getattr__")

    def record(name: str):
        if name.startswith("_"):
            raise AttributeError(name)

        def call(*a: Any, **k: Any) -> None:
            raise _Called(name, list(a) + list(k.values()))
        return call
    ext.__getattr__ = record  # type: ignore[attr-defined]
    try:
        with torch.no_grad():
            model_new(*init)(*args)
    except _Called as c:
        return c.fn, c.args
    except Exception:  # noqa: BLE001 - a ModelNew that cannot run on the CPU: the task's own inputs stay
        return None
    finally:
        if saved is None:
            ext.__dict__.pop("__getattr__", None)
        else:
            ext.__getattr__ = saved  # type: ignore[attr-defined]
    return None


def parameter_names(binding: str | None, fn: str) -> list[str]:
    """The parameter names of `fn` in a pybind source (`at::Tensor dy, c10::optional<at::Tensor> w` ->
    ["dy", "w"]), or [] when the source does not define it."""
    if not binding or not Path(binding).is_file():
        return []
    text = Path(binding).read_text(errors="replace")
    m = re.search(rf"\b{re.escape(_cpp_function(text, fn))}\s*\(([^)]*)\)\s*\{{", text)
    if not m:
        return []
    params, depth, cur = [], 0, ""
    for ch in m.group(1):
        depth += 1 if ch in "<(" else -1 if ch in ">)" else 0
        if ch == "," and depth == 0:
            params.append(cur)
            cur = ""
        else:
            cur += ch
    params.append(cur)
    names = [re.findall(r"[A-Za-z_]\w*", p.split("=")[0]) for p in params if p.strip()]
    return [n[-1] for n in names if n]


def _cpp_function(text: str, fn: str) -> str:
    """The C++ function that the module function `fn` calls: `m.def("fn", &custom_pybind_api)` names
    another (NPUKernelBench's GeGluGradV2), else `fn` itself."""
    m = re.search(rf'\.def\(\s*"{re.escape(fn)}"\s*,\s*&?\s*([A-Za-z_][\w:]*)', text)
    return m.group(1).split("::")[-1] if m else fn


def _strip_comments(text: str) -> str:
    return re.sub(r"//[^\n]*|/\*.*?\*/", " ", text, flags=re.S)


def _body(text: str, fn: str) -> str | None:
    m = re.search(rf"\b{re.escape(fn)}\s*\([^)]*\)\s*\{{", text)
    if not m:
        return None
    depth, i = 1, m.end()
    while i < len(text) and depth:
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        i += 1
    return text[m.end():i - 1] if depth == 0 else None


def _names(expr: str) -> list[str] | None:
    """`a, b` -> ["a", "b"], when every item is a plain name."""
    items = [x.strip() for x in expr.split(",") if x.strip()]
    return items if all(re.fullmatch(r"[A-Za-z_]\w*", x) for x in items) else None


def _truth(cond: str, values: dict[str, Any]) -> bool | None:
    """A condition on one of the function's parameters (`flag`, `!flag`, `flag == false`), or None."""
    c = cond.strip()
    m = re.fullmatch(r"(!?)\s*([A-Za-z_]\w*)(?:\s*(==|!=)\s*(true|false))?", c)
    if not m or m.group(2) not in values:
        return None
    v = bool(values[m.group(2)])
    if m.group(3):
        v = (v == (m.group(4) == "true")) if m.group(3) == "==" else (v != (m.group(4) == "true"))
    return not v if m.group(1) else v


def returned_outputs(binding: str | None, fn: str, values: dict[str, Any]) -> tuple[list[str], list[str]] | None:
    """What the pybind function `fn` hands back, for the call's parameter values: (the names of the tensors
    it returns, in order; the arguments of its EXEC_NPU_CMD), or None when the source does not say plainly.

    NPUKernelBench compares `zip(reference outputs, returned outputs)`, so a function that returns only some
    of the operator's outputs (CrossEntropyLoss without `returnZloss`) is judged on those. Read: `return x;`,
    `return {a, b};`, `std::make_tuple(a, b)`, and a `std::vector<at::Tensor>` filled by an initialiser and
    `push_back`/`emplace_back`, each under `if (flag)` / `if (!flag)` / `else` on bool parameters."""
    if not binding or not Path(binding).is_file():
        return None
    text = _strip_comments(Path(binding).read_text(errors="replace"))
    body = _body(text, _cpp_function(text, fn))
    if body is None:
        return None
    cmd = re.search(r"EXEC_NPU_CMD\s*\(\s*\w+\s*,([^;]*)\)\s*;", body)
    exec_args = _names(cmd.group(1)) if cmd else None
    rets = re.findall(r"\breturn\b([^;]*);", body)
    if not exec_args or len(rets) != 1:
        return None
    ret = re.sub(r"^\s*(std::make_tuple\s*\(|std::vector\s*<\s*at::Tensor\s*>\s*|std::tuple\s*<[^>]*>\s*\()", "",
                 rets[0]).strip()
    if ret.startswith("{") or rets[0].strip().startswith(("std::make_tuple", "std::tuple")):
        found = _names(ret.strip("{}() "))
        return (found, exec_args) if found else None
    if not re.fullmatch(r"[A-Za-z_]\w*", ret):
        return None
    decl = re.search(rf"std::vector\s*<\s*at::Tensor\s*>\s*{ret}\s*(?:=\s*)?(\{{[^}}]*\}}|\(\s*\{{[^}}]*\}}\s*\))?\s*;",
                     body)
    if not decl:
        return ([ret], exec_args) if ret in exec_args else None
    out = (_names(decl.group(1).strip("(){} ")) or []) if decl.group(1) else []
    # the statements after the declaration: each push_back counts when every block around it is taken;
    # a block is an `if` on a bool parameter (taken or not), its `else`, a loop (unknown) or a plain scope
    open_blocks: list[tuple[bool | None, bool]] = []   # (taken, is an if)
    closed_if: bool | None = None                      # the if block that just closed, for an `else`
    pending: tuple[bool | None, bool] = (True, False)
    pos, rest = 0, body[decl.end():]
    token = re.compile(r"\bif\s*\(|\belse\b|\bfor\s*\(|\bwhile\s*\(|\{|\}|"
                       rf"\b{ret}\s*\.\s*(?:push_back|emplace_back)\s*\(\s*([A-Za-z_]\w*)\s*\)\s*;")
    while m := token.search(rest, pos):
        t, pos = m.group(0), m.end()
        if t[0] in "ifw" and t.endswith("("):
            depth, j = 1, pos
            while j < len(rest) and depth:
                depth += {"(": 1, ")": -1}.get(rest[j], 0)
                j += 1
            pending = (_truth(rest[pos:j - 1], values), True) if t.startswith("if") else (None, False)
            pos = j
            if not rest[pos:].lstrip().startswith("{"):
                return None       # an unbraced body: not read
        elif t == "else":
            if not rest[pos:].lstrip().startswith("{"):
                return None       # else-if chains and unbraced bodies: not read
            pending = (None if closed_if is None else not closed_if, False)
        elif t == "{":
            open_blocks.append(pending)
            pending = (True, False)
        elif t == "}":
            if open_blocks:
                taken, is_if = open_blocks.pop()
                closed_if = taken if is_if else None
        else:
            if any(taken is None for taken, _ in open_blocks):
                return None       # under a loop or a condition not on a bool parameter
            if all(taken for taken, _ in open_blocks):
                out.append(m.group(1))
    return (out, exec_args) if out else None
