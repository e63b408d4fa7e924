"""One MIX kernel from several DSL programs run one after the other (a cube GEMM or convolution, then the
composer's programs for what follows it), each stage's result passed to the next through a GM workspace and a
barrier. The programs are joined on their syntax trees: every stage keeps its own tiling locals, tiling fields
and kernel locals (prefixed with the stage number), a stage's input may be a *view* of a GM tensor or workspace
(its own shape and strides, written as host expressions: a split of the channels into groups, a pooling
window as an axis), and every stage's output shape is worked out in the joined tiling and shapes functions
from the stages' own shapes functions. The UB holds every stage's tiles at once: each later stage is given
BUDGET bytes in place of hw.ub_bytes, the first stage the rest."""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

from kernelwright.agent.builtin.chain import Unsupported
from kernelwright.agent.builtin.dslgen import FLOATS, doc, kernel_name

BUDGET = 40960        # UB bytes of each stage after the first (its tiles size themselves from it)
KEEP = {"A", "t", "hw", "min", "max", "abs", "int", "float", "range", "len", "True", "False", "None"}


@dataclass
class View:
    gm: str                          # the joined program's GM tensor or workspace
    dims: list[str]                  # host expressions, one per axis the stage sees
    strides: list[str] | None = None  # host expressions; None: row-major over dims
    workspace: bool = False
    whole: bool = False              # the GM tensor as it is: only its name changes

    def stride(self, j: int) -> str:
        if self.strides is not None:
            return self.strides[j]
        return " * ".join(f"({d})" for d in self.dims[j + 1:]) or "1"


@dataclass
class Stage:
    source: str                      # a whole DSL program
    inputs: list[View]               # one per kernel input, in order
    out: str = ""                    # the GM name its output gets (set by Stitcher.add)
    host: list[ast.stmt] = field(default_factory=list)
    fields: list[ast.keyword] = field(default_factory=list)
    decls: list[ast.stmt] = field(default_factory=list)
    body: list[ast.stmt] = field(default_factory=list)


def _expr(text: str) -> ast.expr:
    return ast.parse(f"({text})", mode="eval").body


def _funcs(source: str) -> dict[str, ast.FunctionDef]:
    out = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef) and node.decorator_list:
            d = node.decorator_list[0]
            d = d.func if isinstance(d, ast.Call) else d
            if isinstance(d, ast.Attribute):
                out[d.attr] = node
        elif isinstance(node, ast.Assign):
            raise Unsupported([], "a stage program with module constants")
    return out


def _stored(fn: ast.FunctionDef) -> set[str]:
    return {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


class _Host(ast.NodeTransformer):
    """A stage's host function: its inputs' shapes from their views, locals prefixed, the UB budget."""

    def __init__(self, views: dict[str, View], prefix: str, local: set[str], ub: str, like: str):
        self.renames = {p: v.gm for p, v in views.items() if v.whole}
        self.views = {p: v for p, v in views.items() if not v.whole}
        self.prefix, self.local, self.ub, self.like = prefix, local, ub, like

    def visit_Subscript(self, node):
        v = node.value
        if isinstance(v, ast.Attribute) and v.attr == "shape" and isinstance(v.value, ast.Name) and \
                v.value.id in self.views:
            view = self.views[v.value.id]
            if isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, int):
                return _expr(view.dims[node.slice.value])
            raise Unsupported([], f"a stage reads {ast.unparse(node)}")
        return self.generic_visit(node)

    def visit_Call(self, node):
        # A.prod(x.shape[j:]) is the stride of axis j - 1 (the composer's offsets)
        if ast.unparse(node.func) == "A.prod" and len(node.args) == 1 and isinstance(node.args[0], ast.Subscript):
            s = node.args[0]
            if isinstance(s.value, ast.Attribute) and isinstance(s.value.value, ast.Name) and \
                    s.value.value.id in self.views and isinstance(s.slice, ast.Slice) and s.slice.upper is None:
                j = s.slice.lower.value if s.slice.lower is not None else 0
                view = self.views[s.value.value.id]
                return _expr(view.stride(j - 1) if j > 0 else " * ".join(f"({d})" for d in view.dims) or "1")
        return self.generic_visit(node)

    def visit_Attribute(self, node):
        if isinstance(node.value, ast.Name) and node.value.id in self.views:
            view = self.views[node.value.id]
            if node.attr == "numel":
                return _expr(" * ".join(f"({d})" for d in view.dims) or "1")
            if node.attr == "ndim":
                return _expr(str(len(view.dims)))
            if node.attr == "dtype":
                return _expr(f"{self.like}.dtype" if view.workspace else f"{view.gm}.dtype")
            raise Unsupported([], f"a stage reads {ast.unparse(node)}")
        if ast.unparse(node) == "hw.ub_bytes":
            return _expr(self.ub)
        return self.generic_visit(node)

    def visit_Name(self, node):
        if node.id in self.renames:
            return ast.copy_location(ast.Name(self.renames[node.id], node.ctx), node)
        if node.id in self.views:
            raise Unsupported([], f"a stage passes its input {node.id} on whole")
        if node.id in self.local:
            return ast.copy_location(ast.Name(self.prefix + node.id, node.ctx), node)
        return node


