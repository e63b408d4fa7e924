"""The kernel function: one block's work, written as CopyIn (A.load) / Compute (vector
instructions with explicit element counts) / CopyOut (A.store), with tiles declared at the top."""
from __future__ import annotations

import ast

from kernelwright.tools.dsl import ir
from kernelwright.tools.dsl.errors import DslError
from kernelwright.tools.dsl.optable import ROUND_MODES, ops
from kernelwright.tools.dsl.parse_expr import dotted, reject
from kernelwright.tools.dsl.parse_prims import TABLE_STATEMENTS, PrimParser
from kernelwright.tools.dsl.parse_stmt import StmtParser, call_name
from kernelwright.tools.dsl.primitives import bind, prims

ARGS = {  # positional operands after dst, by form
    "binary": ("dst", "src0", "src1", "n"), "scalar": ("dst", "src", "scalar", "n"), "unary": ("dst", "src", "n"),
    "advanced": ("dst", "src", "n"), "fill": ("dst", "value", "n"), "reduce": ("dst", "src", "n"),
    "cast": ("dst", "src", "round", "n"), "copy": ("dst", "src", "n"),
}
SCALAR_FNS = {"reduce_sum": "tile", "reduce_max": "tile", "reduce_min": "tile", "reduce_prod": "tile", "get": "get",
              "sqrt": "scalar", "exp": "scalar", "ln": "scalar"}
STATEMENTS = ("A.load, A.store, A.move, A.<Instruction>(...) (Add, Muls, Exp, Cast, Duplicate, ReduceSum, ...), "
              "A.copy, A.set, A.gather, A.scatter, A.scatter_add, A.where, A.matmul, A.sync_all, A.extern")


