"""Python expressions -> IR expressions, for the host (tiling, shapes) and the kernel domain.

Only a small subset is accepted: numbers, names, arithmetic, comparisons, `and/or/not`,
conditional expressions, calls of the pure helpers below, and the few attributes the DSL defines.
Anything else is rejected with the line, the construct and what is allowed."""
from __future__ import annotations

import ast

from kernelwright.tools.dsl import ir
from kernelwright.tools.dsl.dtypes import DTYPES
from kernelwright.tools.dsl.errors import DslError

# Helpers callable in both domains, as A.<name> (a few also as Python builtins).
HELPERS = {"ceil_div": 2, "align_up": 2, "align_down": 2, "elems_per_block": 1, "elems_per_repeat": 1}
BUILTINS = {"min": None, "max": None, "abs": 1, "int": 1, "float": 1}
HOST_ONLY = {"prod": 1, "len": 1}
KERNEL_ONLY = {"block_idx": 0, "block_num": 0}
HOST_ATTRS = {"shape", "dtype", "numel", "ndim", "size", "ub_bytes", "vector_cores", "cube_cores", "l1_bytes", "l0a_bytes",
              "l0b_bytes", "l0c_bytes"}
BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%", ast.Pow: "**"}
CMPOPS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}

CONSTRUCTS = {
    "Lambda": "a lambda", "ListComp": "a list comprehension", "SetComp": "a set comprehension",
    "DictComp": "a dict comprehension", "GeneratorExp": "a generator expression", "Await": "await",
    "Yield": "yield", "YieldFrom": "yield from", "JoinedStr": "an f-string", "Starred": "a starred expression",
    "NamedExpr": "an assignment expression (:=)", "List": "a list", "Set": "a set", "Dict": "a dict",
    "While": "a while loop", "Break": "break", "Continue": "continue", "With": "a with statement",
    "Try": "try/except", "Raise": "raise", "Import": "an import", "ImportFrom": "an import", "Global": "global",
    "Nonlocal": "nonlocal", "ClassDef": "a class definition", "FunctionDef": "a nested function definition",
    "AsyncFunctionDef": "an async function", "Delete": "del", "AnnAssign": "an annotated assignment",
    "Match": "a match statement", "AsyncFor": "async for", "AsyncWith": "async with", "TryStar": "try/except*",
    "BitAnd": "the & operator", "BitOr": "the | operator", "BitXor": "the ^ operator", "LShift": "the << operator",
    "RShift": "the >> operator", "MatMult": "the @ operator", "Invert": "the ~ operator", "Is": "`is`",
    "IsNot": "`is not`", "In": "`in`", "NotIn": "`not in`",
}
EXPR_ALLOWED = ("numbers, names, + - * / // % **, comparisons, and/or/not, `a if c else b`, "
                "min/max/abs/int/float and the A.* helpers")


def construct_name(node: ast.AST) -> str:
    return CONSTRUCTS.get(type(node).__name__, f"`{type(node).__name__}`")


def reject(node: ast.AST, what: str | None = None, allowed: str = EXPR_ALLOWED) -> DslError:
    what = what or construct_name(node)
    return DslError("subset.construct", f"{what} is not allowed in the DSL", getattr(node, "lineno", None),
                    hint=f"allowed here: {allowed}", construct=what)


