"""A DSL program file -> `ir.Program`. The file is parsed with `ast`, never imported or run.

Layout of a program:
    \"\"\"What the operator computes.\"\"\"
    import adsl as A
    EPS = 1e-5                                   # module constants: literal arithmetic only
    @A.tiling
    def tiling(x, hw, <attrs>): ... return A.Tiling(block_dim=..., field=...)
    @A.shapes                                    # optional: output shapes (default: like the first input)
    def shapes(x, <attrs>): return {"y": x.shape[:-1]}
    @A.kernel(inputs={"x": (A.f32, A.f16)}, outputs={"y": "x"}, attrs={"alpha": 1.0})
    def my_op(x, y, t): ...
"""
from __future__ import annotations

import ast
from pathlib import Path

from kernelwright.tools.dsl import ir
from kernelwright.tools.dsl.dtypes import DTYPES
from kernelwright.tools.dsl.errors import DslError
from kernelwright.tools.dsl.parse_expr import construct_name, dotted, reject
from kernelwright.tools.dsl.parse_host import parse_host_function
from kernelwright.tools.dsl.parse_kernel import parse_kernel_function
from kernelwright.tools.dsl.typecheck import check_types

TOP_ALLOWED = ("a docstring, `import adsl as A`, NAME = <number expression>, and the decorated functions "
               "@A.tiling, @A.shapes (optional) and @A.kernel(...)")


def parse_file(path: str | Path) -> ir.Program:
    p = Path(path)
    return parse_program(p.read_text(encoding="utf-8"), p.name)


def parse_program(source: str, filename: str = "<dsl>") -> ir.Program:
    try:
        tree = ast.parse(source, filename=filename)
    except SyntaxError as e:
        raise DslError("syntax", f"not valid Python: {e.msg}", e.lineno,
                       hint="the DSL is a subset of Python syntax") from None
    _check_names_ascii(tree)
    doc = ast.get_docstring(tree) or ""
    constants: dict = {}
    funcs: dict[str, tuple[ast.FunctionDef, ast.AST]] = {}
    for i, node in enumerate(tree.body):
        if i == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and \
                isinstance(node.value.value, str):
            continue
        if isinstance(node, ast.Import):
            if [(a.name, a.asname) for a in node.names] != [("adsl", "A")]:
                raise DslError("program.import", f"`{ast.unparse(node)}` is not allowed", node.lineno,
                               hint="the only import is `import adsl as A`")
            continue
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            if name.startswith("_") or name == "A":
                raise DslError("subset.assign", f"cannot define `{name}`", node.lineno)
            constants[name] = constant_value(node.value, constants)
            continue
        if isinstance(node, ast.FunctionDef):
            if len(node.decorator_list) != 1:
                raise DslError("program.structure", f"function {node.name} needs exactly one decorator "
                                                    "(@A.tiling, @A.shapes or @A.kernel(...))", node.lineno)
            deco = node.decorator_list[0]
            kind = dotted(deco.func if isinstance(deco, ast.Call) else deco)
            if kind not in ("A.tiling", "A.shapes", "A.kernel"):
                raise DslError("program.structure", f"unknown decorator @{ast.unparse(deco)}", node.lineno,
                               hint="@A.tiling, @A.shapes or @A.kernel(inputs=..., outputs=..., attrs=...)")
            if kind in funcs:
                raise DslError("program.structure", f"a program has one @{kind} function; {node.name} is a second one",
                               node.lineno)
            funcs[kind] = (node, deco)
            continue
        raise reject(node, allowed=TOP_ALLOWED) if not isinstance(node, ast.Expr) else \
            DslError("program.structure", f"a top-level expression ({construct_name(node.value)}) is not allowed",
                     node.lineno, hint=TOP_ALLOWED)
    for need in ("A.tiling", "A.kernel"):
        if need not in funcs:
            raise DslError("program.structure", f"the program has no @{need} function", None, hint=TOP_ALLOWED)
    kfn, kdeco = funcs["A.kernel"]
    sig = parse_signature(kdeco, constants)
    inputs = {t.name for t in sig.inputs}
    attrs = {a.name for a in sig.attrs}
    tiling = parse_host_function(funcs["A.tiling"][0], "tiling", inputs, attrs, constants)
    shapes = parse_host_function(funcs["A.shapes"][0], "shapes", inputs, attrs, constants) if "A.shapes" in funcs else None
    kernel = parse_kernel_function(kfn, [t.name for t in sig.inputs + sig.outputs], constants)
    program = ir.Program(source, filename, doc, constants, sig, tiling, shapes, kernel)
    check_types(program)
    return program


