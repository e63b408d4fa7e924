"""Evaluate what a pybind function does before its EXEC_NPU_CMD (worker side; imports torch): its local
sizes and the output tensors it allocates (`at::Tensor y = at::empty({x.size(0), w.size(0)}, x.options());`),
so the stand-in extension hands the operator outputs of the shapes and dtypes the answer's binding makes.

Only plain statements are read: declarations and assignments of names (`const int64_t N = x.size(0);`,
`auto y = at::empty_like(x);`, several declarators, `shape[1] = N;`). Checks (`TORCH_CHECK`), control
blocks and anything that does not translate are skipped; a name whose value could not be computed is
simply unknown, and the caller decides what an unknown output means.
"""
from __future__ import annotations

import ast
import re
from typing import Any

import torch

from kernelwright.tools.cpp_split import split_top_level

_DTYPES = {"kFloat": torch.float32, "kFloat32": torch.float32, "Float": torch.float32, "kHalf": torch.float16,
           "kFloat16": torch.float16, "Half": torch.float16, "kBFloat16": torch.bfloat16, "BFloat16": torch.bfloat16,
           "kDouble": torch.float64, "Double": torch.float64, "kInt": torch.int32, "kInt32": torch.int32,
           "Int": torch.int32, "kLong": torch.int64, "kInt64": torch.int64, "Long": torch.int64, "kBool": torch.bool,
           "Bool": torch.bool, "kChar": torch.int8, "kInt8": torch.int8, "Char": torch.int8, "kByte": torch.uint8,
           "kUInt8": torch.uint8, "Byte": torch.uint8, "kShort": torch.int16, "kInt16": torch.int16}
_CASTS = r"(?:std::)?(?:u?int(?:8|16|32|64)_t|int|long|unsigned|size_t|float|double|bool)"


class _Sizes(list):
    def vec(self) -> "_Sizes":
        return _Sizes(self)

    def size(self) -> int:
        return len(self)


class _Options:
    def __init__(self, dtype: torch.dtype = torch.float32):
        self._dtype = dtype

    def dtype(self, d: Any) -> "_Options":
        return _Options(_dtype_of(d))

    def device(self, *_: Any) -> "_Options":
        return self

    layout = requires_grad = memory_format = device


def _dtype_of(d: Any) -> torch.dtype:
    if isinstance(d, torch.dtype):
        return d
    if isinstance(d, _Options):
        return d._dtype
    raise TypeError(f"not a dtype: {d!r}")


class _Tensor:
    """A torch tensor seen through the at::Tensor methods a binding uses for sizes."""

    def __init__(self, t: torch.Tensor):
        self.t = t

    def size(self, i: int | None = None) -> Any:
        return _Sizes(self.t.shape) if i is None else int(self.t.shape[i])

    def sizes(self) -> _Sizes:
        return _Sizes(self.t.shape)

    def dim(self) -> int:
        return self.t.dim()

    def numel(self) -> int:
        return self.t.numel()

    def options(self) -> _Options:
        return _Options(self.t.dtype)

    def scalar_type(self) -> torch.dtype:
        return self.t.dtype

    def dtype(self) -> torch.dtype:
        return self.t.dtype

    def defined(self) -> bool:
        return True

    def has_value(self) -> bool:
        return True

    def value(self) -> "_Tensor":
        return self

    ndimension = dim

    def __getattr__(self, name: str) -> Any:
        """Any other tensor method (expand, reshape, unsqueeze, to, contiguous, ...) as torch has it."""
        return _wrapped(getattr(self.t, name))

    def __getitem__(self, index: Any) -> "_Tensor":
        return _Tensor(self.t[_unwrap(index)])


class _Empty:
    """An absent optional argument (ModelNew passed None): `has_value()` and `defined()` are false."""

    def has_value(self) -> bool:
        return False

    defined = has_value