def dotted(node: ast.AST) -> str | None:
    """`A.f32` -> "A.f32"; `x` -> "x"; anything else -> None."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


def check_attr_name(node: ast.Attribute) -> None:
    if node.attr.startswith("_"):
        raise DslError("subset.attribute", f"attribute `{node.attr}` is not allowed in the DSL", node.lineno,
                       hint="the DSL reads only the attributes it defines (x.shape, x.dtype, t.<field>, hw.ub_bytes, ...)",
                       attribute=node.attr)


class ExprParser:
    """`domain` is "host" or "kernel"; `tensors` are the GM/TensorSpec names; `tiling_param` names the
    kernel's tiling data argument (its attributes are tiling fields)."""

    def __init__(self, domain: str, tensors: set[str], constants: dict, tiling_param: str | None = None,
                 hw_param: str | None = None):
        self.domain, self.tensors, self.constants = domain, tensors, constants
        self.tiling_param, self.hw_param = tiling_param, hw_param

    def expr(self, node: ast.AST) -> ir.Expr:
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Constant):
            if isinstance(node.value, bool) or isinstance(node.value, (int, float)):
                return ir.Const(line, node.value)
            raise reject(node, "a string here" if isinstance(node.value, str) else f"the constant {node.value!r}")
        if isinstance(node, ast.Name):
            if node.id.startswith("__"):
                raise DslError("subset.name", f"the name `{node.id}` is not allowed in the DSL", line,
                               hint="use the names your program defines, its parameters and `A.*`", name=node.id)
            return ir.Name(line, node.id)
        if isinstance(node, ast.BinOp):
            op = BINOPS.get(type(node.op))
            if op is None:
                raise reject(node.op if hasattr(node.op, "lineno") else node, construct_name(node.op))
            return ir.BinOp(line, op, self.expr(node.left), self.expr(node.right))
        if isinstance(node, ast.UnaryOp):
            if isinstance(node.op, ast.UAdd):
                return self.expr(node.operand)
            if isinstance(node.op, ast.USub):
                inner = self.expr(node.operand)
                if isinstance(inner, ir.Const) and not isinstance(inner.value, bool):
                    return ir.Const(line, -inner.value)
                return ir.Unary(line, "-", inner)
            if isinstance(node.op, ast.Not):
                return ir.Unary(line, "not", self.expr(node.operand))
            raise reject(node, construct_name(node.op))
        if isinstance(node, ast.Compare):
            parts, left = [], self.expr(node.left)
            for op, right_node in zip(node.ops, node.comparators):
                sym = CMPOPS.get(type(op))
                if sym is None:
                    raise reject(node, construct_name(op))
                right = self.expr(right_node)
                parts.append(ir.Compare(line, sym, left, right))
                left = right
            return parts[0] if len(parts) == 1 else ir.BoolOp(line, "and", parts)
        if isinstance(node, ast.BoolOp):
            return ir.BoolOp(line, "and" if isinstance(node.op, ast.And) else "or", [self.expr(v) for v in node.values])
        if isinstance(node, ast.IfExp):
            return ir.IfExp(line, self.expr(node.test), self.expr(node.body), self.expr(node.orelse))
        if isinstance(node, ast.Attribute):
            return self.attribute(node)
        if isinstance(node, ast.Call):
            return self.call(node)
        if isinstance(node, ast.Subscript):
            if self.domain != "host":
                raise reject(node, "indexing in an expression",
                             "A.get(tile, i) reads one element of a tile; `t[k:]` views a tile inside a vector op")
            sl = node.slice
            if isinstance(sl, ast.Slice):
                if sl.step is not None:
                    raise reject(node, "a slice with a step", "shape[a:b]")
                return ir.SliceOf(line, self.expr(node.value), self.expr(sl.lower) if sl.lower else None,
                                  self.expr(sl.upper) if sl.upper else None)
            return ir.Subscript(line, self.expr(node.value), self.expr(sl))
        if isinstance(node, ast.Tuple):
            if self.domain != "host":
                raise reject(node, "a tuple here")
            return ir.TupleExpr(line, [self.expr(e) for e in node.elts])
        raise reject(node)

    def attribute(self, node: ast.Attribute) -> ir.Expr:
        check_attr_name(node)
        line = node.lineno
        name = dotted(node)
        if name and name.startswith("A.") and name.count(".") == 1:
            attr = node.attr
            if attr in DTYPES:
                return ir.DTypeConst(line, attr)
            if attr == "inf":
                return ir.Const(line, float("inf"))
            raise DslError("subset.name", f"`A.{attr}` is not a DSL value", line,
                           hint="DSL values: A.f32, A.f16, A.bf16, A.i32, ..., A.inf; primitives are called as A.<name>(...)")
        if isinstance(node.value, ast.Name) and node.value.id == self.tiling_param:
            return ir.Field(line, node.attr)
        obj = self.expr(node.value)
        if self.domain == "kernel":
            if node.attr != "dtype" or not (isinstance(obj, ir.Name) and obj.id in self.tensors):
                raise DslError("subset.attribute", f"`{ast.unparse(node)}` is not available in the kernel", line,
                               hint="the kernel reads tiling fields (t.<field>) and GM dtypes (x.dtype); pass shapes "
                                    "and sizes from the tiling function as fields", attribute=node.attr)
            return ir.Attr(line, obj, "dtype")
        if node.attr not in HOST_ATTRS:
            raise DslError("subset.attribute", f"attribute `{node.attr}` is not defined in the tiling language", line,
                           hint="tensors have .shape .dtype .numel .ndim; dtypes have .size; hw has .ub_bytes "
                                ".vector_cores .cube_cores .l1_bytes .l0a_bytes .l0b_bytes .l0c_bytes",
                           attribute=node.attr)
        return ir.Attr(line, obj, node.attr)

    def call(self, node: ast.Call) -> ir.Expr:
        line = node.lineno
        name = dotted(node.func)
        if name is None:
            raise DslError("subset.call", f"calling `{ast.unparse(node.func)}` is not allowed in the DSL", line,
                           hint="call A.* primitives and helpers, or min/max/abs/int/float")
        short = name[2:] if name.startswith("A.") else name
        table = dict(HELPERS) if name.startswith("A.") else {}
        if not name.startswith("A."):
            table.update(BUILTINS)
        if self.domain == "host":
            table.update(HOST_ONLY if name.startswith("A.") or short == "len" else {})
        elif name.startswith("A."):
            table.update(KERNEL_ONLY)
        if short not in table or "." in short:
            raise DslError("subset.call", f"call to `{name}` is not allowed here", line,
                           hint=self.call_hint(name), call=name)
        if node.keywords:
            raise reject(node, f"keyword arguments to {name}", "positional arguments")
        args = [self.expr(a) for a in node.args]
        want = table[short]
        if want is not None and len(args) != want:
            raise DslError("call.args", f"{name} takes {want} argument(s), got {len(args)}", line, call=name)
        if short in ("min", "max") and len(args) < 2:
            raise DslError("call.args", f"{name} takes at least 2 arguments, got {len(args)}", line, call=name)
        return ir.Call(line, short, args)

    def call_hint(self, name: str) -> str:
        if self.domain == "host":
            return ("the tiling language calls min, max, abs, int, float, len, A.ceil_div, A.align_up, A.align_down, "
                    "A.prod, A.elems_per_block, A.elems_per_repeat, and returns A.Tiling(...)")
        return ("in a kernel expression: min, max, abs, int, float, A.block_idx, A.block_num, A.ceil_div, A.align_up, "
                "A.align_down, A.elems_per_block, A.elems_per_repeat; primitives with effects (A.load, A.Add, "
                "A.reduce_sum, ...) are statements of their own")
