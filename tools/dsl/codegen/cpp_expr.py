"""IR expressions -> C++ text. Kernel: index = int64_t, scalar = float (literals get an `f` so no
double arithmetic sneaks in). Host: int = int64_t, float = double, shapes = KwDims, with helpers
that keep Python's floor division and modulo."""
from __future__ import annotations

import math

from kernelwright.tools.dsl import ir
from kernelwright.tools.dsl.dtypes import DTYPES, DType
from kernelwright.tools.dsl.roles import kernel_kind
from kernelwright.tools.dsl.types_kernel import KernelTypes

CPP_KEYWORDS = {
    "alignas", "alignof", "and", "asm", "auto", "bool", "break", "case", "catch", "char", "class", "const", "constexpr",
    "continue", "default", "delete", "do", "double", "else", "enum", "explicit", "export", "extern", "false", "float",
    "for", "friend", "goto", "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not",
    "nullptr", "operator", "or", "private", "protected", "public", "register", "return", "short", "signed", "sizeof",
    "static", "struct", "switch", "template", "this", "throw", "true", "try", "typedef", "typename", "union",
    "unsigned", "using", "virtual", "void", "volatile", "while", "xor", "half", "pipe", "context", "tiling",
    "workspace", "op", "platform", "min", "max", "abs", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t",
    "uint16_t", "uint32_t", "uint64_t", "size_t", "bfloat16_t", "ge", "gert", "ops", "optiling", "AscendC",
}


def safe(name: str) -> str:
    """A DSL name as a C++ identifier (the same name unless it collides with C++ or our own names)."""
    return f"{name}_" if name in CPP_KEYWORDS or name.startswith("kw") or name.startswith("Kw") else name


def float_lit(v: float, suffix: str = "f") -> str:
    if math.isinf(v):
        return ("-" if v < 0 else "") + ("__builtin_inff()" if suffix else "__builtin_inf()")
    if math.isnan(v):
        return "__builtin_nanf(\"\")" if suffix else "__builtin_nan(\"\")"
    text = repr(float(v))
    if "e" not in text and "." not in text:
        text += ".0"
    return text + suffix


def int_lit(v: int) -> str:
    return f"{v}LL" if not -(1 << 31) <= v < (1 << 31) else str(v)