def _unwrap(v: Any) -> Any:
    if isinstance(v, _Empty):
        return None
    if isinstance(v, _Tensor):
        return v.t
    if isinstance(v, _Options):
        return v._dtype
    if isinstance(v, (list, tuple)):
        return type(v)(_unwrap(x) for x in v) if not isinstance(v, _Sizes) else list(v)
    return v


def _wrapped(attr: Any) -> Any:
    if not callable(attr):
        return attr

    def call(*args: Any, **kwargs: Any) -> Any:
        r = attr(*[_unwrap(a) for a in args], **{k: _unwrap(v) for k, v in kwargs.items()})
        if isinstance(r, torch.Tensor):
            return _Tensor(r)
        if isinstance(r, torch.Size):
            return _Sizes(r)
        if isinstance(r, (list, tuple)) and r and all(isinstance(x, torch.Tensor) for x in r):
            return [_Tensor(x) for x in r]
        return r
    return call


def _shape(sizes: Any) -> list[int]:
    if isinstance(sizes, (int,)):
        return [sizes]
    return [int(s) for s in sizes]


def _alloc(fill: float | None):
    def make(sizes: Any, *rest: Any) -> _Tensor:
        opts = next((r for r in rest if isinstance(r, (_Options, torch.dtype))), _Options())
        return _Tensor(torch.zeros(_shape(sizes), dtype=_dtype_of(opts)))
    return make


def _alloc_like(like: Any, *rest: Any) -> _Tensor:
    src = like.t if isinstance(like, _Tensor) else like
    opts = next((r for r in rest if isinstance(r, (_Options, torch.dtype))), None)
    return _Tensor(torch.zeros(src.shape, dtype=_dtype_of(opts) if opts is not None else src.dtype))


class _Namespace:
    """`at::` / `torch::` / `c10::` as the translated expressions see them (`at.empty(...)`)."""

    def __init__(self):
        self.empty = self.zeros = self.ones = _alloc(None)
        self.full = lambda sizes, _value, *rest: _alloc(None)(sizes, *rest)
        self.empty_like = self.zeros_like = self.ones_like = _alloc_like
        self.TensorOptions = _Options
        self.IntArrayRef = _Sizes
        self.ScalarType = self
        self.min, self.max = min, max
        self.vector = _Sizes

    def __getattr__(self, name: str) -> Any:
        if name in _DTYPES:
            return _DTYPES[name]
        if name.startswith("_") or not hasattr(torch, name):
            raise AttributeError(name)
        return _wrapped(getattr(torch, name))     # at::broadcast_to, at::cat, ... as torch has them


class _CppDiv(ast.NodeTransformer):
    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.op, ast.Div):
            return ast.Call(func=ast.Name("_div", ast.Load()), args=[node.left, node.right], keywords=[])
        return node


def _div(a: Any, b: Any) -> Any:
    if isinstance(a, int) and isinstance(b, int):
        q = abs(a) // abs(b)
        return q if (a >= 0) == (b >= 0) else -q
    return a / b


_KEYWORDS = re.compile(r"\b(in|is|lambda|from|def|pass|yield|with|as|global|del|import|raise|except|finally|elif|"
                       r"async|await|nonlocal|None|assert|not|and|or|if|else)\b")


def _ident(name: str) -> str:
    """A C++ name that is a Python keyword (`int64_t in`) gets a trailing underscore."""
    return _KEYWORDS.sub(r"\1_", name)


def _python(expr: str) -> str:
    """A C++ expression as Python text (raises ValueError for what does not translate)."""
    e = _ident(re.sub(r"//[^\n]*", " ", expr))
    e = re.sub(rf"static_cast\s*<\s*{_CASTS}\s*>", "", e)
    e = re.sub(rf"\(\s*{_CASTS}\s*\)", "", e)
    e = re.sub(r"(\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)(?:[uU]?[lL]{0,2}|[fF])\b", r"\1", e)
    e = re.sub(r"std::vector\s*<[^<>]*>\s*(?=\{)", "", e)          # std::vector<int64_t>{a, b}: a list
    e = re.sub(r"std::vector\s*<[^<>]*>\s*", "at::vector", e)
    e = e.replace("::", ".").replace("{", "[").replace("}", "]")
    e = e.replace("&&", " and ").replace("||", " or ")
    e = re.sub(r"!(?!=)", " not ", e)
    e = re.sub(r"\btrue\b", "True", re.sub(r"\bfalse\b", "False", e))
    if "->" in e:
        raise ValueError(f"not translated: {expr.strip()[:80]}")
    return _ternaries(e).strip()


