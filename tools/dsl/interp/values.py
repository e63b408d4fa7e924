"""Kernel expression values: index = Python int (int64 range checked), scalar = np.float32, so
every scalar operation rounds like the C++ `float` the generator emits."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from kernelwright.tools.dsl import ir
from kernelwright.tools.dsl.dtypes import DType, DTYPES
from kernelwright.tools.dsl.errors import DslError
from kernelwright.tools.dsl.host_eval import CMP
from kernelwright.tools.dsl.types_kernel import KernelTypes

INT64 = 1 << 63
F32 = np.float32


def as_scalar(v: Any) -> np.float32:
    return F32(v)


class KernelExprEval:
    """Evaluates kernel expressions. `env` holds variables; `fields` the tiling data; `dtype_of`
    resolves `x.dtype` for the running dtype variant."""

    def __init__(self, program: ir.Program, fields: dict[str, Any], dtype_of: Callable[[str], DType],
                 block: int | None = None, nblocks: int | None = None):
        self.p = program
        self.fields = {k: (F32(v) if program.field_types.get(k) == "float" else int(v)) for k, v in fields.items()}
        self.dtype_of = dtype_of
        self.block, self.nblocks = block, nblocks
        self.env: dict[str, Any] = {}
        for k, v in program.constants.items():
            if not isinstance(v, DType):
                self.env[k] = F32(v) if isinstance(v, float) else v

    def dtype(self, e: ir.Expr) -> DType:
        if isinstance(e, ir.DTypeConst):
            return DTYPES[e.dtype]
        if isinstance(e, ir.Name):
            return self.p.constants[e.id]
        if isinstance(e, ir.Attr) and isinstance(e.obj, ir.Name):
            return self.dtype_of(e.obj.id)
        raise DslError("type.mismatch", "not a dtype", e.line)

    def index(self, e: ir.Expr) -> int:
        v = self.eval(e)
        return int(v)

    def eval(self, e: ir.Expr) -> Any:
        if isinstance(e, ir.Const):
            v = e.value
            return F32(v) if isinstance(v, float) else int(v)
        if isinstance(e, ir.Name):
            try:
                return self.env[e.id]
            except KeyError:
                raise DslError("type.undefined", f"`{e.id}` has no value here (assigned only on another path?)",
                               e.line) from None
        if isinstance(e, ir.Field):
            return self.fields[e.name]
        if isinstance(e, ir.BinOp):
            return self.binop(e.op, self.eval(e.left), self.eval(e.right), e.line)
        if isinstance(e, ir.Unary):
            v = self.eval(e.operand)
            return int(not v) if e.op == "not" else (-v if isinstance(v, F32) else self.check(-v, e.line))
        if isinstance(e, ir.Compare):
            a, b = self.eval(e.left), self.eval(e.right)
            if isinstance(a, F32) or isinstance(b, F32):
                a, b = F32(a), F32(b)
            return int(CMP[e.op](a, b))
        if isinstance(e, ir.BoolOp):
            if e.op == "and":
                return int(all(self.eval(v) for v in e.values))
            return int(any(self.eval(v) for v in e.values))
        if isinstance(e, ir.IfExp):
            a = self.eval(e.body) if self.eval(e.cond) else self.eval(e.orelse)
            t = self.p_type(e)
            return F32(a) if t == "scalar" else a
        if isinstance(e, ir.Call):
            return self.call(e)
        if isinstance(e, ir.Attr):
            return self.dtype(e)
        raise DslError("subset.construct", f"cannot evaluate {type(e).__name__} in the kernel", e.line)

    def p_type(self, e: ir.Expr) -> str:
        kt = KernelTypes(self.p)
        kt.env = dict(self.p.kernel_types)
        for k, v in self.p.constants.items():
            if not isinstance(v, DType):
                kt.env[k] = "index" if isinstance(v, int) else "scalar"
        return kt.expr(e)

    @staticmethod
    def check(v: int, line: int) -> int:
        if not -INT64 <= v < INT64:
            raise DslError("index.overflow", f"index arithmetic overflows int64 ({v})", line)
        return v

    def binop(self, op: str, a: Any, b: Any, line: int) -> Any:
        if isinstance(a, F32) or isinstance(b, F32):
            a, b = F32(a), F32(b)
            with np.errstate(all="ignore"):
                return {"+": a + b, "-": a - b, "*": a * b}.get(op) if op != "/" else F32(a / b)
        if op in ("//", "%"):
            if b == 0:
                raise DslError("index.zero_division", f"integer division by zero (`{op}`)", line)
            if a < 0 or b < 0:
                raise DslError("index.negative_div", f"`{a} {op} {b}` has a negative operand", line,
                               hint="C++ rounds integer division toward zero and Python toward -inf; keep index "
                                    "arithmetic non-negative (reorder the terms, or add a multiple first)")
            return a // b if op == "//" else a % b
        return self.check({"+": a + b, "-": a - b, "*": a * b}[op], line)

    def call(self, e: ir.Call) -> Any:
        f = e.func
        if f == "block_idx":
            return self.block
        if f == "block_num":
            return self.nblocks
        if f in ("elems_per_block", "elems_per_repeat"):
            d = self.dtype(e.args[0])
            return d.per_block if f == "elems_per_block" else d.per_repeat
        args = [self.eval(a) for a in e.args]
        if f in ("min", "max"):
            if any(isinstance(a, F32) for a in args):
                args = [F32(a) for a in args]
            return min(args) if f == "min" else max(args)
        if f == "abs":
            return abs(args[0])
        if f == "int":
            return int(args[0])
        if f == "float":
            return F32(args[0])
        if f == "block_span":
            return self.block_span(int(args[0]), int(args[1]) if len(args) > 1 else 1, e.line)
        a, b = (int(x) for x in args[:2])
        if b <= 0:
            raise DslError("index.zero_division", f"A.{f}({a}, {b}): the second argument must be positive", e.line)
        if a < 0:
            raise DslError("index.negative_div", f"A.{f}({a}, {b}) of a negative value", e.line)
        if f == "ceil_div":
            return -(-a // b)
        if f == "align_up":
            return -(-a // b) * b
        return a // b * b

    def block_span(self, total: int, align: int, line: int) -> tuple[int, int]:
        """This block's [lo, hi) of `total`, split into units of `align`; the first `units % blocks`
        blocks take one unit more."""
        if align <= 0 or total < 0:
            raise DslError("index.range", f"A.block_span({total}, {align}) needs total >= 0 and align > 0", line)
        units = -(-total // align)
        base, rem = divmod(units, self.nblocks)
        b = self.block
        u0 = b * base + min(b, rem)
        u1 = u0 + base + (1 if b < rem else 0)
        return min(u0 * align, total), min(u1 * align, total)