class KernelExpr:
    """Kernel expressions over members (variables), `t` (tiling data) and GM dtypes (DTYPE_<X>)."""

    def __init__(self, program: ir.Program, tiling_member: str, names: dict[str, str]):
        self.p, self.t, self.names = program, tiling_member, names
        self.helpers: set[str] = set()
        self.mix = kernel_kind(program) == "mix"         # MIX: vector cores run in pairs per block

    def type_of(self, e: ir.Expr) -> str:
        kt = KernelTypes(self.p)
        kt.env = dict(self.p.kernel_types)
        for k, v in self.p.constants.items():
            if not isinstance(v, DType):
                kt.env[k] = "bool" if isinstance(v, bool) else "index" if isinstance(v, int) else "scalar"
        t = kt.expr(e)
        return "index" if t == "bool" else t

    def dtype(self, e: ir.Expr) -> str:
        if isinstance(e, ir.DTypeConst):
            return DTYPES[e.dtype].ctype
        if isinstance(e, ir.Name):
            return self.p.constants[e.id].ctype
        if isinstance(e, ir.Attr) and isinstance(e.obj, ir.Name):
            return gm_ctype(self.p, e.obj.id, self)
        raise ValueError(f"not a dtype: {e}")

    def as_float(self, e: ir.Expr) -> str:
        if isinstance(e, ir.Const) and not isinstance(e.value, bool):
            return float_lit(float(e.value))
        text = self.expr(e)
        return text if self.type_of(e) == "scalar" else f"static_cast<float>({text})"

    def expr(self, e: ir.Expr) -> str:
        if isinstance(e, ir.Const):
            if isinstance(e.value, bool):
                return "1" if e.value else "0"
            return int_lit(e.value) if isinstance(e.value, int) else float_lit(e.value)
        if isinstance(e, ir.Name):
            c = self.p.constants.get(e.id)
            if c is not None and not isinstance(c, DType):
                return ir_const(c)
            return self.names.get(e.id, safe(e.id))
        if isinstance(e, ir.Field):
            return f"{self.t}.{e.name}"
        if isinstance(e, ir.BinOp):
            scalar = self.type_of(e) == "scalar"
            a = self.as_float(e.left) if scalar else self.expr(e.left)
            b = self.as_float(e.right) if scalar else self.expr(e.right)
            op = {"//": "/"}.get(e.op, e.op)          # index division: operands are checked non-negative
            return f"({a} {op} {b})"
        if isinstance(e, ir.Unary):
            return f"(!{self.expr(e.operand)})" if e.op == "not" else f"(-{self.expr(e.operand)})"
        if isinstance(e, ir.Compare):
            mixed = "scalar" in (self.type_of(e.left), self.type_of(e.right))
            a = self.as_float(e.left) if mixed else self.expr(e.left)
            b = self.as_float(e.right) if mixed else self.expr(e.right)
            return f"({a} {e.op} {b})"
        if isinstance(e, ir.BoolOp):
            return "(" + (" && " if e.op == "and" else " || ").join(self.expr(v) for v in e.values) + ")"
        if isinstance(e, ir.IfExp):
            scalar = self.type_of(e) == "scalar"
            conv = self.as_float if scalar else self.expr
            return f"({self.expr(e.cond)} ? {conv(e.body)} : {conv(e.orelse)})"
        if isinstance(e, ir.Call):
            return self.call(e)
        raise ValueError(f"cannot render {type(e).__name__}")

    def call(self, e: ir.Call) -> str:
        f = e.func
        if f == "block_idx":
            return "static_cast<int64_t>(GetBlockIdx())"
        if f == "block_num":
            return "static_cast<int64_t>(KwBlockNum())" if self.mix else "static_cast<int64_t>(GetBlockNum())"
        if f in ("elems_per_block", "elems_per_repeat"):
            return f"static_cast<int64_t>({32 if f == 'elems_per_block' else 256} / sizeof({self.dtype(e.args[0])}))"
        if f in ("min", "max"):
            scalar = self.type_of(e) == "scalar"
            conv = self.as_float if scalar else self.expr
            self.helpers.add("minmax")
            text = conv(e.args[0])
            for a in e.args[1:]:
                text = f"Kw{f.capitalize()}({text}, {conv(a)})"
            return text
        if f == "abs":
            self.helpers.add("minmax")
            return f"KwAbs({self.expr(e.args[0])})"
        if f == "int":
            return f"static_cast<int64_t>({self.expr(e.args[0])})"
        if f == "float":
            return f"static_cast<float>({self.expr(e.args[0])})"
        self.helpers.add("int")
        name = {"ceil_div": "KwCeilDiv", "align_up": "KwAlignUp", "align_down": "KwAlignDown"}[f]
        return f"{name}({', '.join(self.expr(a) for a in e.args)})"


def gm_ctype(program: ir.Program, name: str, x: "KernelExpr") -> str:
    """Element type of a GM tensor: its dtype column's DTYPE_<NAME> macro, uint8_t for bool data (handled
    as bytes), a workspace's declared type."""
    ws = program.workspaces.get(name)
    if ws is not None:
        return x.dtype(ws.dtype)
    sig = program.sig.tensor(name)
    if sig is not None and all(d == "bool" for d in sig.dtypes):
        return "uint8_t"
    return f"DTYPE_{name.upper()}"


def ir_const(v) -> str:
    if isinstance(v, bool):
        return "1" if v else "0"
    return int_lit(v) if isinstance(v, int) else float_lit(v)


KERNEL_HELPERS = {
    "minmax": """__aicore__ inline int64_t KwMin(int64_t a, int64_t b) { return a < b ? a : b; }
__aicore__ inline int64_t KwMax(int64_t a, int64_t b) { return a > b ? a : b; }
__aicore__ inline float KwMin(float a, float b) { return a < b ? a : b; }
__aicore__ inline float KwMax(float a, float b) { return a > b ? a : b; }
__aicore__ inline int64_t KwAbs(int64_t a) { return a < 0 ? -a : a; }
__aicore__ inline float KwAbs(float a) { return a < 0 ? -a : a; }""",
    "int": """__aicore__ inline int64_t KwCeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
__aicore__ inline int64_t KwAlignUp(int64_t a, int64_t b) { return (a + b - 1) / b * b; }
__aicore__ inline int64_t KwAlignDown(int64_t a, int64_t b) { return a / b * b; }""",
}