class _Kernel(ast.NodeTransformer):
    def __init__(self, names: dict[str, str], workspaces: set[str], prefix: str, fields: str, local: set[str],
                 like: str):
        self.names, self.ws, self.prefix, self.local, self.like = names, workspaces, prefix, local, like
        self.fields = fields

    def visit_Attribute(self, node):
        if isinstance(node.value, ast.Name) and node.value.id == "t":
            return ast.copy_location(ast.Attribute(node.value, self.fields + node.attr, node.ctx), node)
        if isinstance(node.value, ast.Name) and node.value.id in self.ws and node.attr == "dtype":
            return _expr(f"{self.like}.dtype")
        return self.generic_visit(node)

    def visit_Name(self, node):
        if node.id in self.names:
            return ast.copy_location(ast.Name(self.names[node.id], node.ctx), node)
        if node.id in self.local:
            return ast.copy_location(ast.Name(self.prefix + node.id, node.ctx), node)
        return node


class Stitcher:
    def __init__(self, inputs: list[str], out: str):
        self.inputs = list(inputs)         # the joined kernel's GM inputs, in order
        self.out = out
        self.stages: list[Stage] = []
        self.shape_lines: list[ast.stmt] = []
        self.dims: list[list[str]] = []

    def add(self, stage: Stage) -> list[str]:
        """Adds a stage; returns its output's dims (host expressions)."""
        k = len(self.stages)
        fns = _funcs(stage.source)
        tiling, shapes, kernel = fns.get("tiling"), fns.get("shapes"), fns.get("kernel")
        if tiling is None or shapes is None or kernel is None:
            raise Unsupported([], "a stage program without tiling, shapes and kernel functions")
        nin = len(stage.inputs)
        if [a.arg for a in tiling.args.args][nin:] != ["hw"] or len(kernel.args.args) != nin + 2:
            raise Unsupported([], "a stage with attributes or several outputs")
        like = self.inputs[0]
        for v in stage.inputs:
            if not v.workspace and v.gm not in self.inputs:
                self.inputs.append(v.gm)
        # the output shape, worked out from the stage's shapes function
        views = dict(zip([a.arg for a in shapes.args.args], stage.inputs))
        q = _Host(views, f"q{k}_", _stored(shapes), "hw.ub_bytes", like)
        for s in shapes.body[:-1]:
            if not isinstance(s, ast.Assert):
                self.shape_lines.append(q.visit(s))
        ret = shapes.body[-1]
        if not isinstance(ret, ast.Return) or not isinstance(ret.value, ast.Dict) or len(ret.value.values) != 1:
            raise Unsupported([], "a stage whose shapes function is not one dict")
        tup = q.visit(ret.value.values[0])
        dims = [ast.unparse(e) for e in tup.elts] if isinstance(tup, ast.Tuple) else None
        if dims is None:
            raise Unsupported([], "a stage whose output shape is not a tuple")
        # the tiling: locals and fields prefixed, the UB budget
        ub = "UB_FIRST" if k == 0 else str(BUDGET)          # the first stage's share is known once all are added
        views = dict(zip([a.arg for a in tiling.args.args], stage.inputs))
        h = _Host(views, f"s{k}_", _stored(tiling), ub, like)
        for s in tiling.body[:-1]:
            if isinstance(s, ast.Assert):
                continue
            if isinstance(s, ast.Assign) and [ast.unparse(x) for x in s.targets] == ["nb"]:
                s = ast.parse("nb = hw.vector_cores").body[0]      # every stage runs on the joined kernel's blocks
            stage.host.append(h.visit(s))
        ret = tiling.body[-1]
        if not isinstance(ret, ast.Return) or not isinstance(ret.value, ast.Call):
            raise Unsupported([], "a stage whose tiling does not return A.Tiling(...)")
        stage.fields = [ast.keyword(f"s{k}_{kw.arg}", h.visit(kw.value)) for kw in ret.value.keywords
                        if kw.arg != "block_dim"]
        # the kernel: inputs renamed to their GM tensors, locals and tiling fields prefixed
        params = [a.arg for a in kernel.args.args]
        names = {p: v.gm for p, v in zip(params, stage.inputs)}
        stage.out = f"ws_{k}"
        names[params[nin]] = stage.out
        ws = {p for p, v in zip(params, stage.inputs) if v.workspace} | {params[nin]}
        kt = _Kernel(names, ws, f"k{k}_", f"s{k}_", _stored(kernel), like)
        for s in kernel.body:
            s = kt.visit(s)
            is_decl = isinstance(s, ast.Assign) and isinstance(s.value, ast.Call) and \
                ast.unparse(s.value.func) in ("A.ub", "A.workspace", "A.cube")
            (stage.decls if is_decl else stage.body).append(s)
        self.stages.append(stage)
        self.dims.append(dims)
        return dims

    def source(self, name: str, summary: str, dims: list[str] | None = None) -> str:
        """The joined program; the last stage writes the kernel's output (seen as `dims`: a reshape of it)."""
        n = len(self.stages)
        host = list(self.shape_lines)
        fields = []
        for st in self.stages:
            host += st.host
            fields += st.fields
        text_host = [_rename(ast.unparse(s), "UB_FIRST", f"(hw.ub_bytes - {BUDGET * (n - 1)})") for s in host]
        decls, body = [], []
        for k in range(n - 1):
            decls.append(f"ws_{k} = A.workspace({self.inputs[0]}.dtype, t.ws_{k})")
        pool, renames = _share_queues(self.stages, self.inputs[0])
        decls += pool
        for k, st in enumerate(self.stages):
            own = [ast.unparse(s) for s in st.decls if ast.unparse(s.targets[0]) not in renames[k]]
            lines = own + (["A.sync_all()"] if k else []) + [ast.unparse(s) for s in st.body]
            text = "\n".join(lines)
            for a, b in renames[k].items():
                text = _rename(text, a, b)
            decls += text.splitlines()[:len(own)]
            body += text.splitlines()[len(own):]
        text = _rename("\n".join(decls + body), f"ws_{n - 1}", self.out)
        sizes = [f"ws_{k}=" + (" * ".join(f"({d})" for d in self.dims[k]) or "1") for k in range(n - 1)]
        kw = ", ".join(["block_dim=hw.vector_cores"] + [ast.unparse(f) for f in fields] + sizes)
        ins = ", ".join(self.inputs)
        shape_text = [ast.unparse(s) for s in self.shape_lines]
        cols = ", ".join(f'"{i}": {FLOATS}' for i in self.inputs)
        tup = "(" + "".join(f"{d}, " for d in (dims if dims is not None else self.dims[-1])) + ")"
        return (doc(summary) + "\n\n" +
                f"@A.tiling\ndef tiling({ins}, hw):\n" + _block(text_host + [f"return A.Tiling({kw})"]) + "\n\n\n" +
                f"@A.shapes\ndef shapes({ins}):\n" + _block(shape_text + [f'return {{"{self.out}": {tup}}}']) +
                "\n\n\n" +
                f'@A.kernel(inputs={{{cols}}}, outputs={{"{self.out}": "{self.inputs[0]}"}})\n'
                f"def {kernel_name(name)}({ins}, {self.out}, t):\n" + _block(text.splitlines()) + "\n")


