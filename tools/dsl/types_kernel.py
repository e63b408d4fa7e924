"""Static types of the kernel: index (int64), scalar (fp32) and bool; declarations, operands and
counts are checked here, with the DSL line of every finding."""
from __future__ import annotations

from kernelwright.tools.dsl import ir
from kernelwright.tools.dsl.dtypes import DType
from kernelwright.tools.dsl.errors import DslError
from kernelwright.tools.dsl.typecheck import dtype_options, unify


class KernelTypes:
    def __init__(self, program: ir.Program):
        self.p = program
        self.env: dict[str, str] = {}
        for c, v in program.constants.items():
            if not isinstance(v, DType):
                self.env[c] = "bool" if isinstance(v, bool) else "index" if isinstance(v, int) else "scalar"
        self.gm = set(program.kernel.gm_params)

    def run(self) -> None:
        self.block(self.p.kernel.body)
        self.p.kernel_types = {k: v for k, v in self.env.items() if k not in self.p.constants}

    def tile_float(self, ref: ir.TileRef) -> bool:
        decl = self.p.tiles[ref.name]
        return all(d.is_float for d in dtype_options(self.p, decl.dtype))

    def block(self, stmts: list[ir.Stmt]) -> None:
        for s in stmts:
            self.stmt(s)

    def stmt(self, s: ir.Stmt) -> None:
        if isinstance(s, ir.TileDecl):
            if s.name in self.p.tiles or s.name in self.p.workspaces or s.name in self.env:
                raise DslError("decl.duplicate", f"`{s.name}` is declared twice", s.line)
            self.dtype(s.dtype)
            self.init_expr(s.capacity, "a tile capacity")
            self.p.tiles[s.name] = s
        elif isinstance(s, ir.WorkspaceDecl):
            if s.name in self.p.tiles or s.name in self.p.workspaces or s.name in self.env:
                raise DslError("decl.duplicate", f"`{s.name}` is declared twice", s.line)
            self.dtype(s.dtype)
            self.init_expr(s.size, "a workspace size")
            self.p.workspaces[s.name] = s
        elif isinstance(s, ir.CubeDecl):
            if s.name in self.p.tiles or s.name in self.p.workspaces or s.name in self.p.cubes or s.name in self.env:
                raise DslError("decl.duplicate", f"`{s.name}` is declared twice", s.line)
            for t in (s.a, s.b, s.bias):
                if t is not None:
                    self.gm_name(t, s.line)
            if s.c in self.p.tiles:
                self.ref(ir.TileRef(s.c, None, s.line))
            else:
                self.gm_name(s.c, s.line)
            for e in s.tile + s.shape:
                self.init_expr(e, "a cube unit's tile or shape")
            self.p.cubes[s.name] = s
        elif isinstance(s, ir.Matmul):
            if s.unit not in self.p.cubes:
                raise DslError("decl.order", f"cube unit `{s.unit}` is used before its A.cube declaration", s.line)
            if isinstance(s.out, ir.TileRef):
                self.ref(s.out)
            for v in (s.out, s.a, s.b, s.bias):
                if isinstance(v, ir.GmView):
                    self.gm_name(v.name, s.line)
                    self.index(v.offset, "a GM offset")
            for e in (s.m, s.n, s.k):
                self.index(e, "a matmul size")
        elif isinstance(s, (ir.Gather, ir.Scatter)):
            for r in (s.dst, s.src, s.idx):
                self.ref(r)
            self.index(s.n, "the element count")
            self.index(s.bound, "the index bound")
        elif isinstance(s, ir.Where):
            for r in (s.dst, s.cond, s.a, s.b):
                if isinstance(r, ir.TileRef):
                    self.ref(r)
                else:
                    self.number(r, "the value of A.where")
            self.index(s.n, "the element count")
        elif isinstance(s, ir.Assign):
            if isinstance(s.value, ir.Call) and s.value.func == "block_span":
                for a in s.value.args:
                    self.index(a, "A.block_span's argument")
                for t in s.targets:
                    self.bind(t, "index", s.line)
            else:
                self.bind(s.targets[0], self.expr(s.value), s.line)
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
                self.index(e, "a loop bound")
            for v in s.vars:
                self.bind(v, "index", s.line)
            self.block(s.body)
        elif isinstance(s, ir.Move):
            self.stmt(s.load)
            self.stmt(s.store)
        elif isinstance(s, ir.Load):
            self.ref(s.dst)
            self.gm_name(s.src, s.line)
            for e in (s.offset, s.n, s.rows, s.src_stride, s.dst_stride):
                if e is not None:
                    self.index(e, "a copy offset, count or stride")
            if s.pad is not None:
                self.number(s.pad, "the pad value")
        elif isinstance(s, ir.Store):
            self.ref(s.src)
            self.gm_name(s.dst, s.line)
            for e in (s.offset, s.n, s.rows, s.src_stride, s.dst_stride):
                if e is not None:
                    self.index(e, "a copy offset, count or stride")
        elif isinstance(s, ir.VecOp):
            self.ref(s.dst)
            for r in s.srcs:
                self.ref(r)
            self.index(s.n, "the element count")
            if s.scalar is not None:
                self.number(s.scalar, "the scalar operand")
        elif isinstance(s, ir.ScalarCall):
            if s.src is not None:
                self.ref(s.src)
            for a in s.args:
                if s.fn in ("sqrt", "exp", "ln"):
                    self.number(a, f"A.{s.fn}'s argument")
                else:
                    self.index(a, "the element count" if s.fn.startswith("reduce") else "the element index")
            if s.bound is not None:
                if self.tile_float(s.src):
                    raise DslError("type.index", "A.get(..., bound=) reads an index: the tile must hold integers",
                                   s.line, hint="bound= checks an index read from an integer tile (i32, i64)")
                self.index(s.bound, "the index bound")
            t = "scalar" if s.fn != "get" or self.tile_float(s.src) else "index"
            self.bind(s.target, t, s.line)
        elif isinstance(s, ir.SetValue):
            self.ref(s.tile)
            self.index(s.index, "the element index")
            self.number(s.value, "the value")
        elif isinstance(s, ir.Extern):
            for r in s.reads + s.writes:
                if isinstance(r, ir.TileRef):
                    self.ref(r)
            for e in s.params.values():
                self.number(e, "an extern parameter")
        elif isinstance(s, (ir.SyncAll, ir.Pass)):
            pass
        elif isinstance(s, ir.Assert):
            raise DslError("subset.construct", "assert is allowed in the tiling function, not in the kernel", s.line,
                           hint="check shapes in the tiling function (assert there fails the tiling)")
        else:
            raise DslError("subset.construct", f"{type(s).__name__} is not allowed in the kernel", s.line)

    def bind(self, name: str, t: str, line: int) -> None:
        if name in self.p.tiles or name in self.p.workspaces or name in self.gm or name in self.p.cubes:
            raise DslError("subset.assign", f"cannot assign to `{name}`: it is a tile or a GM tensor", line)
        if t not in ("index", "scalar", "bool"):
            raise DslError("type.mismatch", f"`{name}` would hold a {t}; kernel variables hold numbers", line)
        t = "index" if t == "bool" else t
        old = self.env.get(name)
        if old is not None and old != t:
            raise DslError("type.var", f"`{name}` was an {old} and is now a {t}", line,
                           hint="C++ gives every variable one type: use a new name, or float(...)/int(...)")
        self.env[name] = t

    def ref(self, r: ir.TileRef) -> None:
        if r.name not in self.p.tiles:
            raise DslError("decl.order", f"tile `{r.name}` is used before its declaration", r.line,
                           hint="declare tiles at the top of the kernel")
        if r.offset is not None:
            self.index(r.offset, "a view offset")

    def gm_name(self, name: str, line: int) -> None:
        if name not in self.gm and name not in self.p.workspaces:
            raise DslError("decl.order", f"`{name}` is not a GM tensor or a declared workspace", line)

    def dtype(self, e: ir.Expr) -> None:
        if isinstance(e, ir.DTypeConst):
            return
        if isinstance(e, ir.Name) and isinstance(self.p.constants.get(e.id), DType):
            return
        if isinstance(e, ir.Attr) and e.attr == "dtype":
            return
        raise DslError("type.mismatch", "a dtype must be A.<dtype> or x.dtype of a GM tensor", e.line)

    def init_expr(self, e: ir.Expr, what: str) -> None:
        """Declarations are evaluated in Init: only tiling fields, constants and literals."""
        for sub in ir.sub_exprs(e):
            if isinstance(sub, ir.Name) and sub.id not in self.p.constants and sub.id not in self.gm:
                raise DslError("decl.capacity", f"{what} may use tiling fields and constants only, not `{sub.id}`",
                               e.line, hint="compute the size in the tiling function and pass it as a field (t.tile)")
            if isinstance(sub, ir.Call) and sub.func in ("block_idx", "block_num"):
                raise DslError("decl.capacity", f"{what} may not depend on the block", e.line)
        self.index(e, what)

    def cond(self, e: ir.Expr) -> None:
        t = self.expr(e)
        if t not in ("bool", "index"):
            raise DslError("type.mismatch", "a condition must compare numbers", e.line)

    def index(self, e: ir.Expr, what: str) -> None:
        t = self.expr(e)
        if t not in ("index", "bool"):
            raise DslError("type.index", f"{what} must be an integer expression, not a {t}", e.line,
                           hint="use // for integer division; scalars from reductions are floats")

    def number(self, e: ir.Expr, what: str) -> None:
        t = self.expr(e)
        if t not in ("index", "scalar", "bool"):
            raise DslError("type.mismatch", f"{what} must be a number, not a {t}", e.line)

    def expr(self, e: ir.Expr) -> str:
        if isinstance(e, ir.Const):
            return "bool" if isinstance(e.value, bool) else "index" if isinstance(e.value, int) else "scalar"
        if isinstance(e, ir.DTypeConst):
            return "dtype"
        if isinstance(e, ir.Name):
            if e.id in self.env:
                return self.env[e.id]
            if e.id in self.p.tiles:
                raise DslError("type.mismatch", f"tile `{e.id}` used as a number", e.line,
                               hint="read an element with A.get(tile, i)")
            if e.id in self.gm or e.id in self.p.workspaces:
                raise DslError("type.mismatch", f"GM tensor `{e.id}` used as a number", e.line)
            if isinstance(self.p.constants.get(e.id), DType):
                return "dtype"
            raise DslError("type.undefined", f"`{e.id}` is used before it is assigned", e.line)
        if isinstance(e, ir.Field):
            if e.name not in self.p.field_types:
                raise DslError("tiling.field", f"the tiling function returns no field `{e.name}`", e.line,
                               hint=f"fields: {', '.join(self.p.field_types) or 'none'}")
            return "index" if self.p.field_types[e.name] == "int" else "scalar"
        if isinstance(e, ir.Attr):
            return "dtype"
        if isinstance(e, ir.BinOp):
            return self.binop(e.op, self.expr(e.left), self.expr(e.right), e.line)
        if isinstance(e, ir.Unary):
            t = self.expr(e.operand)
            return "bool" if e.op == "not" else ("index" if t == "bool" else t)
        if isinstance(e, (ir.Compare, ir.BoolOp)):
            for sub in ([e.left, e.right] if isinstance(e, ir.Compare) else e.values):
                if self.expr(sub) not in ("index", "scalar", "bool"):
                    raise DslError("type.mismatch", "comparisons take numbers", e.line)
            return "bool"
        if isinstance(e, ir.IfExp):
            self.cond(e.cond)
            return unify(self.expr(e.body), self.expr(e.orelse), e.line, "this conditional expression")
        if isinstance(e, ir.Call):
            args = [self.expr(a) for a in e.args]
            if e.func in ("block_idx", "block_num"):
                return "index"
            if e.func in ("min", "max"):
                t = args[0]
                for a in args[1:]:
                    t = unify(t, a, e.line, f"{e.func}(...)")
                return t
            if e.func == "abs":
                return args[0]
            if e.func == "int":
                return "index"
            if e.func == "float":
                return "scalar"
            if e.func in ("elems_per_block", "elems_per_repeat"):
                if args[0] != "dtype":
                    raise DslError("type.mismatch", f"A.{e.func} takes a dtype", e.line)
                return "index"
            if e.func == "block_span":
                raise DslError("call.result", "use: lo, hi = A.block_span(total[, align])", e.line)
            for a, arg in zip(args, e.args):
                if a not in ("index", "bool"):
                    raise DslError("type.index", f"A.{e.func} takes integers", arg.line)
            return "index"
        raise DslError("subset.construct", f"{type(e).__name__} is not allowed in the kernel", e.line)

    def binop(self, op: str, a: str, b: str, line: int) -> str:
        if a not in ("index", "scalar", "bool") or b not in ("index", "scalar", "bool"):
            raise DslError("type.mismatch", f"`{op}` between a {a} and a {b}", line)
        if op == "**":
            raise DslError("scalar.math", "`**` is not available in the kernel", line,
                           hint="multiply explicitly (x * x), or compute the power in the tiling function")
        if "scalar" in (a, b):
            if op in ("//", "%"):
                raise DslError("type.index", f"`{op}` takes integers; a scalar is a float", line)
            return "scalar"
        if op == "/":
            raise DslError("type.index", "`/` between integers: use // for integer division", line,
                           hint="or make one side a float (1.0 * a / b) for a scalar")
        return "index"
