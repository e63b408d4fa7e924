"""Kernel primitives bound through the primitive table (primitives.py): copies (A.load, A.store, A.move),
A.set, A.sync_all, the cube unit (A.cube, A.matmul), indexing (A.gather, A.scatter, A.scatter_add,
A.where) and A.get with a bound. Mixed into KernelParser, which provides tile(), gm_view() and expr()."""
from __future__ import annotations

import ast

from kernelwright.tools.dsl import ir
from kernelwright.tools.dsl.errors import DslError
from kernelwright.tools.dsl.primitives import bind, flag, prims

TABLE_STATEMENTS = ("matmul", "gather", "scatter", "scatter_add", "where")


class PrimParser:
    cube_names: set[str]
    tile_names: set[str]
    gm_names: set[str]

    def gm_ref(self, node: ast.AST, role: str) -> ir.GmView:
        name, off = self.gm_view(node, role)
        return ir.GmView(name, off, getattr(node, "lineno", 0))

    def tensor_name(self, node: ast.AST | None, role: str, tiles: bool) -> str | None:
        if node is None or (isinstance(node, ast.Constant) and node.value is None):
            return None
        ok = self.gm_names | (self.tile_names if tiles else set())
        if isinstance(node, ast.Name) and node.id in ok:
            return node.id
        what = "a GM tensor, a workspace or a UB tile" if tiles else "a GM tensor or a workspace"
        raise DslError("call.operand", f"{role} must name {what}, got `{ast.unparse(node)}`", getattr(node, "lineno", 0),
                       hint=f"use: {prims()['cube'].usage()}")

    def triple(self, node: ast.AST, role: str) -> list[ir.Expr]:
        if not (isinstance(node, ast.Tuple) and len(node.elts) == 3):
            raise DslError("call.args", f"{role}= takes three integer expressions (m, n, k)", getattr(node, "lineno", 0),
                           hint=f"use: {prims()['cube'].usage()}")
        return [self.expr(e) for e in node.elts]

    def cube_decl(self, line: int, targets: list[str], value: ast.Call) -> ir.Stmt:
        if len(targets) != 1:
            raise DslError("call.args", "A.cube declares one unit: mm = A.cube(...)", line)
        a = bind(value, prims()["cube"])
        return ir.CubeDecl(line, targets[0], self.tensor_name(a["a"], "a", False), self.tensor_name(a["b"], "b", False),
                           self.tensor_name(a["c"], "c", True), self.triple(a["tile"], "tile"),
                           self.triple(a["shape"], "shape"), flag(a["trans_a"]), flag(a["trans_b"]),
                           self.tensor_name(a["bias"], "bias", False))

    def get_call(self, line: int, target: str, value: ast.Call) -> ir.Stmt:
        a = bind(value, prims()["get"])
        bound = self.expr(a["bound"]) if a["bound"] is not None else None
        return ir.ScalarCall(line, target, "get", self.tile(a["tile"], "the tile"), [self.expr(a["i"])], bound)

    def copy_statement(self, call: ast.Call, name: str) -> ir.Stmt:
        """A.load, A.store, A.move, A.set and A.sync_all."""
        line = call.lineno
        a = bind(call, prims()[name])
        if name == "sync_all":
            return ir.SyncAll(line)
        if name == "set":
            return ir.SetValue(line, self.tile(a["tile"], "the tile"), self.expr(a["i"]), self.expr(a["value"]))
        strides = [self.expr(a[k]) if a[k] is not None else None for k in ("rows", "src_stride", "dst_stride")]
        if name == "move":
            dst, doff = self.gm_view(a["dst"], "the destination")
            src, soff = self.gm_view(a["src"], "the source")
            via, n, rows = self.tile(a["via"], "via="), self.expr(a["n"]), strides[0]
            return ir.Move(line, ir.Load(line, via, src, soff, n, rows, strides[1]),
                           ir.Store(line, dst, doff, via, n, rows, None, strides[2]))
        if name == "load":
            gm, off = self.gm_view(a["src"], "the source")
            pad = self.expr(a["pad"]) if a["pad"] is not None else None
            return ir.Load(line, self.tile(a["tile"], "the destination"), gm, off, self.expr(a["n"]), *strides, pad)
        gm, off = self.gm_view(a["dst"], "the destination")
        atomic = a["atomic"].value if a["atomic"] is not None else None
        return ir.Store(line, gm, off, self.tile(a["tile"], "the source"), self.expr(a["n"]), *strides, atomic)

    def table_statement(self, call: ast.Call, name: str) -> ir.Stmt:
        line = call.lineno
        a = bind(call, prims()[name])
        if name == "matmul":
            unit = a["mm"]
            if not (isinstance(unit, ast.Name) and unit.id in self.cube_names):
                raise DslError("call.operand", f"the first argument of A.matmul must be a unit declared with A.cube, got "
                                               f"`{ast.unparse(unit)}`", line, hint=f"use: {prims()['cube'].usage()}")
            out = a["c"]
            dst = self.tile(out, "the result") if self.names_tile(out) else self.gm_ref(out, "the result")
            bias = self.gm_ref(a["bias"], "bias") if a["bias"] is not None else None
            atomic = a["atomic"].value if a["atomic"] is not None else None
            return ir.Matmul(line, unit.id, dst, self.gm_ref(a["a"], "a"), self.gm_ref(a["b"], "b"), self.expr(a["m"]),
                             self.expr(a["n"]), self.expr(a["k"]), bias, atomic)
        if name == "gather":
            return ir.Gather(line, self.tile(a["dst"], "the destination"), self.tile(a["src"], "the source"),
                             self.tile(a["idx"], "the indices"), self.expr(a["n"]), self.expr(a["bound"]))
        if name in ("scatter", "scatter_add"):
            return ir.Scatter(line, self.tile(a["dst"], "the destination"), self.tile(a["idx"], "the indices"),
                              self.tile(a["src"], "the source"), self.expr(a["n"]), self.expr(a["bound"]),
                              add=name == "scatter_add")
        branches = [self.tile_or_number(a[k], k) for k in ("a", "b")]
        if not any(isinstance(b, ir.TileRef) for b in branches):
            raise DslError("call.operand", "A.where needs a tile for a or b (at most one of them is a number)", line,
                           hint="fill a tile with A.Duplicate for a constant on both sides")
        return ir.Where(line, self.tile(a["dst"], "the destination"), self.tile(a["cond"], "the condition"),
                        branches[0], branches[1], self.expr(a["n"]))

    def names_tile(self, node: ast.AST) -> bool:
        """`t` or `t[k:]` of a declared tile."""
        base = node.value if isinstance(node, ast.Subscript) else node
        return isinstance(base, ast.Name) and base.id in self.tile_names

    def tile_or_number(self, node: ast.AST, role: str) -> ir.TileRef | ir.Expr:
        return self.tile(node, role) if self.names_tile(node) else self.expr(node)
