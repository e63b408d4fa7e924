"""Host expressions and statements -> C++ for TilingFunc and InferShape. Types follow the static
host types: int -> int64_t, float -> double, bool -> bool, shape -> KwDims, dtype -> ge::DataType,
tensor -> KwTensor. Floor division and modulo go through helpers with Python's semantics, so the
C++ computes exactly what our evaluator computed."""
from __future__ import annotations

from kernelwright.tools.cpp_text import comment_text
from kernelwright.tools.dsl import ir
from kernelwright.tools.dsl.codegen.cpp_expr import float_lit, int_lit, safe
from kernelwright.tools.dsl.dtypes import DType, DTYPES
from kernelwright.tools.dsl.types_host import HostTypes

# On-chip memories the tiling language reads (hw.<attr>): PlatformAscendC memory type and C++ local.
MEMORIES = (("l1_bytes", "L1"), ("l0a_bytes", "L0_A"), ("l0b_bytes", "L0_B"), ("l0c_bytes", "L0_C"))
HW_LOCALS = {"l1_bytes": "hwL1Bytes", "l0a_bytes": "hwL0aBytes", "l0b_bytes": "hwL0bBytes", "l0c_bytes": "hwL0cBytes"}

CTYPE = {"int": "int64_t", "float": "double", "bool": "bool", "shape": "KwDims", "dtype": "ge::DataType"}

HOST_HELPERS = """struct KwDims {
    int64_t d[8];
    int64_t n;
};
struct KwTensor {
    KwDims dims;
    ge::DataType dtype;
};
inline KwDims KwDimsOf(const gert::Shape& s)
{
    KwDims r{{0}, static_cast<int64_t>(s.GetDimNum())};
    for (int64_t i = 0; i < r.n && i < 8; ++i) r.d[i] = s.GetDim(i);
    return r;
}
inline int64_t KwProd(const KwDims& s)
{
    int64_t p = 1;
    for (int64_t i = 0; i < s.n; ++i) p *= s.d[i];
    return p;
}
inline int64_t KwDim(const KwDims& s, int64_t i) { return (i >= -s.n && i < s.n) ? s.d[i < 0 ? i + s.n : i] : 0; }
// Python slice s[lo:hi] (negative bounds count from the end; out-of-range bounds are clamped).
inline KwDims KwSlice(const KwDims& s, int64_t lo, int64_t hi)
{
    lo = lo < 0 ? (lo + s.n < 0 ? 0 : lo + s.n) : (lo > s.n ? s.n : lo);
    hi = hi < 0 ? (hi + s.n < 0 ? 0 : hi + s.n) : (hi > s.n ? s.n : hi);
    KwDims r{{0}, 0};
    for (int64_t i = lo; i < hi; ++i) r.d[r.n++] = s.d[i];
    return r;
}
inline KwDims KwCat(const KwDims& a, const KwDims& b)
{
    KwDims r = a;
    for (int64_t i = 0; i < b.n && r.n < 8; ++i) r.d[r.n++] = b.d[i];
    return r;
}
inline void KwSetShape(gert::Shape* out, const KwDims& s)
{
    out->SetDimNum(s.n);
    for (int64_t i = 0; i < s.n; ++i) out->SetDim(i, s.d[i]);
}
inline int64_t KwFloorDiv(int64_t a, int64_t b) { int64_t q = a / b; return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q; }
inline int64_t KwFloorMod(int64_t a, int64_t b) { int64_t m = a % b; return (m != 0 && ((m < 0) != (b < 0))) ? m + b : m; }
inline double KwFloorDivF(double a, double b) { return std::floor(a / b); }
inline double KwFloorModF(double a, double b) { return a - std::floor(a / b) * b; }
inline int64_t KwCeilDiv(int64_t a, int64_t b) { return KwFloorDiv(a + b - 1, b); }
inline int64_t KwAlignUp(int64_t a, int64_t b) { return KwCeilDiv(a, b) * b; }
inline int64_t KwAlignDown(int64_t a, int64_t b) { return KwFloorDiv(a, b) * b; }
inline int64_t KwPow(int64_t a, int64_t b) { int64_t r = 1; for (int64_t i = 0; i < b; ++i) r *= a; return r; }
inline int64_t KwSize(ge::DataType t) { return static_cast<int64_t>(ge::GetSizeByDataType(t)); }
inline int64_t KwMinI(int64_t a, int64_t b) { return a < b ? a : b; }
inline int64_t KwMaxI(int64_t a, int64_t b) { return a > b ? a : b; }
inline double KwMinF(double a, double b) { return a < b ? a : b; }
inline double KwMaxF(double a, double b) { return a > b ? a : b; }"""


