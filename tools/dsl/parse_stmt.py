"""Statements shared by the host functions and the kernel: assignments, if/else, for, assert,
pass. Domain parsers subclass `StmtParser` and add their own calls and loops."""
from __future__ import annotations

import ast

from kernelwright.tools.dsl import ir
from kernelwright.tools.dsl.errors import DslDiagnostic, DslError, DslErrors, findings
from kernelwright.tools.dsl.parse_expr import BINOPS, ExprParser, construct_name, dotted, reject

STMT_ALLOWED = ("assignments, `x += ...`, if/elif/else, for loops over {loops}, assert, pass{extra}")


class StmtParser(ExprParser):
    loops = "range(...)"
    extra = ""

    def block(self, nodes: list[ast.stmt]) -> list[ir.Stmt]:
        """The statements; a broken one is recorded in `problems` and skipped, so every independent finding
        of a function is reported at once (`raise_problems` ends the function's parse)."""
        out: list[ir.Stmt] = []
        for node in nodes:
            try:
                s = self.stmt(node)
            except DslError as e:
                self.problems.extend(d for d in findings(e.at(node.lineno)) if d not in self.problems)
                continue
            if s is not None:
                out.append(s)
        return out

    @property
    def problems(self) -> list[DslDiagnostic]:
        return self.__dict__.setdefault("_problems", [])

    def raise_problems(self) -> None:
        if self.problems:
            raise DslErrors(self.problems)

    def stmt_allowed(self) -> str:
        return STMT_ALLOWED.format(loops=self.loops, extra=self.extra)

    def stmt(self, node: ast.stmt) -> ir.Stmt | None:
        line = node.lineno
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return None                                      # a docstring or comment string
        if isinstance(node, ast.Pass):
            return ir.Pass(line)
        if isinstance(node, ast.Assign):
            if len(node.targets) != 1:
                raise reject(node, "chained assignment (a = b = ...)", self.stmt_allowed())
            return self.assign(node, self.targets(node.targets[0]), node.value)
        if isinstance(node, ast.AugAssign):
            if not isinstance(node.target, ast.Name):
                raise reject(node, f"augmented assignment to {ast.unparse(node.target)}", "x += <expression>")
            op = BINOPS.get(type(node.op))
            if op is None:
                raise reject(node, construct_name(node.op))
            self.check_target(node.target.id, line)
            return ir.AugAssign(line, node.target.id, op, self.expr(node.value))
        if isinstance(node, ast.If):
            return ir.If(line, self.expr(node.test), self.block(node.body), self.block(node.orelse))
        if isinstance(node, ast.For):
            if node.orelse:
                raise reject(node, "for ... else", self.stmt_allowed())
            return self.for_loop(node)
        if isinstance(node, ast.Assert):
            msg = None
            if node.msg is not None:
                if not (isinstance(node.msg, ast.Constant) and isinstance(node.msg.value, str)):
                    raise reject(node.msg, "a non-literal assert message", "assert <condition>, \"message\"")
                msg = node.msg.value
            return ir.Assert(line, self.expr(node.test), msg)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            return self.call_stmt(node.value)
        if isinstance(node, ast.Return):
            return self.return_stmt(node)
        raise reject(node, allowed=self.stmt_allowed())

    def targets(self, node: ast.AST) -> list[str]:
        if isinstance(node, ast.Name):
            self.check_target(node.id, node.lineno)
            return [node.id]
        if isinstance(node, ast.Tuple) and all(isinstance(e, ast.Name) for e in node.elts):
            for e in node.elts:
                self.check_target(e.id, node.lineno)
            return [e.id for e in node.elts]
        raise reject(node, f"assignment to {ast.unparse(node)}", "name = ... or a, b = ...")

    def check_target(self, name: str, line: int) -> None:
        if name.startswith("_") or name == "A" or name in self.tensors or name in (self.tiling_param, self.hw_param):
            raise DslError("subset.assign", f"cannot assign to `{name}`", line,
                           hint="assign to a new local name; parameters, `A` and names starting with _ are reserved",
                           name=name)

    def range_args(self, call: ast.Call, what: str) -> tuple[ir.Expr, ir.Expr, ir.Expr]:
        if call.keywords or not 1 <= len(call.args) <= 3:
            raise DslError("call.args", f"{what} takes 1 to 3 positional arguments (stop | start, stop[, step])",
                           call.lineno)
        args = [self.expr(a) for a in call.args]
        line = call.lineno
        if len(args) == 1:
            return ir.Const(line, 0), args[0], ir.Const(line, 1)
        return args[0], args[1], args[2] if len(args) == 3 else ir.Const(line, 1)

    # ---- domain hooks
    def assign(self, node: ast.Assign, targets: list[str], value: ast.AST) -> ir.Stmt:
        return ir.Assign(node.lineno, targets, self.expr(value))

    def for_loop(self, node: ast.For) -> ir.Stmt:
        raise NotImplementedError

    def call_stmt(self, call: ast.Call) -> ir.Stmt:
        raise DslError("subset.call", f"`{ast.unparse(call)[:60]}` is not a statement of this language", call.lineno,
                       hint=f"allowed statements: {self.stmt_allowed()}")

    def return_stmt(self, node: ast.Return) -> ir.Stmt:
        raise reject(node, "return", self.stmt_allowed())


def simple_loop_target(node: ast.For) -> str:
    if not isinstance(node.target, ast.Name):
        raise reject(node, f"the loop target {ast.unparse(node.target)}", "for i in range(...)")
    return node.target.id


def call_name(node: ast.AST) -> str | None:
    return dotted(node.func) if isinstance(node, ast.Call) else None