def constant_value(node: ast.AST, constants: dict):
    """Module constants: numbers, A.<dtype>, and arithmetic over numbers and earlier constants."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float, bool)):
        return node.value
    if isinstance(node, ast.Name) and node.id in constants:
        return constants[node.id]
    if isinstance(node, ast.Attribute) and dotted(node) and dotted(node).startswith("A."):
        if node.attr in DTYPES:
            return DTYPES[node.attr]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v = constant_value(node.operand, constants)
        return -v if isinstance(node.op, ast.USub) else v
    if isinstance(node, ast.BinOp) and type(node.op) in (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow):
        a, b = constant_value(node.left, constants), constant_value(node.right, constants)
        if not all(isinstance(v, (int, float)) for v in (a, b)):
            raise DslError("subset.constant", "module constants combine numbers only", node.lineno)
        op = type(node.op)
        if op is ast.Pow and (abs(b) > 64 or abs(a) > 1e6):
            raise DslError("subset.constant", "this power is too large for a constant", node.lineno)
        return {ast.Add: lambda: a + b, ast.Sub: lambda: a - b, ast.Mult: lambda: a * b,
                ast.Div: lambda: a / b, ast.Pow: lambda: a ** b}[op]()
    raise DslError("subset.constant", f"`{ast.unparse(node)[:60]}` is not a constant expression", node.lineno,
                   hint="module constants are numbers, A.<dtype> or arithmetic over them (e.g. K = 2.0 * 0.79788)")


def _dtype_list(node: ast.AST, what: str, constants: dict) -> tuple[str, ...]:
    items = node.elts if isinstance(node, (ast.Tuple, ast.List)) else [node]
    out = []
    for it in items:
        v = constant_value(it, constants) if not isinstance(it, ast.Constant) else None
        if getattr(v, "name", None) not in DTYPES:
            raise DslError("program.signature", f"{what}: `{ast.unparse(it)}` is not a dtype", node.lineno,
                           hint="use A.f32, A.f16, A.bf16, A.i32, ...")
        out.append(v.name)
    return tuple(out)


def parse_signature(deco: ast.AST, constants: dict) -> ir.Signature:
    if not isinstance(deco, ast.Call) or deco.args:
        raise DslError("program.signature", "use @A.kernel(inputs={...}, outputs={...}, attrs={...})",
                       getattr(deco, "lineno", None))
    kws = {k.arg: k.value for k in deco.keywords}
    unknown = set(kws) - {"inputs", "outputs", "attrs"}
    if unknown:
        raise DslError("program.signature", f"@A.kernel has no argument {', '.join(sorted(unknown))}", deco.lineno)
    for need in ("inputs", "outputs"):
        if not isinstance(kws.get(need), ast.Dict):
            raise DslError("program.signature", f"@A.kernel needs {need}={{name: dtypes, ...}}", deco.lineno,
                           hint='inputs={"x": (A.f32, A.f16)}, outputs={"y": "x"}')
    inputs, outputs, attrs = [], [], []
    for k, v in zip(kws["inputs"].keys, kws["inputs"].values):
        name = _key(k, "inputs")
        inputs.append(ir.TensorSig(name, _dtype_list(v, f"input {name}", constants)))
    for k, v in zip(kws["outputs"].keys, kws["outputs"].values):
        name = _key(k, "outputs")
        if isinstance(v, ast.Constant) and isinstance(v.value, str):
            src = next((t for t in inputs if t.name == v.value), None)
            if src is None:
                raise DslError("program.signature", f"output {name} follows `{v.value}`, which is not an input",
                               deco.lineno)
            outputs.append(ir.TensorSig(name, src.dtypes, same_as=src.name))
        else:
            outputs.append(ir.TensorSig(name, _dtype_list(v, f"output {name}", constants)))
    if isinstance(kws.get("attrs"), ast.Dict):
        for k, v in zip(kws["attrs"].keys, kws["attrs"].values):
            attrs.append(_attr(_key(k, "attrs"), v, constants))
    elif "attrs" in kws:
        raise DslError("program.signature", "attrs= takes a dict of name -> default value", deco.lineno)
    names = [t.name for t in inputs + outputs] + [a.name for a in attrs]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise DslError("program.signature", f"duplicate names: {', '.join(dup)}", deco.lineno)
    if not outputs:
        raise DslError("program.signature", "an operator needs at least one output", deco.lineno)
    sig = ir.Signature(inputs, outputs, attrs)
    widths = {len(t.dtypes) for t in inputs + outputs} - {1}
    if len(widths) > 1:
        raise DslError("program.signature", "every input and output lists the same number of dtype columns "
                                            "(or one, used for all)", deco.lineno,
                       hint='inputs={"x": (A.f32, A.f16)}, outputs={"y": (A.f32, A.f16)}')
    return sig


def _check_names_ascii(tree: ast.AST) -> None:
    """Names become C++ identifiers: Python accepts any Unicode letter, the generated code takes ASCII only."""
    for node in ast.walk(tree):
        for name in (getattr(node, f, None) for f in ("id", "arg", "name", "attr")):
            if isinstance(name, str) and not name.isascii():
                raise DslError("names.ascii", f"the name {ascii(name)} is not ASCII", getattr(node, "lineno", None),
                               hint="names are ASCII letters, digits and underscores")


def _key(k: ast.AST, what: str) -> str:
    if not (isinstance(k, ast.Constant) and isinstance(k.value, str) and k.value.isidentifier()
            and k.value.isascii()):
        raise DslError("program.signature", f"{what} keys must be identifier strings", getattr(k, "lineno", None))
    return k.value


def _attr(name: str, node: ast.AST, constants: dict) -> ir.AttrSig:
    if isinstance(node, (ast.List, ast.Tuple)):
        vals = [constant_value(e, constants) for e in node.elts]
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in vals):
            raise DslError("program.signature", f"attribute {name}: list attributes hold integers", node.lineno)
        return ir.AttrSig(name, "list_int", vals)
    v = constant_value(node, constants)
    kind = "bool" if isinstance(v, bool) else "int" if isinstance(v, int) else "float" if isinstance(v, float) else None
    if kind is None:
        raise DslError("program.signature", f"attribute {name}: the default must be a number, a bool or a list of "
                                            "ints", node.lineno)
    return ir.AttrSig(name, kind, v)