class KernelParser(PrimParser, StmtParser):
    loops = "A.range(start, stop[, step], stages=1|2) and A.tiles(start, stop, tile, stages=1|2)"
    extra = f"; calls: {STATEMENTS}"

    def __init__(self, gm: set[str], tiling_param: str, constants: dict, tiles: set[str], workspaces: set[str],
                 cubes: set[str] = frozenset()):
        super().__init__("kernel", gm, constants, tiling_param=tiling_param)
        self.tile_names = tiles
        self.gm_names = gm | workspaces
        self.cube_names = set(cubes)
        self.n_tiles_loops = 0

    # ---- operands
    def tile(self, node: ast.AST, role: str) -> ir.TileRef:
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Name):
            if node.id in self.tile_names:
                return ir.TileRef(node.id, None, line)
            raise self.not_a_tile(node.id, role, line)
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and isinstance(node.slice, ast.Slice):
            sl = node.slice
            if node.value.id not in self.tile_names:
                raise self.not_a_tile(node.value.id, role, line)
            if sl.upper is not None or sl.step is not None or sl.lower is None:
                raise reject(node, f"the view {ast.unparse(node)}",
                             "t[k:] (a view from element k; the element count is the instruction's n)")
            return ir.TileRef(node.value.id, self.expr(sl.lower), line)
        raise DslError("call.operand", f"{role} must be a tile or a tile view t[k:], got `{ast.unparse(node)}`", line,
                       hint="a number or an expression is not an operand here: fill a tile with A.Duplicate(t, value, n)")

    def not_a_tile(self, name: str, role: str, line: int) -> DslError:
        if name in self.tensors:
            return DslError("call.operand", f"{role} `{name}` is a GM tensor; vector instructions work on UB tiles",
                            line, hint="A.load it into a tile declared with A.ub(...) first")
        return DslError("call.operand", f"{role} `{name}` is not a tile", line,
                        hint=f"declare it at the top of the kernel: {name} = A.ub(A.f32, t.tile)")

    def gm_view(self, node: ast.AST, role: str) -> tuple[str, ir.Expr]:
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Name) and node.id in self.gm_names:
            return node.id, ir.Const(line, 0)
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in self.gm_names \
                and isinstance(node.slice, ast.Slice) and node.slice.lower is not None \
                and node.slice.upper is None and node.slice.step is None:
            return node.value.id, self.expr(node.slice.lower)
        raise DslError("call.operand", f"{role} must be a GM tensor or a view x[offset:], got `{ast.unparse(node)}`",
                       line, hint="A.load(tile, x[off:], n) / A.store(y[off:], tile, n)")

    def keywords(self, call: ast.Call, allowed: set[str]) -> dict[str, ast.AST]:
        out = {}
        for kw in call.keywords:
            if kw.arg is None or kw.arg not in allowed:
                raise DslError("call.args", f"{dotted(call.func)} has no keyword `{kw.arg}`", call.lineno,
                               hint=f"keywords: {', '.join(sorted(allowed)) or 'none'}")
            out[kw.arg] = kw.value
        return out

    # ---- statements
    def for_loop(self, node: ast.For) -> ir.Stmt:
        name = call_name(node.iter)
        line = node.lineno
        if name == "A.range":
            if not isinstance(node.target, ast.Name):
                raise reject(node, f"the loop target {ast.unparse(node.target)}", "for i in A.range(...)")
            stages = self.stages(node.iter)
            plain = ast.Call(func=node.iter.func, args=node.iter.args, keywords=[], lineno=line)
            start, stop, step = self.range_args(plain, "A.range")
            self.check_target(node.target.id, line)
            index = self.n_tiles_loops
            self.n_tiles_loops += 1
            return ir.For(line, "range", [node.target.id], start, stop, step, self.block(node.body), stages, index)
        if name == "A.tiles":
            tgt = node.target
            if not (isinstance(tgt, ast.Tuple) and len(tgt.elts) == 2 and all(isinstance(e, ast.Name) for e in tgt.elts)):
                raise reject(node, f"the loop target {ast.unparse(tgt)}", "for off, n in A.tiles(start, stop, tile)")
            if len(node.iter.args) != 3:
                raise DslError("call.args", "A.tiles takes (start, stop, tile[, stages=1|2])", line)
            stages = self.stages(node.iter)
            start, stop, tile = (self.expr(a) for a in node.iter.args)
            names = [e.id for e in tgt.elts]
            for n in names:
                self.check_target(n, line)
            index = self.n_tiles_loops
            self.n_tiles_loops += 1
            return ir.For(line, "tiles", names, start, stop, tile, self.block(node.body), stages, index)
        raise reject(node.iter, f"iterating over {ast.unparse(node.iter)[:60]}",
                     "for i in A.range(...) / for off, n in A.tiles(...)")

    def stages(self, call: ast.Call) -> int:
        kws = self.keywords(call, {"stages"})
        if "stages" not in kws:
            return 1
        s = kws["stages"]
        if not (isinstance(s, ast.Constant) and s.value in (1, 2)):
            raise DslError("call.args", "stages must be the literal 1 or 2", call.lineno,
                           hint="stages=2 double-buffers the tiles loaded and stored in the loop")
        return s.value

    def assign(self, node: ast.Assign, targets: list[str], value: ast.AST) -> ir.Stmt:
        line = node.lineno
        name = call_name(value)
        if name in ("A.ub", "A.workspace"):
            a = bind(value, prims()[name[2:]])
            if len(targets) != 1:
                raise DslError("call.args", f"use: {prims()[name[2:]].usage()}", line)
            dtype, size = self.expr(a["dtype"]), self.expr(a["elements"])
            if name == "A.ub":
                return ir.TileDecl(line, targets[0], dtype, size)
            return ir.WorkspaceDecl(line, targets[0], dtype, size)
        if name == "A.cube":
            return self.cube_decl(line, targets, value)
        if name == "A.get" and len(targets) == 1:
            return self.get_call(line, targets[0], value)
        if name and name.startswith("A.") and name[2:] in SCALAR_FNS:
            fn = name[2:]
            if len(targets) != 1:
                raise DslError("call.args", f"{name} returns one scalar", line)
            if value.keywords:
                raise DslError("call.args", f"{name} takes positional arguments only", line)
            kind = SCALAR_FNS[fn]
            if kind == "tile":
                if len(value.args) != 2:
                    raise DslError("call.args", f"use: s = {name}(tile, n)", line)
                return ir.ScalarCall(line, targets[0], fn, self.tile(value.args[0], "the source"),
                                     [self.expr(value.args[1])])
            if kind == "get":
                if len(value.args) != 2:
                    raise DslError("call.args", "use: s = A.get(tile, index)", line)
                return ir.ScalarCall(line, targets[0], fn, self.tile(value.args[0], "the tile"),
                                     [self.expr(value.args[1])])
            if len(value.args) != 1:
                raise DslError("call.args", f"use: s = {name}(scalar)", line)
            return ir.ScalarCall(line, targets[0], fn, None, [self.expr(value.args[0])])
        if name == "A.block_span":
            if len(targets) != 2 or not 1 <= len(value.args) <= 2 or value.keywords:
                raise DslError("call.args", "use: lo, hi = A.block_span(total[, align])", line,
                               hint="this block's share [lo, hi) of `total` elements, split in units of `align`")
            return ir.Assign(line, targets, ir.Call(line, "block_span", [self.expr(a) for a in value.args]))
        if isinstance(value, ast.Call) and name and name.startswith("A.") and \
                (name[2:] in ops() or name[2:] in ("load", "store", "move") + TABLE_STATEMENTS):
            raise DslError("call.result", f"{name} returns nothing; call it as a statement", line,
                           hint=f"{name}(dst, ...) writes its destination operand")
        if len(targets) != 1:
            raise reject(node, "tuple assignment from this expression", "lo, hi = A.block_span(total)")
        return ir.Assign(line, targets, self.expr(value))

    def call_stmt(self, call: ast.Call) -> ir.Stmt:
        line = call.lineno
        name = call_name(call)
        if not name or not name.startswith("A."):
            raise DslError("subset.call", f"`{ast.unparse(call.func)}` cannot be called here", line,
                           hint=f"kernel statements call {STATEMENTS}")
        prim = name[2:]
        if prim in ("load", "store", "move", "set", "sync_all"):
            return self.copy_statement(call, prim)
        if prim == "extern":
            return self.extern(call)
        if prim in TABLE_STATEMENTS:
            return self.table_statement(call, prim)
        if prim in SCALAR_FNS:
            raise DslError("call.result", f"{name} returns a scalar; assign it: s = {name}(...)", line)
        info = ops().get(prim)
        if info is None:
            raise DslError("subset.call", f"`{name}` is not a DSL primitive", line,
                           hint=f"kernel statements: {STATEMENTS}; instructions: {', '.join(sorted(ops()))}",
                           call=name)
        return self.vec_op(call, info)

    def vec_op(self, call: ast.Call, info) -> ir.Stmt:
        line = call.lineno
        form = ARGS[info.form]
        if call.keywords or len(call.args) != len(form):
            raise DslError("call.args", f"A.{info.name} takes ({', '.join(form)}), got {len(call.args)} argument(s)"
                           + (" and keywords" if call.keywords else ""), line, hint=_form_hint(info))
        a = call.args
        dst = self.tile(a[0], f"the destination of A.{info.name}")
        n = self.expr(a[-1])
        if info.form == "binary":
            return ir.VecOp(line, info.name, dst, [self.tile(a[1], "src0"), self.tile(a[2], "src1")], n)
        if info.form == "scalar":
            return ir.VecOp(line, info.name, dst, [self.tile(a[1], "src")], n, scalar=self.expr(a[2]))
        if info.form == "fill":
            return ir.VecOp(line, info.name, dst, [], n, scalar=self.expr(a[1]))
        if info.form == "cast":
            mode = a[2]
            if not (isinstance(mode, ast.Constant) and mode.value in ROUND_MODES + ("auto",)):
                raise DslError("call.args", f"the round mode of A.Cast must be one of {', '.join(ROUND_MODES)} or auto",
                               line, hint='A.Cast(dst, src, "auto", n): none for widening, rint for narrowing')
            return ir.VecOp(line, info.name, dst, [self.tile(a[1], "src")], n, mode=mode.value)
        return ir.VecOp(line, info.name, dst, [self.tile(a[1], "src")], n)

    def extern(self, call: ast.Call) -> ir.Stmt:
        line = call.lineno
        if len(call.args) != 2 or not all(isinstance(x, ast.Constant) and isinstance(x.value, str) for x in call.args):
            raise DslError("call.args", 'use: A.extern("name", "what it does", reads=[...], writes=[...], '
                                        'numpy="callback", <param>=<value>...)', line)
        name, spec = (x.value for x in call.args)
        if not (name.isidentifier() and name.isascii()):
            raise DslError("call.args", f"extern name {ascii(name)} must be an ASCII identifier", line)
        reads: list = []
        writes: list = []
        numpy = None
        params: dict[str, ir.Expr] = {}
        for kw in call.keywords:
            if kw.arg in ("reads", "writes"):
                if not isinstance(kw.value, ast.List):
                    raise DslError("call.args", f"{kw.arg}= takes a list of tiles and GM tensors", line)
                refs = [self.gm_view(e, kw.arg)[0] if isinstance(e, ast.Name) and e.id in self.gm_names
                        else self.tile(e, kw.arg) for e in kw.value.elts]
                (reads if kw.arg == "reads" else writes).extend(refs)
            elif kw.arg == "numpy":
                if not (isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, str)):
                    raise DslError("call.args", "numpy= names the semantics callback (a string)", line)
                numpy = kw.value.value
            elif kw.arg and kw.arg.isidentifier() and not kw.arg.startswith("_"):
                params[kw.arg] = self.expr(kw.value)
            else:
                raise DslError("call.args", f"bad keyword {kw.arg!r} for A.extern", line)
        if numpy is None:
            raise DslError("call.args", "A.extern needs numpy=\"<callback>\" so the interpreter can run it", line)
        return ir.Extern(line, name, spec, reads, writes, numpy, params)