def _ternaries(e: str) -> str:
    """`c ? a : b` -> `(a if c else b)`, nested and inside brackets too (`::` is gone by now)."""
    out, i = "", 0
    while i < len(e):          # brackets first, from the inside out
        if e[i] in "([":
            close, depth = i, 0
            for close in range(i, len(e)):
                depth += {"(": 1, "[": 1, ")": -1, "]": -1}.get(e[close], 0)
                if depth == 0:
                    break
            out += e[i] + _ternaries(e[i + 1:close]) + e[close:close + 1]
            i = close + 1
        else:
            out += e[i]
            i += 1
    depth, q = 0, -1
    for j, ch in enumerate(out):
        depth += {"(": 1, "[": 1, ")": -1, "]": -1}.get(ch, 0)
        if ch == "?" and depth == 0:
            q = j
            break
    if q < 0:
        return out
    depth, nested = 0, 0
    for j in range(q + 1, len(out)):
        ch = out[j]
        depth += {"(": 1, "[": 1, ")": -1, "]": -1}.get(ch, 0)
        if depth == 0 and ch == "?":
            nested += 1
        elif depth == 0 and ch == ":":
            if nested == 0:
                return f"(({out[q + 1:j]}) if ({out[:q]}) else ({_ternaries(out[j + 1:])}))"
            nested -= 1
    raise ValueError(f"not translated: {e[:80]}")


def _eval(expr: str, scope: dict[str, Any]) -> Any:
    tree = _CppDiv().visit(ast.parse(_python(expr), mode="eval"))
    return eval(compile(ast.fix_missing_locations(tree), "<pybind>", "eval"), {"__builtins__": {}}, scope)  # noqa: S307


def _statements(prelude: str) -> list[Any]:
    """The top-level statements of the body text: strings, and ("if" | "elif" | "else", condition, block) for
    braced if/else blocks; other braced blocks (loops, try) are dropped whole."""
    out: list[Any] = []
    depth, cur = 0, ""
    text = re.sub(r"/\*.*?\*/", " ", re.sub(r"//[^\n]*", " ", prelude), flags=re.S)
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "{" and depth == 0 and re.search(r"(\)|\belse|\bdo|\btry)\s*$", cur):
            close, d = i, 0
            for close in range(i, len(text)):
                d += {"{": 1, "}": -1}.get(text[close], 0)
                if d == 0:
                    break
            m = re.fullmatch(r"\s*(else\s+if|if)\s*\((.*)\)\s*", cur, re.S)
            if m:
                out.append(("elif" if m.group(1) != "if" else "if", m.group(2), text[i + 1:close]))
            elif re.fullmatch(r"\s*else\s*", cur):
                out.append(("else", "", text[i + 1:close]))
            cur, i = "", close + 1
            continue
        depth += {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}.get(ch, 0)
        if ch == ";" and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
        i += 1
    return [s for s in out if s]


def _branch(kind: str, cond: str, taken: bool | None, scope: dict[str, Any]) -> tuple[bool, bool | None]:
    """(run this block?, whether the if-chain has taken a branch; None: unknown, so later branches are not run)."""
    if kind == "else" or (kind == "elif" and taken is not False):
        return kind == "else" and taken is False, None if taken is None else True
    try:
        hit = bool(_eval(cond, scope))
    except Exception:  # noqa: BLE001 - a condition we cannot follow: neither branch is run
        return False, None
    return hit, hit


_DECL = re.compile(r"^(?:(?:const|constexpr|static|auto|volatile)\s+)*(?:[A-Za-z_][\w:]*(?:\s*<[^=]*>)?[\s&*]+)?"
                   r"(?=[A-Za-z_]\w*\s*(?:=|\(|\[\s*[^\]]*\]\s*=))")


