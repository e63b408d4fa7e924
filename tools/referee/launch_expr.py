"""Evaluate the small expressions of a `LaunchSpec` (block_dim, scalar arguments, workspace sizes)
without `eval`: a whitelist of AST nodes over numbers, the case's tensors and a few functions.

    numel(x)  dim(x, -1)  rank(x)  itemsize(x)  nbytes(x)  cores  ub_bytes
    cdiv(a, b)  align(a, b)  min(a, b)  max(a, b)  abs(a)  int(a)  float(a)
    + - * / // % **  comparisons  `a if cond else b`
"""
from __future__ import annotations

import ast
import math
import operator
from typing import Any

import numpy as np

from kernelwright.errors import UserError


class ExprError(UserError):
    pass


class TensorInfo:
    def __init__(self, name: str, shape: tuple[int, ...], itemsize: int):
        self.name, self.shape, self.itemsize = name, tuple(shape), itemsize


def _tensor(v: Any, fn: str) -> TensorInfo:
    if not isinstance(v, TensorInfo):
        raise ExprError(f"{fn}() takes a tensor name, got {v!r}")
    return v


def _dim(t: Any, i: Any = -1) -> int:
    t = _tensor(t, "dim")
    if not t.shape:
        raise ExprError(f"dim({t.name}, {i}): {t.name} is a scalar (rank 0)")
    try:
        return t.shape[int(i)]
    except IndexError:
        raise ExprError(f"dim({t.name}, {i}): {t.name} has rank {len(t.shape)}") from None


def _cdiv(a: Any, b: Any) -> int:
    if int(b) == 0:
        raise ExprError("cdiv(a, 0): division by zero")
    return -(-int(a) // int(b))


FUNCS = {
    "numel": lambda t: int(np.prod(_tensor(t, "numel").shape, dtype=np.int64)),
    "dim": _dim,
    "rank": lambda t: len(_tensor(t, "rank").shape),
    "itemsize": lambda t: _tensor(t, "itemsize").itemsize,
    "nbytes": lambda t: int(np.prod(_tensor(t, "nbytes").shape, dtype=np.int64)) * t.itemsize,
    "cdiv": _cdiv,
    "align": lambda a, b: _cdiv(a, b) * int(b),
    "min": min, "max": max, "abs": abs, "int": int, "float": float,
}
_BIN = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
        ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow}
_CMP = {ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Eq: operator.eq,
        ast.NotEq: operator.ne}


def evaluate(expr: str, env: dict[str, Any]) -> int | float:
    """The value of `expr` with names from `env` (tensors as TensorInfo, numbers as themselves)."""
    try:
        tree = ast.parse(expr.strip(), mode="eval")
    except SyntaxError as e:
        raise ExprError(f"{expr!r}: not an expression ({e.msg})") from None

    def ev(node: ast.AST) -> Any:
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
            return node.value
        if isinstance(node, ast.Name):
            if node.id in env:
                return env[node.id]
            raise ExprError(f"{expr!r}: unknown name '{node.id}' (known: {', '.join(sorted(env))})")
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            v = ev(node.operand)
            return -v if isinstance(node.op, ast.USub) else v
        if isinstance(node, ast.BinOp) and type(node.op) in _BIN:
            a, b = ev(node.left), ev(node.right)
            if isinstance(node.op, ast.Pow) and (abs(b) > 64 or abs(a) > 1 << 32):
                raise ExprError(f"{expr!r}: power too large")
            if isinstance(node.op, (ast.Div, ast.FloorDiv, ast.Mod)) and b == 0:
                raise ExprError(f"{expr!r}: division by zero")
            return _BIN[type(node.op)](a, b)
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _CMP:
            return _CMP[type(node.ops[0])](ev(node.left), ev(node.comparators[0]))
        if isinstance(node, ast.IfExp):
            return ev(node.body) if ev(node.test) else ev(node.orelse)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in FUNCS and not node.keywords:
            args = [ev(a) for a in node.args]
            try:
                return FUNCS[node.func.id](*args)
            except (TypeError, ValueError, OverflowError) as e:    # min(), abs(x) of a tensor, int(huge)
                raise ExprError(f"{expr!r}: {node.func.id}() cannot take these arguments ({e})") from None
        raise ExprError(f"{expr!r}: {type(node).__name__} is not allowed here (functions: {', '.join(sorted(FUNCS))})")

    try:
        value = ev(tree.body)
    except (TypeError, OverflowError) as e:     # a tensor in arithmetic (`x + 1`), a float too large
        raise ExprError(f"{expr!r}: {e}") from None
    if isinstance(value, TensorInfo) or not isinstance(value, (int, float, bool)):
        raise ExprError(f"{expr!r}: evaluates to {value!r}, not a number")
    if isinstance(value, float) and not math.isfinite(value):
        raise ExprError(f"{expr!r}: evaluates to {value}")
    return value
