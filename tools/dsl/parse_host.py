"""The host functions: `@A.tiling` (shapes, dtypes, attributes and SoC numbers -> block_dim and
tiling fields) and the optional `@A.shapes` (output shapes). Both are interpreted by our own
evaluator and translated to C++; neither is ever run as Python."""
from __future__ import annotations

import ast

from kernelwright.tools.dsl import ir
from kernelwright.tools.dsl.errors import DslError
from kernelwright.tools.dsl.parse_expr import reject
from kernelwright.tools.dsl.parse_stmt import StmtParser, call_name, simple_loop_target


class HostParser(StmtParser):
    loops = "range(...)"

    def __init__(self, kind: str, tensors: set[str], constants: dict, hw_param: str | None):
        super().__init__("host", tensors, constants, hw_param=hw_param)
        self.kind = kind
        self.extra = ", and a final `return A.Tiling(block_dim=..., field=...)`" if kind == "tiling" else \
            ", and a final `return {\"output\": shape, ...}`"

    def for_loop(self, node: ast.For) -> ir.Stmt:
        var = simple_loop_target(node)
        if call_name(node.iter) != "range":
            raise reject(node.iter, f"iterating over {ast.unparse(node.iter)}", "for i in range(...)")
        start, stop, step = self.range_args(node.iter, "range")
        return ir.For(node.lineno, "range", [var], start, stop, step, self.block(node.body))

    def return_stmt(self, node: ast.Return) -> ir.Stmt:
        value = node.value
        if self.kind == "tiling":
            if call_name(value) != "A.Tiling":
                raise DslError("tiling.return", "the tiling function must return A.Tiling(block_dim=..., <field>=...)",
                               node.lineno, hint="return A.Tiling(block_dim=nb, total=x.numel, tile=T)")
            if value.args:
                raise DslError("tiling.return", "A.Tiling takes keyword arguments only", node.lineno,
                               hint="A.Tiling(block_dim=nb, total=n, ...)")
            fields: dict[str, ir.Expr] = {}
            block_dim = None
            for kw in value.keywords:
                if kw.arg is None:
                    raise reject(kw.value, "**kwargs", "A.Tiling(block_dim=..., name=value, ...)")
                if kw.arg == "block_dim":
                    block_dim = self.expr(kw.value)
                elif kw.arg.startswith("_") or not kw.arg.isidentifier():
                    raise DslError("tiling.field", f"`{kw.arg}` is not a valid tiling field name", node.lineno)
                else:
                    fields[kw.arg] = self.expr(kw.value)
            if block_dim is None:
                raise DslError("tiling.return", "A.Tiling needs block_dim=<number of blocks to launch>", node.lineno)
            return ir.Return(node.lineno, ir.TilingCall(node.lineno, block_dim, fields))
        if not isinstance(value, ast.Dict) or any(not (isinstance(k, ast.Constant) and isinstance(k.value, str))
                                                   for k in value.keys):
            raise DslError("shapes.return", "the shapes function must return a dict of output name -> shape", node.lineno,
                           hint='return {"y": x.shape[:-1]}')
        return ir.Return(node.lineno, ir.DictExpr(node.lineno, [k.value for k in value.keys],
                                                  [self.expr(v) for v in value.values]))


def parse_host_function(fn: ast.FunctionDef, kind: str, tensors: set[str], attrs: set[str],
                        constants: dict) -> ir.HostFunc:
    params = [a.arg for a in fn.args.args]
    if fn.args.vararg or fn.args.kwarg or fn.args.kwonlyargs or fn.args.defaults:
        raise reject(fn, "*args, **kwargs, keyword-only parameters or defaults",
                     "plain parameters named after the op's inputs, its attributes and `hw`")
    allowed = tensors | attrs | ({"hw"} if kind == "tiling" else set())
    for p in params:
        if p not in allowed:
            raise DslError("program.params", f"parameter `{p}` of {fn.name} is not an input, an attribute or hw",
                           fn.lineno, hint=f"name parameters after the op's inputs ({', '.join(sorted(tensors))}), "
                                           f"its attributes ({', '.join(sorted(attrs)) or 'none'})"
                                           + (" and `hw`" if kind == "tiling" else ""))
    parser = HostParser(kind, tensors & set(params), constants, hw_param="hw" if "hw" in params else None)
    body = parser.block(fn.body)
    parser.raise_problems()
    if not body or not isinstance(body[-1], ir.Return):
        raise DslError(f"{kind}.return", f"{fn.name} must end with a return statement", fn.lineno,
                       hint="return A.Tiling(block_dim=..., ...)" if kind == "tiling" else 'return {"y": x.shape}')
    for s in ir.walk(body[:-1]):
        if isinstance(s, ir.Return):
            raise DslError(f"{kind}.return", "return is allowed only as the last statement", s.line)
    return ir.HostFunc(fn.name, kind, params, body, fn.lineno)