def _share_queues(stages: list[Stage], like: str, apart: bool = True) -> tuple[list[str], list[dict[str, str]]]:
    """The stages run one after another, so the j-th loaded (stored) tile of each stage can be one queue: a core
    has 8 per direction, which a GEMM stage and a norm stage with its parameters would pass together. Tiles of
    an input's dtype share (the inputs have one dtype column), others by their dtype."""
    sizes: dict[str, list[str]] = {}
    dtypes: dict[str, str] = {}
    renames: list[dict[str, str]] = []
    for st in stages:
        ub = {ast.unparse(d.targets[0]): d.value for d in st.decls if ast.unparse(d.value.func) == "A.ub"}
        role: dict[str, str] = {}
        for node in ast.walk(ast.Module(body=st.body, type_ignores=[])):
            if isinstance(node, ast.Call) and ast.unparse(node.func) in ("A.load", "A.store"):
                at = 0 if ast.unparse(node.func) == "A.load" else 1
                if len(node.args) > at and isinstance(node.args[at], ast.Name) and node.args[at].id in ub:
                    role.setdefault(node.args[at].id, "qin" if at == 0 else "qout")
        double = {a.id for loop in ast.walk(ast.Module(body=st.body, type_ignores=[])) if isinstance(loop, ast.For)
                  and any(k.arg == "stages" and ast.unparse(k.value) == "2" for k in getattr(loop.iter, "keywords", []))
                  for node in ast.walk(loop) if isinstance(node, ast.Call) for a in node.args[:2] if isinstance(a, ast.Name)}
        count: dict[str, int] = {}
        mine = {}
        for tile, r in sorted(role.items(), key=lambda kv: kv[0] not in double):
            dt = ast.unparse(ub[tile].args[0])
            key = "in" if dt.endswith(".dtype") else dt.replace("A.", "")
            # `apart`: a double-buffered tile shares only with double-buffered ones (a shared queue takes two
            # slots of the largest tile: a stage that sized its tiles as single ones, a GEMM's, overflowed the UB)
            key += "_d" if apart and tile in double else ""
            j = count[r + key] = count.get(r + key, -1) + 1
            pooled = f"{r}_{key}_{j}"
            dtypes[pooled] = f"{like}.dtype" if key.startswith("in") else dt
            sizes.setdefault(pooled, []).append(ast.unparse(ub[tile].args[1]))
            mine[tile] = pooled
        renames.append(mine)

    for way in ("qin", "qout"):              # apart, past a core's 8 slots per direction: all share again
        if apart and sum(2 if "_d_" in p else 1 for p in sizes if p.startswith(way + "_")) > 8:
            return _share_queues(stages, like, apart=False)

    def biggest(xs: list[str]) -> str:
        return xs[0] if len(xs) == 1 else f"max({xs[0]}, {biggest(xs[1:])})"
    return [f"{p} = A.ub({dtypes[p]}, {biggest(sorted(set(v)))})" for p, v in sizes.items()], renames


def _rename(text: str, a: str, b: str) -> str:
    return re.sub(rf"\b{re.escape(a)}\b", b, text)


def _block(lines: list[str]) -> str:
    return "\n".join("    " + ln for s in lines for ln in s.splitlines())
