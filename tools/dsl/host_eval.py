"""Our evaluator of the host functions (tiling, shapes) on concrete shapes, dtypes, attributes
and SoC numbers. It follows C++ semantics where Python's differ (every variable keeps its static
type; floor division and modulo are Python's, which the generated C++ reproduces with helpers)."""
from __future__ import annotations

import operator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kernelwright.tools.dsl import ir
from kernelwright.tools.dsl.dtypes import DType, DTYPES
from kernelwright.tools.dsl.errors import DslError
from kernelwright.tools.dsl.types_host import HostTypes
from kernelwright.tools.hardware import SocProfile

CMP = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge, "==": operator.eq, "!=": operator.ne}
MAX_LOOP = 1 << 20
MAX_STEPS = 1 << 21        # statements in one evaluation: nested loops, each under MAX_LOOP, end here
INT64 = 1 << 63


@dataclass
class TensorSpec:
    shape: tuple[int, ...]
    dtype: DType

    @property
    def numel(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64)) if self.shape else 1


@dataclass
class TilingResult:
    block_dim: int
    fields: dict[str, int | float]
    types: dict[str, str]
    workspace_bytes: int = 0
    locals: dict[str, Any] = field(default_factory=dict)


class HostEval:
    def __init__(self, program: ir.Program, fn: ir.HostFunc, tensors: dict[str, TensorSpec], attrs: dict[str, Any],
                 soc: SocProfile | None):
        self.p, self.fn = program, fn
        self.types = HostTypes(program, fn)
        self.types.env = dict(program.host_types.get(fn.kind, {}))
        self.env: dict[str, Any] = dict(program.constants)
        for name in fn.params:
            if name in tensors:
                self.env[name] = tensors[name]
            elif name == "hw":
                self.env[name] = soc
            else:
                self.env[name] = attrs[name]
        self.steps = 0

    def run(self) -> Any:
        try:
            self.block(self.fn.body[:-1])
            return self.fn.body[-1].value
        except RecursionError:
            raise DslError("tiling.eval", "expression nesting too deep", self.fn.line) from None

    def block(self, stmts: list[ir.Stmt]) -> None:
        for s in stmts:
            self.stmt(s)

    def stmt(self, s: ir.Stmt) -> None:
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise DslError("tiling.steps", f"the {self.fn.kind} function ran more than {MAX_STEPS} statements", s.line,
                           hint="nested loops multiply: loop over dimensions or tiles, not over elements")
        if isinstance(s, ir.Assign):
            v = self.expr(s.value)
            if len(s.targets) == 1:
                self.set(s.targets[0], v, s.line)
            else:
                items = list(v)
                if len(items) != len(s.targets):
                    raise DslError("tiling.unpack", f"cannot unpack {len(items)} values into {len(s.targets)} names "
                                                    f"({', '.join(s.targets)})", s.line,
                                   hint="the tensor has a different rank than this line expects; check x.ndim first",
                                   values=tuple(items))
                for name, item in zip(s.targets, items):
                    self.set(name, item, s.line)
        elif isinstance(s, ir.AugAssign):
            self.set(s.target, self.binop(s.op, self.env[s.target], self.expr(s.value), s.line), s.line)
        elif isinstance(s, ir.If):
            self.block(s.body if self.expr(s.cond) else s.orelse)
        elif isinstance(s, ir.For):
            start, stop, step = (int(self.expr(e)) for e in (s.start, s.stop, s.step))
            if step <= 0:
                raise DslError("tiling.range", f"range step must be positive, got {step}", s.line)
            if (stop - start) // step > MAX_LOOP:
                raise DslError("tiling.range", f"this loop runs more than {MAX_LOOP} times", s.line)
            for i in range(start, stop, step):
                self.set(s.vars[0], i, s.line)
                self.block(s.body)
        elif isinstance(s, ir.Assert):
            if not self.expr(s.cond):
                raise DslError("tiling.assert", f"assertion failed: {s.msg or 'condition is false'}", s.line,
                               hint="the tiling function rejects this case (the generated TilingFunc returns "
                                    "GRAPH_FAILED)", values=self.snapshot())
        elif isinstance(s, ir.Pass):
            pass

    def snapshot(self) -> dict[str, Any]:
        return {k: v for k, v in self.env.items() if isinstance(v, (int, float, tuple)) and k not in self.p.constants}

    def set(self, name: str, v: Any, line: int) -> None:
        t = self.types.env.get(name)
        self.env[name] = self.coerce(v, t, line)

    def coerce(self, v: Any, t: str | None, line: int) -> Any:
        if t == "float":
            return float(v)
        if t == "int":
            v = int(v)
            if not -INT64 <= v < INT64:
                raise DslError("tiling.overflow", f"{v} does not fit in int64", line)
            return v
        return v

    def expr(self, e: ir.Expr) -> Any:
        v = self._expr(e)
        t = self.types.expr(e) if isinstance(e, (ir.BinOp, ir.Call, ir.IfExp)) else None
        return self.coerce(v, t, e.line)

    def _expr(self, e: ir.Expr) -> Any:
        if isinstance(e, ir.Const):
            return e.value
        if isinstance(e, ir.DTypeConst):
            return DTYPES[e.dtype]
        if isinstance(e, ir.Name):
            return self.env[e.id]
        if isinstance(e, ir.Attr):
            obj = self.expr(e.obj)
            if isinstance(obj, TensorSpec):
                return {"shape": obj.shape, "dtype": obj.dtype, "numel": obj.numel, "ndim": len(obj.shape)}[e.attr]
            if isinstance(obj, DType):
                return obj.size
            return {"ub_bytes": obj.ub_bytes, "vector_cores": obj.vector_cores, "cube_cores": obj.aic_cores,
                    "l1_bytes": obj.l1_bytes, "l0a_bytes": obj.l0a_bytes, "l0b_bytes": obj.l0b_bytes,
                    "l0c_bytes": obj.l0c_bytes}[e.attr]
        if isinstance(e, ir.BinOp):
            return self.binop(e.op, self.expr(e.left), self.expr(e.right), e.line)
        if isinstance(e, ir.Unary):
            v = self.expr(e.operand)
            return (not v) if e.op == "not" else -v
        if isinstance(e, ir.Compare):
            return CMP[e.op](self.expr(e.left), self.expr(e.right))
        if isinstance(e, ir.BoolOp):
            if e.op == "and":
                return all(bool(self.expr(v)) for v in e.values)
            return any(bool(self.expr(v)) for v in e.values)
        if isinstance(e, ir.IfExp):
            return self.expr(e.body) if self.expr(e.cond) else self.expr(e.orelse)
        if isinstance(e, ir.Call):
            return self.call(e)
        if isinstance(e, ir.Subscript):
            shape, i = self.expr(e.obj), int(self.expr(e.index))
            if not -len(shape) <= i < len(shape):
                raise DslError("tiling.index", f"index {i} is out of range for a shape of rank {len(shape)} {shape}",
                               e.line, hint="check the rank (x.ndim) or normalise negative axes")
            return shape[i]
        if isinstance(e, ir.SliceOf):
            shape = self.expr(e.obj)
            lo = int(self.expr(e.lo)) if e.lo is not None else None
            hi = int(self.expr(e.hi)) if e.hi is not None else None
            return tuple(shape[lo:hi])
        if isinstance(e, ir.TupleExpr):
            return tuple(int(self.expr(i)) for i in e.items)
        raise DslError("tiling.eval", f"cannot evaluate {type(e).__name__} here", e.line)

    def binop(self, op: str, a: Any, b: Any, line: int) -> Any:
        if isinstance(a, tuple):
            return a + b
        if op in ("/", "//", "%") and b == 0:
            raise DslError("tiling.zero_division", f"division by zero (`{op}` with a zero right-hand side)", line,
                           values=self.snapshot())
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        if op == "*":
            return a * b
        if op == "/":
            return a / b
        if op == "//":
            return a // b
        if op == "%":
            return a % b
        if isinstance(a, int) and isinstance(b, int) and b < 0:
            raise DslError("tiling.power", "integer powers need a non-negative exponent", line)
        if isinstance(a, int) and isinstance(b, int) and b > 62:
            raise DslError("tiling.overflow", f"{a} ** {b} is too large", line)
        return a ** b

    def call(self, e: ir.Call) -> Any:
        args = [self.expr(a) for a in e.args]
        f = e.func
        if f == "min":
            return min(args)
        if f == "max":
            return max(args)
        if f == "abs":
            return abs(args[0])
        if f == "int":
            return int(args[0])
        if f == "float":
            return float(args[0])
        if f == "len":
            return len(args[0])
        if f == "prod":
            return int(np.prod(args[0], dtype=np.int64)) if args[0] else 1
        if f == "elems_per_block":
            return args[0].per_block
        if f == "elems_per_repeat":
            return args[0].per_repeat
        a, b = (int(x) for x in args)
        if b <= 0:
            raise DslError("tiling.zero_division", f"A.{f}({a}, {b}): the second argument must be positive", e.line)
        if f == "ceil_div":
            return -(-a // b)
        if f == "align_up":
            return -(-a // b) * b
        return a // b * b                     # align_down


def attr_values(program: ir.Program, attrs: dict[str, Any]) -> dict[str, Any]:
    """Attributes as the kernel sees them: the case's value, else the declared default, typed."""
    out = {}
    for a in program.sig.attrs:
        v = attrs.get(a.name, a.default)
        out[a.name] = tuple(int(x) for x in v) if a.kind == "list_int" else \
            bool(v) if a.kind == "bool" else int(v) if a.kind == "int" else float(v)
    return out


def run_tiling(program: ir.Program, tensors: dict[str, TensorSpec], attrs: dict[str, Any],
               soc: SocProfile) -> TilingResult:
    ev = HostEval(program, program.tiling, tensors, attr_values(program, attrs), soc)
    ret: ir.TilingCall = ev.run()
    block_dim = int(ev.expr(ret.block_dim))
    fields: dict[str, int | float] = {}
    for name, e in ret.fields.items():
        v = ev.expr(e)
        if program.field_types[name] == "float":
            fields[name] = float(np.float32(v))        # the tiling struct holds a C float
        else:
            fields[name] = int(v)
    return TilingResult(block_dim, fields, dict(program.field_types), locals=ev.snapshot())


def run_shapes(program: ir.Program, tensors: dict[str, TensorSpec], attrs: dict[str, Any]) -> dict[str, tuple]:
    if program.shapes is None:
        first = tensors[program.sig.inputs[0].name] if program.sig.inputs else TensorSpec((1,), DTYPES["f32"])
        return {o.name: first.shape for o in program.sig.outputs}
    ev = HostEval(program, program.shapes, tensors, attr_values(program, attrs), None)
    ret: ir.DictExpr = ev.run()
    out = {k: tuple(int(d) for d in ev.expr(v)) for k, v in zip(ret.keys, ret.values)}
    missing = [o.name for o in program.sig.outputs if o.name not in out]
    if missing:
        raise DslError("shapes.return", f"the shapes function gives no shape for {', '.join(missing)}",
                       program.shapes.body[-1].line)
    return out
