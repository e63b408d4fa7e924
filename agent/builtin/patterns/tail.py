"""The ops after a GEMM or a convolution, cut into segments the general composer writes (patterns/compose.py):
a segment is a small graph over the value in GM (a workspace) plus leaf tensors, built from the task's nodes
(tail_ops writes softmax, logsumexp, norms and pooling as the composer's elementwise ops and reductions). A
segment grows op by op while the composer still plans it (one set of reduced axes, no reduction of a reduced
value); otherwise its result goes to a workspace and the next segment reads it. Group norm and pooling
(windows as strided axes of a view) are segments of their own; a later nn.Linear / nn.Conv is a cube stage."""
from __future__ import annotations

import math
from dataclasses import dataclass

from kernelwright.agent.builtin.chain import Unsupported, fn_name
from kernelwright.agent.builtin.dslgen import ident
from kernelwright.agent.builtin.graphview import FLOAT_DTYPES, Node, OpGraph, ref
from kernelwright.agent.builtin.patterns.compose import attempt
from kernelwright.agent.builtin.patterns.stitch import Stage, Stitcher, View

from kernelwright.agent.builtin.patterns.tail_ops import KNOWN, PASS, POOLS, REDUCE, RESHAPE, TailOps

__all__ = ["KNOWN", "Segments", "Val", "regroup"]


@dataclass
class Val:
    gm: str
    dims: list[str]
    shape: list[int]
    strides: list[str] | None = None
    workspace: bool = True

    def view(self) -> View:
        return View(self.gm, self.dims, self.strides, self.workspace)


def regroup(shape_in: list[int], dims: list[str], shape_out: list[int]) -> list[str]:
    """Host expressions for a reshape's output dims: merged axes multiply, size-1 axes come and go; a true
    split of an axis is refused (its factors are not known from the shapes)."""
    out, i, j = [], 0, 0
    while j < len(shape_out):
        if shape_out[j] == 1 and (i >= len(shape_in) or shape_in[i] != 1):
            out.append("1")
            j += 1
            continue
        if i < len(shape_in) and shape_in[i] == 1 and shape_out[j] != 1:
            i += 1
            continue
        a, b, pi, pj = i + 1, j + 1, shape_in[i] if i < len(shape_in) else 1, shape_out[j]
        while pi != pj:
            if pi < pj and a < len(shape_in):
                pi, a = pi * shape_in[a], a + 1
            elif pj < pi:
                raise Unsupported(["view"], f"a reshape that splits an axis ({shape_in} -> {shape_out})")
            else:
                raise Unsupported(["view"], f"a reshape {shape_in} -> {shape_out}")
        out.append(" * ".join(f"({d})" for d in dims[i:a]))
        i, j = a, b
    if math.prod(shape_in[i:]) != 1:
        raise Unsupported(["view"], f"a reshape {shape_in} -> {shape_out}")
    return out