_OWN = ("at", "torch", "c10", "std", "_div", "True", "False")


def _helper(params: list[str], body: str, outer: dict[str, Any]) -> Any:
    """A helper function of the binding's file (`conv_out(in, k, pad, stride, dil)`) as a Python callable:
    its statements, then its last `return` expression."""
    rets = re.findall(r"\breturn\b([^;]*);", body)
    if not rets:
        return None
    before = body[:body.rindex("return")]

    def call(*args: Any) -> Any:
        local = {**outer, **dict(zip(map(_ident, params), args))}
        _run(before, local)
        return _eval(rets[-1], local)
    return call


def evaluate(prelude: str, named: dict[str, Any], helpers: dict[str, list] | None = None,
             constants: str = "") -> dict[str, Any]:
    """The names the prelude defines, evaluated with the call's arguments: torch tensors for tensors it
    allocates, numbers and lists for sizes. Statements that cannot be evaluated leave their names out.
    `helpers` and `constants`: the binding file's own functions and file-scope constants (pybind_sig)."""
    ns = _Namespace()
    scope: dict[str, Any] = {"at": ns, "torch": ns, "c10": ns, "std": ns, "_div": _div, "True": True, "False": False}
    _run(constants, scope)
    for name, (params, body) in (helpers or {}).items():
        fn = _helper(params, body, scope)
        if fn is not None:
            scope[name] = fn
    scope.update({_ident(k): _Tensor(v) if isinstance(v, torch.Tensor) else _Empty() if v is None else v
                  for k, v in named.items()})
    _run(prelude, scope)
    return {k: _unwrap(v) for k, v in scope.items()
            if k not in _OWN and not callable(v) or isinstance(v, _Tensor)}


def _run(prelude: str, scope: dict[str, Any]) -> None:
    taken: bool | None = None
    for stmt in _statements(prelude):
        if isinstance(stmt, tuple):
            kind, cond, block = stmt
            run, taken = _branch(kind, cond, taken if kind != "if" else False, scope)
            if run:
                _run(block, scope)
            continue
        if re.match(r"^(TORCH_CHECK|TORCH_INTERNAL_ASSERT|AT_ASSERT|assert|return|if|for|while|printf|std::cout)\b", stmt):
            continue
        body = _DECL.sub("", stmt, count=1)
        for part in split_top_level(body):
            m = re.fullmatch(r"([A-Za-z_]\w*)\s*(?:\[\s*(.+?)\s*\])?\s*(?:=\s*(.+)|\((.*)\))", part.strip(), re.S)
            if not m:
                continue
            name, index, expr = _ident(m.group(1)), m.group(2), m.group(3) if m.group(3) is not None else m.group(4)
            try:
                value = _eval(expr, scope)
                if index is None:
                    scope[name] = value
                else:
                    scope[name][_eval(index, scope)] = value
            except Exception:  # noqa: BLE001 - what does not evaluate stays unknown
                if index is None:
                    scope.pop(name, None)


UNKNOWN = object()


def value_of(expr: str, scope: dict[str, Any]) -> Any:
    """An EXEC_NPU_CMD argument's value: a name of the scope, else the expression evaluated (`UNKNOWN`
    when it cannot be: a name the prelude set in a block, a call we do not model)."""
    expr = expr.strip()
    if _ident(expr) in scope:
        return scope[_ident(expr)]
    if expr in ("nullptr", "NULL", "c10::nullopt", "at::Tensor()", "std::nullopt"):
        return None
    wrapped = {k: _Tensor(v) if isinstance(v, torch.Tensor) else v for k, v in scope.items()}
    ns = _Namespace()
    try:
        v = _eval(expr, {**wrapped, "at": ns, "torch": ns, "c10": ns, "std": ns, "_div": _div})
    except Exception:  # noqa: BLE001
        return UNKNOWN
    return v.t if isinstance(v, _Tensor) else v
