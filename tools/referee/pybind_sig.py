"""What an answer's pybind source exports: each Python function name (`m.def("gemm_custom", &gemm_impl)`)
with the C++ parameter names of the function it binds, and the operator its `EXEC_NPU_CMD` launches with
which arguments. MultiKernelBench's `ModelNew` calls these functions; a stand-in extension module
(tasks/model_new.py) takes its signatures from here. Text only: comments are stripped first, and what
cannot be read is left out rather than guessed."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from kernelwright.tools.cpp_split import split_top_level

_DEF = re.compile(r"\.\s*def\s*\(\s*\"([A-Za-z_]\w*)\"\s*,\s*&?\s*([A-Za-z_][\w:]*)")
_EXEC = re.compile(r"\bEXEC_NPU_CMD\s*\(\s*(\w+)\s*,")


@dataclass
class BoundFunction:
    name: str                     # the Python name ModelNew calls
    cpp: str                      # the C++ function it binds
    params: list[str]             # that function's parameter names, in order
    exec_op: str | None = None    # aclnnXxx of its EXEC_NPU_CMD, when it has one
    exec_args: list[str] = field(default_factory=list)   # the EXEC_NPU_CMD arguments after the op
    prelude: str = ""             # the body before its EXEC_NPU_CMD (where the outputs are allocated)
    returns: list[str] | None = None   # the names it returns (`return y;`, `return {p, q};`); None: not plain
    # the file's own helpers the prelude may call (`conv_out(...)`: name -> [parameter names, body]) and its
    # file-scope constants (`constexpr int64_t kStride = 2;`), for the worker's evaluator (tasks/pybind_alloc.py)
    helpers: dict[str, list] = field(default_factory=dict)
    constants: str = ""


def _balanced(code: str, open_at: int) -> tuple[str, int] | None:
    """The text inside the parenthesis at `open_at`, and the index after its close."""
    depth = 0
    for i in range(open_at, len(code)):
        if code[i] == "(":
            depth += 1
        elif code[i] == ")":
            depth -= 1
            if depth == 0:
                return code[open_at + 1:i], i + 1
    return None


def _param_name(decl: str) -> str | None:
    """`const at::Tensor& x` -> x; None for an unnamed parameter (`int`)."""
    decl = decl.split("=", 1)[0].strip()
    m = re.search(r"([A-Za-z_]\w*)\s*$", decl)
    named = m is not None and (len(decl.split()) > 1 or decl[:m.start()].rstrip().endswith(("&", "*")))
    return m.group(1) if named else None


def _definition(code: str, cpp: str) -> tuple[list[str], str] | None:
    """(parameter names, body) of the C++ function `cpp` defined in `code`."""
    short = cpp.split("::")[-1]
    for m in re.finditer(rf"\b{re.escape(short)}\s*\(", code):
        inside = _balanced(code, m.end() - 1)
        if inside is None:
            continue
        params, after = inside
        brace = re.match(r"\s*(?:const\s*)?(?:noexcept\s*)?\{", code[after:])
        if not brace:
            continue                                  # a call or a declaration, not the definition
        names = [_param_name(p) for p in split_top_level(params) if p != "void"]
        if any(n is None for n in names):
            return None
        start, depth = after + brace.end() - 1, 0
        for i in range(start, len(code)):
            depth += {"{": 1, "}": -1}.get(code[i], 0)
            if depth == 0:
                return names, code[start + 1:i]       # type: ignore[return-value]
        return names, code[start + 1:]                # type: ignore[return-value]
    return None


def _returned(rest: str) -> list[str] | None:
    """The names the single `return` after the EXEC_NPU_CMD hands back, when they are plain names."""
    rets = re.findall(r"\breturn\b([^;]*);", rest)
    if len(rets) != 1:
        return None
    ret = re.sub(r"^\s*(?:std::make_tuple|std::tuple\s*<[^;]*?>|std::vector\s*<\s*at::Tensor\s*>)\s*", "", rets[0]).strip()
    names = [x.strip() for x in ret.strip("{}() ").split(",") if x.strip()]
    return names if names and all(re.fullmatch(r"[A-Za-z_]\w*", n) for n in names) else None


_CONSTANT = re.compile(r"(?:^|[;\n])\s*((?:static\s+)?(?:constexpr|const)\s+[\w:]+\s+[A-Za-z_]\w*\s*=\s*[^;{}]+;)")
_FUNCTION = re.compile(r"\b([A-Za-z_]\w*)\s*\([^;{}()]*(?:\([^;{}()]*\)[^;{}()]*)*\)\s*(?:const\s*)?(?:noexcept\s*)?\{")


def _helpers(code: str, bound: set[str]) -> dict[str, list]:
    """Functions the file defines that end in a `return` and launch nothing: name -> [params, body]."""
    found: dict[str, list] = {}
    for name in dict.fromkeys(_FUNCTION.findall(code)):
        if name in bound or name in ("if", "for", "while", "switch", "catch", "PYBIND11_MODULE", "TORCH_LIBRARY_IMPL"):
            continue
        got = _definition(code, name)
        if got and "return" in got[1] and "EXEC_NPU_CMD" not in got[1]:
            found[name] = [got[0], got[1]]
    return found


def bound_functions(src: str) -> dict[str, BoundFunction]:
    """Every `m.def` of `src` whose C++ function is defined there, by Python name."""
    code = re.sub(r"//[^\n]*", " ", re.sub(r"/\*.*?\*/", " ", src, flags=re.S))   # comments; names are strings
    found: dict[str, BoundFunction] = {}
    constants = "\n".join(_CONSTANT.findall(code))   # anywhere: file scope, an anonymous namespace, a helper
    helpers = _helpers(code, {cpp.split("::")[-1] for _, cpp in _DEF.findall(code)})
    for name, cpp in _DEF.findall(code):
        got = _definition(code, cpp)
        if got is None:
            continue
        params, body = got
        fn = BoundFunction(name=name, cpp=cpp, params=params, helpers=helpers, constants=constants)
        ex = _EXEC.search(body)
        if ex:
            inside = _balanced(body, body.index("(", ex.start()))
            if inside is not None:
                args = split_top_level(inside[0])
                fn.exec_op, fn.exec_args = args[0], args[1:]
                fn.prelude, fn.returns = body[:ex.start()], _returned(body[ex.end():])
        found[name] = fn
    return found