def _form_hint(info) -> str:
    examples = {"binary": f"A.{info.name}(dst, a, b, n)", "scalar": f"A.{info.name}(dst, a, 0.5, n)",
                "unary": f"A.{info.name}(dst, a, n)", "advanced": f"A.{info.name}(dst, a, n)",
                "fill": f"A.{info.name}(dst, 0.0, n)", "reduce": f"A.{info.name}(dst[r:], src, n)",
                "cast": 'A.Cast(dst, src, "auto", n)', "copy": "A.copy(dst, src, n)"}
    return examples[info.form]


def declared(fn: ast.FunctionDef, call: str) -> set[str]:
    """Names assigned from A.ub(...) / A.workspace(...) anywhere in the kernel (placement is a rule of its own)."""
    found = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign) and call_name(node.value) == call:
            for t in node.targets:
                if isinstance(t, ast.Name):
                    found.add(t.id)
    return found


def parse_kernel_function(fn: ast.FunctionDef, gm: list[str], constants: dict) -> ir.KernelFunc:
    params = [a.arg for a in fn.args.args]
    if fn.args.vararg or fn.args.kwarg or fn.args.kwonlyargs or fn.args.defaults:
        raise reject(fn, "*args, **kwargs, keyword-only parameters or defaults", "def kernel(x, y, t)")
    if params[:-1] != gm or len(params) != len(gm) + 1:
        raise DslError("program.params", f"the kernel's parameters must be the inputs and outputs in order, then the "
                                         f"tiling data: ({', '.join(gm + ['t'])}); got ({', '.join(params)})", fn.lineno)
    parser = KernelParser(set(gm), params[-1], constants, declared(fn, "A.ub"), declared(fn, "A.workspace"),
                          declared(fn, "A.cube"))
    body = parser.block(fn.body)
    parser.raise_problems()
    return ir.KernelFunc(fn.name, gm, params[-1], body, fn.lineno)
