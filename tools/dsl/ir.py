"""The typed IR of a DSL program. Every node keeps its source line. The parser builds it, the
static rules read it, the interpreter runs it and the code generator lowers it: one IR, three
consumers, so what is checked is what is run is what is emitted."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Union

from kernelwright.tools.dsl.ir_expr import (  # noqa: F401  (the IR's expression nodes, used as ir.<Node>)
    Attr, BinOp, BoolOp, Call, Compare, Const, DictExpr, DTypeConst, Expr, Field, IfExp, Name, SliceOf, Subscript,
    TilingCall, TupleExpr, Unary,
)


# ---------------------------------------------------------------- statements
@dataclass
class Stmt:
    line: int


@dataclass
class Assign(Stmt):
    targets: list[str]              # one name, or several for tuple unpacking
    value: Expr


@dataclass
class AugAssign(Stmt):
    target: str
    op: str
    value: Expr


@dataclass
class If(Stmt):
    cond: Expr
    body: list[Stmt]
    orelse: list[Stmt]


@dataclass
class For(Stmt):
    kind: str                       # "range" (host range / A.range) | "tiles" (A.tiles)
    vars: list[str]                 # [i] for range, [off, n] for tiles
    start: Expr
    stop: Expr
    step: Expr                      # range step, or the tile length of A.tiles
    body: list[Stmt]
    stages: int = 1                 # A.tiles(..., stages=2): double-buffered queues
    index: int = -1                 # number of an A.tiles loop (CopyIn<k>/Compute<k>/CopyOut<k>)


@dataclass
class Assert(Stmt):
    cond: Expr
    msg: str | None


@dataclass
class Return(Stmt):
    value: Expr


@dataclass
class Pass(Stmt):
    pass


@dataclass
class TileRef:
    """A tile, or a view of it from element `offset` (`t[k:]`)."""
    name: str
    offset: Expr | None
    line: int


@dataclass
class TileDecl(Stmt):
    name: str
    dtype: Expr                     # DTypeConst or Attr(Name(gm), "dtype")
    capacity: Expr                  # elements, over tiling fields and constants


@dataclass
class WorkspaceDecl(Stmt):
    name: str
    dtype: Expr
    size: Expr                      # elements


@dataclass
class Load(Stmt):
    dst: TileRef
    src: str                        # GM tensor
    offset: Expr
    n: Expr
    rows: Expr | None = None        # 2-D: rows of n elements
    src_stride: Expr | None = None  # GM elements between row starts
    dst_stride: Expr | None = None  # UB elements between row starts (multiple of the 32-byte block)
    pad: Expr | None = None         # value for the lanes up to the next 32-byte boundary


@dataclass
class Store(Stmt):
    dst: str
    offset: Expr
    src: TileRef
    n: Expr
    rows: Expr | None = None
    src_stride: Expr | None = None  # UB elements between row starts
    dst_stride: Expr | None = None  # GM elements between row starts
    atomic: str | None = None       # "add"


@dataclass
class Move(Stmt):
    """A.move: GM -> UB -> GM through the `via` tile, by the copy engines alone. Held as the load and the store
    it is made of (the UB rows packed at align_up(n) elements), so checks and lowering reuse theirs."""
    load: Load
    store: Store


@dataclass
class VecOp(Stmt):
    op: str                         # AscendC name: Add, Muls, Exp, Cast, Duplicate, ReduceSum, ... or "copy"
    dst: TileRef
    srcs: list[TileRef]
    n: Expr
    scalar: Expr | None = None
    mode: str | None = None         # Cast round mode


@dataclass
class ScalarCall(Stmt):
    """`name = A.reduce_sum(t, n)` / `A.get(t, i)` / `A.sqrt(s)`...: a scalar produced by the vector unit."""
    target: str
    fn: str                         # reduce_sum reduce_max reduce_min reduce_prod get sqrt exp ln
    src: TileRef | None
    args: list[Expr]
    bound: Expr | None = None       # A.get(t, i, bound=B): an index checked to lie in [0, B)


@dataclass
class GmView:
    """A GM tensor (or workspace) from element `offset` (`x[off:]`)."""
    name: str
    offset: Expr
    line: int


@dataclass
class CubeDecl(Stmt):
    """`mm = A.cube(a, b, c, tile=(m, n, k), shape=(M, N, K), ...)`: one Matmul API object."""
    name: str
    a: str                          # GM tensors or workspaces
    b: str
    c: str                          # a GM tensor / workspace, or a UB tile (vector epilogue)
    tile: list[Expr]                # the largest m, n, k of one A.matmul
    shape: list[Expr]               # M, N, K of the whole matrices: the row strides
    trans_a: bool = False
    trans_b: bool = False
    bias: str | None = None


@dataclass
class Matmul(Stmt):
    unit: str
    out: TileRef | GmView
    a: GmView
    b: GmView
    m: Expr
    n: Expr
    k: Expr
    bias: GmView | None = None
    atomic: str | None = None


@dataclass
class Gather(Stmt):
    dst: TileRef
    src: TileRef
    idx: TileRef
    n: Expr
    bound: Expr


@dataclass
class Scatter(Stmt):
    dst: TileRef
    idx: TileRef
    src: TileRef
    n: Expr
    bound: Expr
    add: bool = False


@dataclass
class Where(Stmt):
    dst: TileRef
    cond: TileRef
    a: TileRef | Expr               # one of a and b may be a number
    b: TileRef | Expr
    n: Expr


@dataclass
class SetValue(Stmt):
    tile: TileRef
    index: Expr
    value: Expr


@dataclass
class SyncAll(Stmt):
    pass


@dataclass
class Extern(Stmt):
    """A hole: what the generator cannot emit, with the spec an LLM lowering pass fills it from."""
    name: str
    spec: str
    reads: list[TileRef | str]
    writes: list[TileRef | str]
    numpy: str                      # semantics callback name (interpreter registry)
    params: dict[str, Expr] = field(default_factory=dict)


Ref = Union[TileRef, str]


# ---------------------------------------------------------------- program
@dataclass
class HostFunc:
    name: str
    kind: str                       # "tiling" | "shapes"
    params: list[str]
    body: list[Stmt]
    line: int


@dataclass
class KernelFunc:
    name: str
    gm_params: list[str]            # inputs then outputs, in order
    tiling_param: str
    body: list[Stmt]
    line: int


@dataclass
class TensorSig:
    name: str
    dtypes: tuple[str, ...]         # one per dtype column of the OpDef
    same_as: str | None = None      # outputs: "x" = the dtype column of input x


@dataclass
class AttrSig:
    name: str
    kind: str                       # int | float | bool | list_int
    default: Any


@dataclass
class Signature:
    inputs: list[TensorSig]
    outputs: list[TensorSig]
    attrs: list[AttrSig]

    @property
    def columns(self) -> int:
        return max((len(t.dtypes) for t in self.inputs + self.outputs), default=1)

    def tensor(self, name: str) -> TensorSig | None:
        return next((t for t in self.inputs + self.outputs if t.name == name), None)


@dataclass
class Program:
    source: str
    filename: str
    doc: str
    constants: dict[str, Any]
    sig: Signature
    tiling: HostFunc
    shapes: HostFunc | None
    kernel: KernelFunc
    kernel_types: dict[str, str] = field(default_factory=dict)   # kernel variable -> index | scalar
    tiles: dict[str, TileDecl] = field(default_factory=dict)
    workspaces: dict[str, WorkspaceDecl] = field(default_factory=dict)
    cubes: dict[str, CubeDecl] = field(default_factory=dict)
    field_types: dict[str, str] = field(default_factory=dict)    # tiling field -> int | float
    host_types: dict[str, dict[str, str]] = field(default_factory=dict)  # host function -> variable -> type

    @property
    def op_name(self) -> str:
        return "".join(p[:1].upper() + p[1:] for p in self.kernel.name.split("_") if p)


def walk(stmts: list[Stmt]):
    """Every statement, depth first, in source order."""
    for s in stmts:
        yield s
        if isinstance(s, If):
            yield from walk(s.body)
            yield from walk(s.orelse)
        elif isinstance(s, For):
            yield from walk(s.body)


def child_blocks(s: Stmt) -> list[list[Stmt]]:
    if isinstance(s, If):
        return [s.body, s.orelse]
    if isinstance(s, For):
        return [s.body]
    return []


def exprs_of(node: Any):
    """Every expression directly held by a statement or expression (not recursing into statements)."""
    from dataclasses import fields as dc_fields
    for f in dc_fields(node):
        v = getattr(node, f.name)
        items = v if isinstance(v, list) else list(v.values()) if isinstance(v, dict) else [v]
        for item in items:
            if isinstance(item, Expr):
                yield item
            elif isinstance(item, TileRef) and item.offset is not None:
                yield item.offset
            elif isinstance(item, GmView):
                yield item.offset


def sub_exprs(e: Expr):
    """`e` and every expression inside it."""
    yield e
    for child in exprs_of(e):
        yield from sub_exprs(child)