class HostCpp:
    """Renders one host function. `fail` is the statement that rejects the case (return GRAPH_FAILED)."""

    def __init__(self, program: ir.Program, fn: ir.HostFunc):
        self.p, self.fn = program, fn
        self.types = HostTypes(program, fn)
        self.types.env = dict(program.host_types.get(fn.kind, {}))
        self.source = program.source.splitlines()
        self.n = 0

    def t(self, e: ir.Expr) -> str:
        return self.types.expr(e)

    def comment(self, s: ir.Stmt) -> str:
        text = self.source[s.line - 1].strip() if 0 < s.line <= len(self.source) else ""
        return f"// line {s.line}: {comment_text(text)}"

    def locals(self) -> list[str]:
        params = set(self.fn.params)
        out = []
        for name, t in sorted(self.types.env.items()):
            if name in params or name in self.p.constants or t not in CTYPE:
                continue
            init = "{{0}, 0}" if t == "shape" else "ge::DT_UNDEFINED" if t == "dtype" else "0"
            out.append(f"{CTYPE[t]} {safe(name)} = {init};")
        return out

    def block(self, stmts: list[ir.Stmt], ind: str) -> list[str]:
        out = []
        for s in stmts:
            out += self.stmt(s, ind)
        return out

    def stmt(self, s: ir.Stmt, ind: str) -> list[str]:
        out = [ind + self.comment(s)]
        if isinstance(s, ir.Assign):
            if len(s.targets) == 1:
                out.append(f"{ind}{safe(s.targets[0])} = {self.typed(s.value, self.types.env[s.targets[0]])};")
            elif isinstance(s.value, ir.TupleExpr):
                for name, item in zip(s.targets, s.value.items):
                    out.append(f"{ind}{safe(name)} = {self.typed(item, self.types.env[name])};")
            else:
                self.n += 1
                tmp = f"kwUnpack{self.n}"
                out.append(f"{ind}const KwDims {tmp} = {self.expr(s.value)};")
                out.append(f"{ind}if ({tmp}.n != {len(s.targets)}) {{")
                out.append(f"{ind}    return ge::GRAPH_FAILED;   // the rank is not {len(s.targets)}")
                out.append(f"{ind}}}")
                for i, name in enumerate(s.targets):
                    out.append(f"{ind}{safe(name)} = {tmp}.d[{i}];")
        elif isinstance(s, ir.AugAssign):
            t = self.types.env[s.target]
            out.append(f"{ind}{safe(s.target)} = {self.binop(s.op, ir.Name(s.line, s.target), s.value, t)};")
        elif isinstance(s, ir.If):
            out.append(f"{ind}if ({self.expr(s.cond)}) {{")
            out += self.block(s.body, ind + "    ")
            if s.orelse:
                out.append(f"{ind}}} else {{")
                out += self.block(s.orelse, ind + "    ")
            out.append(f"{ind}}}")
        elif isinstance(s, ir.For):
            self.n += 1
            k = self.n
            out.append(f"{ind}for (int64_t kwI{k} = {self.expr(s.start)}, kwStop{k} = {self.expr(s.stop)}, "
                       f"kwStep{k} = {self.expr(s.step)}; kwI{k} < kwStop{k}; kwI{k} += kwStep{k}) {{")
            out.append(f"{ind}    {safe(s.vars[0])} = kwI{k};")
            out += self.block(s.body, ind + "    ")
            out.append(f"{ind}}}")
        elif isinstance(s, ir.Assert):
            out.append(f"{ind}if (!({self.expr(s.cond)})) {{")
            out.append(f"{ind}    return ge::GRAPH_FAILED;   // {comment_text(s.msg or 'assertion failed')}")
            out.append(f"{ind}}}")
        elif isinstance(s, ir.Pass):
            pass
        return out

    def typed(self, e: ir.Expr, want: str) -> str:
        got = self.t(e)
        text = self.expr(e)
        if want == "float" and got != "float":
            return f"static_cast<double>({text})"
        if want == "int" and got == "bool":
            return f"static_cast<int64_t>({text})"
        return text

    def expr(self, e: ir.Expr) -> str:
        if isinstance(e, ir.Const):
            v = e.value
            return ("true" if v else "false") if isinstance(v, bool) else int_lit(v) if isinstance(v, int) else \
                float_lit(v, "")
        if isinstance(e, ir.DTypeConst):
            return f"ge::{DTYPES[e.dtype].ge}"
        if isinstance(e, ir.Name):
            c = self.p.constants.get(e.id)
            if isinstance(c, DType):
                return f"ge::{c.ge}"
            if c is not None:
                return ("true" if c else "false") if isinstance(c, bool) else int_lit(c) if isinstance(c, int) \
                    else float_lit(c, "")
            if e.id == "hw":
                return "hw"
            return safe(e.id)
        if isinstance(e, ir.Attr):
            obj = self.expr(e.obj)
            base = self.t(e.obj)
            if base == "tensor":
                return {"shape": f"{obj}.dims", "dtype": f"{obj}.dtype", "numel": f"KwProd({obj}.dims)",
                        "ndim": f"{obj}.dims.n"}[e.attr]
            if base == "dtype":
                return f"KwSize({obj})"
            return {"ub_bytes": "hwUbBytes", "vector_cores": "hwVectorCores", "cube_cores": "hwCubeCores",
                    **HW_LOCALS}[e.attr]
        if isinstance(e, ir.BinOp):
            return self.binop(e.op, e.left, e.right, self.t(e))
        if isinstance(e, ir.Unary):
            return f"(!{self.expr(e.operand)})" if e.op == "not" else f"(-{self.expr(e.operand)})"
        if isinstance(e, ir.Compare):
            return f"({self.expr(e.left)} {e.op} {self.expr(e.right)})"
        if isinstance(e, ir.BoolOp):
            return "(" + (" && " if e.op == "and" else " || ").join(self.expr(v) for v in e.values) + ")"
        if isinstance(e, ir.IfExp):
            t = self.t(e)
            return f"({self.expr(e.cond)} ? {self.typed(e.body, t)} : {self.typed(e.orelse, t)})"
        if isinstance(e, ir.Call):
            return self.call(e)
        if isinstance(e, ir.Subscript):
            return f"KwDim({self.expr(e.obj)}, {self.expr(e.index)})"
        if isinstance(e, ir.SliceOf):
            lo = self.expr(e.lo) if e.lo is not None else "0"
            hi = self.expr(e.hi) if e.hi is not None else "INT64_MAX"
            return f"KwSlice({self.expr(e.obj)}, {lo}, {hi})"
        if isinstance(e, ir.TupleExpr):
            return f"KwDims{{{{{', '.join(self.expr(i) for i in e.items)}}}, {len(e.items)}}}"
        raise ValueError(f"cannot render {type(e).__name__}")

    def binop(self, op: str, left: ir.Expr, right: ir.Expr, t: str) -> str:
        a, b = self.expr(left), self.expr(right)
        if t == "shape":
            return f"KwCat({a}, {b})"
        if op == "/":
            return f"(static_cast<double>({a}) / static_cast<double>({b}))"
        if t == "float":
            a, b = self.typed(left, "float"), self.typed(right, "float")
            if op == "//":
                return f"KwFloorDivF({a}, {b})"
            if op == "%":
                return f"KwFloorModF({a}, {b})"
            if op == "**":
                return f"std::pow({a}, {b})"
            return f"({a} {op} {b})"
        if op == "//":
            return f"KwFloorDiv({a}, {b})"
        if op == "%":
            return f"KwFloorMod({a}, {b})"
        if op == "**":
            return f"KwPow({a}, {b})"
        return f"({a} {op} {b})"

    def call(self, e: ir.Call) -> str:
        f = e.func
        t = self.t(e)
        if f in ("min", "max"):
            helper = f"Kw{f.capitalize()}{'F' if t == 'float' else 'I'}"
            text = self.typed(e.args[0], t)
            for a in e.args[1:]:
                text = f"{helper}({text}, {self.typed(a, t)})"
            return text
        if f == "abs":
            return f"std::fabs({self.expr(e.args[0])})" if t == "float" else f"std::llabs({self.expr(e.args[0])})"
        if f == "int":
            return f"static_cast<int64_t>({self.expr(e.args[0])})"
        if f == "float":
            return f"static_cast<double>({self.expr(e.args[0])})"
        if f == "len":
            return f"{self.expr(e.args[0])}.n"
        if f == "prod":
            return f"KwProd({self.expr(e.args[0])})"
        if f == "elems_per_block":
            return f"(32 / KwSize({self.expr(e.args[0])}))"
        if f == "elems_per_repeat":
            return f"(256 / KwSize({self.expr(e.args[0])}))"
        name = {"ceil_div": "KwCeilDiv", "align_up": "KwAlignUp", "align_down": "KwAlignDown"}[f]
        return f"{name}({', '.join(self.typed(a, 'int') for a in e.args)})"