class Segments(TailOps):
    """Builds the segments of a tail and adds each, as a composer program, to the stitcher."""

    def __init__(self, g: OpGraph, st: Stitcher, start: Val, core_name: str, name: str, cube=None):
        self.g, self.st, self.name = g, st, name
        self.cube = cube                    # cube(segments, node) -> Stage | None: a later GEMM/convolution
        self.val = start                    # the value in GM the open segment reads
        self.at = {core_name: start}        # fx name -> a value stored in GM
        self.alias: dict[str, str] = {}
        self.tuples: set[str] = set()       # max/min over a dim: (values, indices)
        self.leaf_views: dict[str, tuple] = {}   # a reshaped parameter -> (its name, dims, shape)
        self._fresh()

    # ---- the open segment
    def _fresh(self) -> None:
        self.nodes: list[dict] = []
        self.ins: list[tuple[dict, View]] = []
        self.local: dict[str, str] = {}      # fx name -> segment node name
        self.cur = next(k for k, v in self.at.items() if v is self.val)
        self._input("zin", self.val.shape, self.val.view())
        self.local[self.cur] = "zin"

    def _input(self, name: str, shape: list[int], view: View) -> str:
        self.ins.append(({"name": name, "op": "placeholder", "kind": "placeholder", "args": [], "kwargs": {},
                          "shape": list(shape), "dtype": "float32"}, view))
        return name

    def node(self, op: str, args: list, shape: list[int], kwargs: dict | None = None, module: dict | None = None,
             kind: str = "call_function") -> str:
        name = f"s{len(self.nodes)}"
        self.nodes.append({"name": name, "op": op, "kind": kind, "args": args, "kwargs": kwargs or {}, "shape": shape,
                           "dtype": "float32", "module": module or {}, "target": None})
        return name

    def trace(self, out: str) -> dict:
        nodes = [p for p, _ in self.ins] + self.nodes
        nodes.append({"name": "output", "op": "output", "kind": "output", "args": [{"node": out}], "kwargs": {}})
        return {"ok": True, "task": self.name, "nodes": nodes, "params": []}

    def arg(self, v):
        """A task node's argument in the open segment (a leaf tensor becomes an input of it)."""
        if isinstance(v, list):
            return [self.arg(x) for x in v]
        name = ref(v)
        if name is None:
            return v
        name = self.alias.get(name, name)
        while name in self.g.by_name and self.g.node(name).op in PASS and self.g.node(name).kind != "call_module":
            name = ref(self.g.node(name).args[0])             # x.clone().detach() of an input, before the cube op
        if name in self.leaf_views:
            return {"node": self.leaf(*self.leaf_views[name])}
        if name in self.local:
            return {"node": self.local[name]}
        if name in self.at:                                   # a value an earlier segment stored
            val = self.at[name]
            self.local[name] = self._input(f"pv_{len(self.ins)}", val.shape, val.view())
            return {"node": self.local[name]}
        return {"node": self.leaf(name)}

    def leaf(self, name: str, dims: list[str] | None = None, shape: list[int] | None = None) -> str:
        n = self.g.node(name) if name in self.g.by_name else None
        target = n.target if n is not None and n.kind == "get_attr" else name
        if n is not None and n.kind not in ("placeholder", "get_attr"):
            raise Unsupported([n.op], f"{n.op} feeds the tail from before its segment")
        meta = self.g.params.get(target) if n is None or n.kind == "get_attr" else {"shape": n.shape, "dtype": n.dtype}
        if meta is None or meta.get("shape") is None or meta.get("dtype") not in FLOAT_DTYPES:
            raise Unsupported([], f"the tail reads {name}, not a float tensor")
        gm = ident(target, set())
        own = [f"{gm}.shape[{j}]" for j in range(len(meta["shape"]))]
        key = f"{name}@{dims}"
        if key not in self.local:
            self.local[key] = self._input(f"lf_{len(self.ins)}", shape or meta["shape"], View(gm, dims or own))
        return self.local[key]

    def close(self, final: bool = False, seen: tuple[list[str], list[int]] | None = None) -> Val:
        """The open segment as a stage; its result, in a workspace, is what the next segment reads (as
        `seen` = (dims, shape) when the segment worked on a view of another shape)."""
        out = self.local[self.cur]
        emitted, why = attempt(OpGraph(self.trace(out)), self.name)
        if emitted is None:
            raise Unsupported([], why)
        dims = self.st.add(Stage(emitted.source, [v for _, v in self.ins]))
        shape = next(n["shape"] for n in self.nodes if n["name"] == out) if out != "zin" else self.val.shape
        val = Val(f"ws_{len(self.st.stages) - 1}", *(seen or (dims, list(shape))))
        self.at[self.cur] = val
        self.val = val
        if not final:
            self._fresh()
        return val

    def fits(self) -> bool:
        return attempt(OpGraph(self.trace(self.local[self.cur])), self.name)[0] is not None

    # ---- the task's ops
    def step(self, n: Node) -> None:
        """Adds task node n, closing the open segment first when the composer cannot take n with it."""
        op = fn_name(n)
        src = self.alias.get(ref(n.args[0]), ref(n.args[0])) if n.args else None
        srcn = self.g.node(src) if src in self.g.by_name else None
        if n.op in ("size", "dim") or n.op == "getattr" and n.args[1:] == ["shape"] or \
                n.op == "getitem" and srcn is not None and srcn.op in ("size", "getattr") and srcn.shape is None:
            return None                   # sizes read for a view: the view's shape is in the trace
        if op in PASS or op in RESHAPE and srcn is not None and srcn.shape == n.shape:
            self.alias[n.name] = src
            return
        if srcn is not None and n.kind != "call_module" and _over_ones(n, srcn):
            if op in ("max", "min"):
                self.tuples.add(n.name)
            self.alias[n.name] = src        # a reduction over axes of size 1 (a mean's kept axis): the value
            return
        if n.op == "getitem" or n.op == "getattr" and n.args[1:] == ["values"]:
            if src in self.tuples and n.args[1] in (0, "values"):
                self.alias[n.name] = src
                return
            raise Unsupported([n.op], "an item of a tuple other than a reduction's values")
        if op in RESHAPE and srcn is not None and srcn.kind in ("placeholder", "get_attr"):
            target = srcn.target if srcn.kind == "get_attr" else src
            gm = ident(target, set())
            own = [f"{gm}.shape[{j}]" for j in range(len(srcn.shape))]
            self.leaf_views[n.name] = (src, regroup(srcn.shape, own, list(n.shape)), list(n.shape))
            return None
        if op in RESHAPE:
            return self.reshape(n, src)
        if self.cube is not None and (stage := self.cube(self, n)) is not None:
            self.isolate(src, n)
            return self.staged(stage, n)
        if op == "GroupNorm" or op in POOLS:
            self.isolate(src, n)
            return self.group_norm(n) if op == "GroupNorm" else self.pool(n)
        if self._spreads_reduced(n):
            self.close()                # stored once, not reduced again for every lane of the new axes
        saved = (list(self.nodes), list(self.ins), dict(self.local), self.cur)
        self.lower(n)
        if self.fits():
            return
        self.nodes, self.ins, self.local, self.cur = saved
        if not self.nodes:
            raise Unsupported([n.op], self.why(n))
        if src != self.cur:
            raise Unsupported([n.op], f"{n.op} reads a value its segment does not end with")
        self.close()
        self.lower(n)
        if not self.fits():
            raise Unsupported([n.op], self.why(n))

    def _spreads_reduced(self, n: Node) -> bool:
        """n broadcasts the open segment's result, a reduction's, along new outer axes (min over C of (B, C), then
        + a (1, C, 1, 1) bias: (1, C, B, 1)). In one segment the composer's rows would be n's, each reducing its
        row again: C * B rows of C (a 900 s timeout at 512 x 1024); closed first, the reduction runs once."""
        out = self.local.get(self.cur)
        node = next((m for m in self.nodes if m["name"] == out), None)
        if node is None or not any(m["op"] in REDUCE for m in self.nodes) or n.shape is None or \
                self.cur not in {self.alias.get(ref(a), ref(a)) for a in n.args if ref(a)}:
            return False
        extra = len(n.shape) - len(node["shape"])
        return extra > 0 and math.prod(n.shape[:extra]) > 1

    def why(self, n: Node) -> str:
        self.lower(n)
        return f"{n.op}: " + attempt(OpGraph(self.trace(self.local[self.cur])), self.name)[1]

    def reshape(self, n: Node, src: str) -> None:
        """A view of the value in GM (the open segment is closed first)."""
        self.isolate(src, n)
        try:
            dims = regroup(self.val.shape, self.val.dims, list(n.shape))
        except Unsupported:
            dims = self.sized(n)
        val = Val(self.val.gm, dims, list(n.shape))
        self.at[n.name] = self.val = val
        self._fresh()

    def sized(self, n: Node) -> list[str]:
        """A view's dims from its arguments when they are sizes of values stored in GM (x.view(b, c, d, h, w)
        after `b, c, d, h, w = x.shape`), -1 the rest of the elements."""
        args = n.args[1:] if len(n.args) > 2 or not isinstance(n.args[1], list) else n.args[1]
        dims: list[str | None] = []
        for a in args:
            src = self.g.node(ref(a)) if ref(a) else None
            if src is not None and src.op == "getitem" and ref(src.args[0]):
                owner = self.g.node(ref(src.args[0]))
                v = self.at.get(self.alias.get(ref(owner.args[0]), ref(owner.args[0])))
                if owner.op == "getattr" and owner.args[1:] == ["shape"] and v is not None and \
                        isinstance(src.args[1], int):
                    dims.append(v.dims[src.args[1]])
                    continue
            if a == -1:
                dims.append(None)
            elif a == 1:
                dims.append("1")
            else:
                raise Unsupported([n.op], f"a reshape to {n.shape} by sizes the writer cannot follow")
        if len(dims) != len(n.shape) or dims.count(None) > 1:
            raise Unsupported([n.op], f"a reshape to {n.shape}")
        total = " * ".join(f"({d})" for d in self.val.dims) or "1"
        rest = " * ".join(f"({d})" for d in dims if d is not None) or "1"
        return [d if d is not None else f"({total}) // ({rest})" for d in dims]

    def isolate(self, src: str, n: Node) -> None:
        """Views, group norm, pooling and later cube ops read the value from GM: the open segment, which must
        end with that value, is closed first."""
        if self.nodes or self.local.get(src) != "zin":
            if src != self.cur:
                raise Unsupported([n.op], f"{n.op} of a value its segment does not end with")
            self.close()
        if self.val.strides is not None:
            raise Unsupported([n.op], f"{n.op} of a strided view")

    def staged(self, stage: Stage, n: Node) -> None:
        """A stage written by another recogniser (a later GEMM or convolution) reading the value in GM."""
        stage.inputs = [self.val.view() if v is None else v for v in stage.inputs]
        dims = self.st.add(stage)
        self.val = self.at[n.name] = Val(f"ws_{len(self.st.stages) - 1}", dims, list(n.shape))
        self._fresh()

    def reseat(self, dims: list[str], shape: list[int], strides: list[str] | None = None) -> None:
        """The open (empty) segment reads the value in GM as `dims` (a view of it)."""
        self.ins[0] = (dict(self.ins[0][0], shape=list(shape)), View(self.val.gm, dims, strides, self.val.workspace))


def _over_ones(n: Node, srcn: Node) -> bool:
    """n reduces (sum, mean, max, min, logsumexp) only axes of size 1 of its input, keeping them: n is its input.
    (The composer would reduce the frame's axis there, counting the broadcast value once per lane.)"""
    if fn_name(n) not in ("sum", "mean", "amax", "amin", "max", "min", "logsumexp") or srcn.shape is None or \
            n.shape != srcn.shape:
        return False
    dims = n.arg(1, "dim")
    dims = dims if isinstance(dims, (list, tuple)) else [dims]
    if not dims or not all(isinstance(d, int) and not isinstance(d, bool) for d in dims):
        return False
    return all(srcn.shape[d % len(srcn.shape)] == 1 for d in dims)
