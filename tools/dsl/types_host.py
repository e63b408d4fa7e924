"""Static types of the host functions (tiling, shapes): int, float, bool, dtype, shape, tensor, hw.
The evaluator and the C++ translation both follow them, so Python and C++ agree on every value."""
from __future__ import annotations

from kernelwright.tools.dsl import ir
from kernelwright.tools.dsl.dtypes import DType
from kernelwright.tools.dsl.errors import DslError
from kernelwright.tools.dsl.typecheck import NUM, unify


class HostTypes:
    def __init__(self, program: ir.Program, fn: ir.HostFunc):
        self.fn = fn
        self.env: dict[str, str] = {}
        for c, v in program.constants.items():
            self.env[c] = "dtype" if isinstance(v, DType) else "bool" if isinstance(v, bool) else \
                "int" if isinstance(v, int) else "float"
        inputs = {t.name for t in program.sig.inputs}
        attrs = {a.name: a.kind for a in program.sig.attrs}
        for p in fn.params:
            self.env[p] = "tensor" if p in inputs else "hw" if p == "hw" else \
                {"list_int": "shape"}.get(attrs.get(p, ""), attrs.get(p, "int"))
        self.params = set(fn.params)

    def run(self) -> dict[str, str]:
        self.block(self.fn.body)
        return self.env

    def block(self, stmts: list[ir.Stmt]) -> None:
        for s in stmts:
            if isinstance(s, ir.Assign):
                t = self.expr(s.value)
                if len(s.targets) == 1:
                    self.bind(s.targets[0], t, s.line)
                elif t == "shape" or (isinstance(s.value, ir.TupleExpr) and len(s.value.items) == len(s.targets)):
                    items = [self.expr(e) for e in s.value.items] if isinstance(s.value, ir.TupleExpr) else \
                        ["int"] * len(s.targets)
                    for name, it in zip(s.targets, items):
                        self.bind(name, it, s.line)
                else:
                    raise DslError("type.mismatch", f"cannot unpack a {t} into {len(s.targets)} names", s.line)
            elif isinstance(s, ir.AugAssign):
                if s.target not in self.env:
                    raise DslError("type.undefined", f"`{s.target}` is used before it is assigned", s.line)
                self.bind(s.target, self.binop(s.op, self.env[s.target], self.expr(s.value), s.line), s.line)
            elif isinstance(s, ir.If):
                self.cond(s.cond)
                self.block(s.body)
                self.block(s.orelse)
            elif isinstance(s, ir.For):
                for e in (s.start, s.stop, s.step):
                    self.want(e, "int", "a range bound")
                self.bind(s.vars[0], "int", s.line)
                self.block(s.body)
            elif isinstance(s, ir.Assert):
                self.cond(s.cond)
            elif isinstance(s, ir.Return):
                self.ret(s)

    def bind(self, name: str, t: str, line: int) -> None:
        if name in self.params:
            raise DslError("subset.assign", f"cannot assign to the parameter `{name}`", line)
        old = self.env.get(name)
        if old is not None and old != t and not {old, t} <= {"int", "bool"}:
            if {old, t} <= {"int", "float"}:
                raise DslError("type.var", f"`{name}` holds an int here and a float elsewhere", line,
                               hint="C++ gives every variable one type: use float(...) in both places or a new name")
            raise DslError("type.var", f"`{name}` was a {old} and is now a {t}", line, hint="use a new name")
        self.env[name] = "int" if {old, t} == {"int", "bool"} else t

    def cond(self, e: ir.Expr) -> None:
        t = self.expr(e)
        if t not in NUM:
            raise DslError("type.mismatch", f"a condition must be a comparison or a number, not a {t}", e.line)

    def want(self, e: ir.Expr, t: str, what: str) -> None:
        got = self.expr(e)
        if got != t and not (t == "int" and got == "bool") and not (t == "float" and got in NUM):
            raise DslError("type.mismatch", f"{what} must be {'an' if t == 'int' else 'a'} {t}, not a {got}", e.line)

    def ret(self, s: ir.Return) -> None:
        v = s.value
        if isinstance(v, ir.TilingCall):
            self.want(v.block_dim, "int", "block_dim")
            for name, e in v.fields.items():
                t = self.expr(e)
                if t not in NUM:
                    raise DslError("tiling.field", f"tiling field `{name}` is a {t}; fields are numbers", e.line,
                                   hint="pass sizes and counts (ints) or factors (floats); dtypes are known in the "
                                        "kernel as x.dtype")
        elif isinstance(v, ir.DictExpr):
            for name, e in zip(v.keys, v.values):
                if self.expr(e) != "shape":
                    raise DslError("type.mismatch", f"the shape of output {name} must be a shape (a tuple of ints or "
                                                    "x.shape[...])", e.line)

    def expr(self, e: ir.Expr) -> str:
        t = self._expr(e)
        return t

    def _expr(self, e: ir.Expr) -> str:
        if isinstance(e, ir.Const):
            return "bool" if isinstance(e.value, bool) else "int" if isinstance(e.value, int) else "float"
        if isinstance(e, ir.DTypeConst):
            return "dtype"
        if isinstance(e, ir.Name):
            if e.id not in self.env:
                raise DslError("type.undefined", f"`{e.id}` is not defined here", e.line,
                               hint="parameters are the op's inputs, attributes and hw; assign locals before use")
            return self.env[e.id]
        if isinstance(e, ir.Attr):
            base = self.expr(e.obj)
            table = {("tensor", "shape"): "shape", ("tensor", "dtype"): "dtype", ("tensor", "numel"): "int",
                     ("tensor", "ndim"): "int", ("dtype", "size"): "int", ("hw", "ub_bytes"): "int",
                     ("hw", "vector_cores"): "int", ("hw", "cube_cores"): "int",
                     ("hw", "l1_bytes"): "int", ("hw", "l0a_bytes"): "int", ("hw", "l0b_bytes"): "int",
                     ("hw", "l0c_bytes"): "int"}
            if (base, e.attr) not in table:
                raise DslError("type.attribute", f"a {base} has no attribute `{e.attr}`", e.line)
            if self.fn.kind == "shapes" and (base == "hw" or e.attr == "dtype"):
                raise DslError("shapes.input", "the shapes function sees shapes and attributes only", e.line)
            return table[(base, e.attr)]
        if isinstance(e, ir.BinOp):
            return self.binop(e.op, self.expr(e.left), self.expr(e.right), e.line)
        if isinstance(e, ir.Unary):
            t = self.expr(e.operand)
            if e.op == "not":
                return "bool"
            if t not in NUM:
                raise DslError("type.mismatch", f"cannot negate a {t}", e.line)
            return "int" if t == "bool" else t
        if isinstance(e, ir.Compare):
            a, b = self.expr(e.left), self.expr(e.right)
            if not ((a in NUM and b in NUM) or (a == b == "dtype" and e.op in ("==", "!="))):
                raise DslError("type.mismatch", f"cannot compare a {a} with a {b}", e.line)
            return "bool"
        if isinstance(e, ir.BoolOp):
            for v in e.values:
                self.cond(v)
            return "bool"
        if isinstance(e, ir.IfExp):
            self.cond(e.cond)
            return unify(self.expr(e.body), self.expr(e.orelse), e.line, "this conditional expression")
        if isinstance(e, ir.Call):
            return self.call(e)
        if isinstance(e, ir.Subscript):
            if self.expr(e.obj) != "shape":
                raise DslError("type.mismatch", "only shapes can be indexed", e.line)
            self.want(e.index, "int", "an index")
            return "int"
        if isinstance(e, ir.SliceOf):
            if self.expr(e.obj) != "shape":
                raise DslError("type.mismatch", "only shapes can be sliced", e.line)
            for b in (e.lo, e.hi):
                if b is not None:
                    self.want(b, "int", "a slice bound")
            return "shape"
        if isinstance(e, ir.TupleExpr):
            for it in e.items:
                self.want(it, "int", "a shape entry")
            return "shape"
        raise DslError("subset.construct", f"{type(e).__name__} is not allowed here", e.line)

    def binop(self, op: str, a: str, b: str, line: int) -> str:
        if a == b == "shape" and op == "+":
            return "shape"
        if a not in NUM or b not in NUM:
            raise DslError("type.mismatch", f"`{op}` between a {a} and a {b}", line,
                           hint="shapes concatenate with +; numbers use + - * / // % **")
        if op == "/":
            return "float"
        return "float" if "float" in (a, b) else "int"

    def call(self, e: ir.Call) -> str:
        args = [self.expr(a) for a in e.args]
        f = e.func
        if f in ("min", "max"):
            t = args[0]
            for a in args[1:]:
                t = unify(t, a, e.line, f"{f}(...)")
            if t not in NUM:
                raise DslError("type.mismatch", f"{f} takes numbers", e.line)
            return "int" if t == "bool" else t
        if f == "abs":
            return "int" if args[0] == "bool" else args[0]
        if f in ("int", "float"):
            if args[0] not in NUM:
                raise DslError("type.mismatch", f"{f}() takes a number", e.line)
            return f
        if f in ("len", "prod"):
            if args[0] != "shape":
                raise DslError("type.mismatch", f"{f}() takes a shape", e.line)
            return "int"
        if f in ("elems_per_block", "elems_per_repeat"):
            if args[0] != "dtype":
                raise DslError("type.mismatch", f"A.{f}() takes a dtype", e.line)
            return "int"
        for a, arg in zip(args, e.args):
            if a not in ("int", "bool"):
                raise DslError("type.mismatch", f"A.{f} takes integers", arg.line)
        return "int"
