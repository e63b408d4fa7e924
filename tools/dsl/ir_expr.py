"""Expression nodes of the DSL's IR (host and kernel), each with its source line; `ir` re-exports them."""
from __future__ import annotations

from dataclasses import dataclass


# ---------------------------------------------------------------- expressions (host and kernel)
@dataclass
class Expr:
    line: int


@dataclass
class Const(Expr):
    value: int | float | bool


@dataclass
class DTypeConst(Expr):
    dtype: str                      # "f32", "f16", ...


@dataclass
class Name(Expr):
    id: str


@dataclass
class BinOp(Expr):
    op: str                         # + - * / // % **
    left: Expr
    right: Expr


@dataclass
class Unary(Expr):
    op: str                         # - not
    operand: Expr


@dataclass
class Compare(Expr):
    op: str                         # < <= > >= == !=
    left: Expr
    right: Expr


@dataclass
class BoolOp(Expr):
    op: str                         # and or
    values: list[Expr]


@dataclass
class IfExp(Expr):
    cond: Expr
    body: Expr
    orelse: Expr


@dataclass
class Call(Expr):
    """A pure helper (min, max, ceil_div, align_up, block_idx, ...); primitives with effects are statements."""
    func: str
    args: list[Expr]


@dataclass
class Attr(Expr):
    obj: Expr
    attr: str                       # x.shape / x.dtype / x.numel / x.ndim / hw.ub_bytes / dt.size


@dataclass
class Field(Expr):
    """A tiling field read in the kernel (`t.N`)."""
    name: str


@dataclass
class Subscript(Expr):
    obj: Expr
    index: Expr


@dataclass
class SliceOf(Expr):
    obj: Expr
    lo: Expr | None
    hi: Expr | None


@dataclass
class TupleExpr(Expr):
    items: list[Expr]


@dataclass
class DictExpr(Expr):
    keys: list[str]
    values: list[Expr]


@dataclass
class TilingCall(Expr):
    """`A.Tiling(block_dim=..., **fields)` (the tiling function's return value)."""
    block_dim: Expr
    fields: dict[str, Expr]
