"""The ops after a GEMM or a convolution, cut into segments the general composer writes (patterns/compose.py):
a segment is a small graph over the value in GM (a workspace) plus leaf tensors, built from the task's nodes with
softmax, log_softmax, logsumexp, max/min over a dim, batch norm (eval), layer norm and instance norm written as
the composer's elementwise ops and reductions. A segment grows op by op while the composer still plans it (one
set of reduced axes, no reduction of a reduced value); otherwise its result goes to a workspace and the next
segment reads it. Group norm and pooling (windows as strided axes of a view) are segments of their own."""
from __future__ import annotations

import math
from dataclasses import dataclass

from kernelwright.agent.builtin.chain import Unsupported, fn_name, is_elementwise
from kernelwright.agent.builtin.dslgen import ident
from kernelwright.agent.builtin.graphview import FLOAT_DTYPES, Node, OpGraph, ref
from kernelwright.agent.builtin import recipes
from kernelwright.agent.builtin.patterns.compose import attempt
from kernelwright.agent.builtin.patterns.stitch import Stage, Stitcher, View

PASS = {"contiguous", "clone", "detach", "identity", "Dropout", "dropout", "Identity", "float", "to", "type_as"}
RESHAPE = {"view", "reshape", "flatten", "squeeze", "unsqueeze", "Flatten"}
REDUCE = {"sum", "mean", "amax", "amin", "max", "min", "logsumexp"}
SOFTMAX = {"softmax", "Softmax", "log_softmax", "LogSoftmax"}
BATCHNORMS = {"BatchNorm1d", "BatchNorm2d", "BatchNorm3d"}
INSTANCENORMS = {"InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"}
POOLS = {"AvgPool1d": "mean", "AvgPool2d": "mean", "AvgPool3d": "mean", "MaxPool1d": "amax", "MaxPool2d": "amax",
         "MaxPool3d": "amax", "avg_pool1d": "mean", "avg_pool2d": "mean", "avg_pool3d": "mean", "max_pool1d": "amax",
         "max_pool2d": "amax", "max_pool3d": "amax"}
GLOBAL_POOLS = {"AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "adaptive_avg_pool1d",
                "adaptive_avg_pool2d", "adaptive_avg_pool3d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d",
                "adaptive_max_pool2d", "adaptive_max_pool3d"}
KNOWN = PASS | RESHAPE | REDUCE | SOFTMAX | BATCHNORMS | INSTANCENORMS | set(POOLS) | GLOBAL_POOLS | \
    {"GroupNorm", "group_norm", "LayerNorm", "layer_norm", "getitem"} | recipes.KNOWN


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


class Segments:
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
            self.local[key] = self._input(f"lf_{len(self.ins)}", shape or meta["shape"], View(gm, dims or own, None, False))
        return self.local[key]

    def per_channel(self, target: str, rank: int) -> dict:
        """A (C,) parameter broadcast along axis 1 of a rank-`rank` value: viewed as (C, 1, ...)."""
        p = self.g.params[target]
        gm = ident(target, set())
        return {"node": self.leaf(target, [f"{gm}.shape[0]"] + ["1"] * (rank - 2), [p["shape"][0]] + [1] * (rank - 2))}

    # ---- closing a segment
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
        if op in PASS or op in RESHAPE and srcn is not None and srcn.shape == n.shape:
            self.alias[n.name] = src
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

    def lower(self, n: Node) -> None:
        op = fn_name(n)
        x = self.arg(n.args[0]) if n.args else None
        shape = list(n.shape or [])
        rank = len(self.g.node(ref(n.args[0])).shape or []) if n.args and ref(n.args[0]) else 0
        out = None
        if op in ("max", "min") and _dim(n) is not None:
            full, d, keep = self.g.node(ref(n.args[0])).shape, _dim(n) % rank, bool(n.arg(2, "keepdim", False))
            vshape = [1 if i == d else s for i, s in enumerate(full) if keep or i != d]
            out = self.node("amax" if op == "max" else "amin", [x, [d]], vshape, {"keepdim": keep})
            self.tuples.add(n.name)
        elif op in ("sum", "mean", "amax", "amin") and n.kind != "call_module":
            out = self.node(op, [x] + self.arg(list(n.args[1:])), shape, {k: self.arg(v) for k, v in n.kwargs.items()})
        elif op in SOFTMAX or op == "logsumexp":
            d = n.module.get("dim") if n.kind == "call_module" else n.arg(1, "dim")
            if not isinstance(d, int):
                raise Unsupported([n.op], f"{n.op} without one dim")
            keep = bool(n.arg(2, "keepdim", False)) if op == "logsumexp" else True
            full = self.g.node(ref(n.args[0])).shape
            kshape = [1 if i == d % len(full) else s for i, s in enumerate(full)]
            m = self.node("amax", [x, [d]], kshape, {"keepdim": True})
            e = self.node("exp", [{"node": self.node("sub", [x, {"node": m}], full)}], full)
            if op == "logsumexp":
                s = self.node("sum", [{"node": e}, [d]], shape, {"keepdim": keep})
                m2 = self.node("amax", [x, [d]], shape, {"keepdim": keep})
                out = self.node("add", [{"node": m2}, {"node": self.node("log", [{"node": s}], shape)}], shape)
            else:
                s = self.node("sum", [{"node": e}, [d]], kshape, {"keepdim": True})
                if op in ("softmax", "Softmax"):
                    out = self.node("div", [{"node": e}, {"node": s}], full)
                else:
                    xm = self.node("sub", [x, {"node": m}], full)
                    out = self.node("sub", [{"node": xm}, {"node": self.node("log", [{"node": s}], kshape)}], full)
        elif op in BATCHNORMS or op in INSTANCENORMS and n.module.get("track_running_stats"):
            out = self.affine(n, self.batchnorm(n, x, shape, rank), shape, rank)
        elif op in INSTANCENORMS or op in ("LayerNorm", "layer_norm") and n.kind == "call_module":
            k = len(n.module.get("normalized_shape") or []) if op == "LayerNorm" else rank - 2
            out = self.normalise(x, shape, list(range(rank - k, rank)), float(n.module.get("eps", 1e-5)))
            if op == "LayerNorm":
                for p, how in (("weight", "mul"), ("bias", "add")):
                    if f"{n.target}.{p}" in self.g.params:
                        out = self.node(how, [{"node": out}, {"node": self.leaf(f"{n.target}.{p}")}], shape)
            else:
                out = self.affine(n, out, shape, rank)
        elif op in GLOBAL_POOLS:
            size = n.module.get("output_size") if n.kind == "call_module" else n.arg(1, "output_size")
            if any(s != 1 for s in (size if isinstance(size, list) else [size])):
                raise Unsupported([n.op], f"{n.op} to {size}")
            out = self.node("amax" if "Max" in op or "max" in op else "mean", [x, list(range(2, rank))], shape,
                            {"keepdim": True})
        elif is_elementwise(self.g, n):
            out = self.node(n.op, self.arg(list(n.args)), shape, {k: self.arg(v) for k, v in n.kwargs.items()},
                            n.module, n.kind)
        else:
            raise Unsupported([n.op], f"{n.op} after the cube op")
        self.local[n.name] = out
        self.cur = n.name

    def normalise(self, x: dict, shape: list[int], axes: list[int], eps: float) -> str:
        """(x - mean) / sqrt(var + eps) over `axes`: two passes of the composer."""
        kshape = [1 if i in axes else s for i, s in enumerate(shape)]
        mu = self.node("mean", [x, axes], kshape, {"keepdim": True})
        d = self.node("sub", [x, {"node": mu}], shape)
        var = self.node("mean", [{"node": self.node("mul", [{"node": d}, {"node": d}], shape)}, axes], kshape,
                        {"keepdim": True})
        sd = self.node("sqrt", [{"node": self.node("add", [{"node": var}, eps], kshape)}], kshape)
        return self.node("div", [{"node": d}, {"node": sd}], shape)

    def batchnorm(self, n: Node, x: dict, shape: list[int], rank: int) -> str:
        """Eval mode: (x - running_mean) / sqrt(running_var + eps), per channel (axis 1)."""
        rm, rv = (self.per_channel(f"{n.target}.{p}", rank) for p in ("running_mean", "running_var"))
        cs = [shape[1]] + [1] * (rank - 2)
        sd = self.node("sqrt", [{"node": self.node("add", [rv, float(n.module.get("eps", 1e-5))], cs)}], cs)
        return self.node("div", [{"node": self.node("sub", [x, rm], shape)}, {"node": sd}], shape)

    def affine(self, n: Node, v: str, shape: list[int], rank: int) -> str:
        for p, how in (("weight", "mul"), ("bias", "add")):
            if n.module.get("affine", True) and f"{n.target}.{p}" in self.g.params:
                v = self.node(how, [{"node": v}, self.per_channel(f"{n.target}.{p}", rank)], shape)
        return v

    def why(self, n: Node) -> str:
        self.lower(n)
        return f"{n.op}: " + attempt(OpGraph(self.trace(self.local[self.cur])), self.name)[1]

    def reshape(self, n: Node, src: str) -> None:
        """A view of the value in GM (the open segment is closed first)."""
        if self.local.get(src) != "zin":
            if src != self.cur:
                raise Unsupported([n.op], f"{n.op} of a value its segment does not end with")
            self.close()
        if self.val.strides is not None:
            raise Unsupported([n.op], f"{n.op} of a strided view")
        val = Val(self.val.gm, regroup(self.val.shape, self.val.dims, list(n.shape)), list(n.shape))
        self.at[n.name] = self.val = val
        self._fresh()

    def isolate(self, src: str, n: Node) -> None:
        """Group norm and pooling read the value from GM through a view of their own."""
        if self.local.get(src) != "zin":
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

    def group_norm(self, n: Node) -> None:
        G = n.module.get("num_groups") if n.kind == "call_module" else n.arg(1, "num_groups")
        v = self.val
        if not isinstance(G, int) or len(v.shape) < 2 or v.shape[1] % G:
            raise Unsupported([n.op], "group norm whose groups do not divide the channels")
        shape = [v.shape[0], G, v.shape[1] // G] + v.shape[2:]
        self.reseat([v.dims[0], str(G), f"({v.dims[1]}) // {G}"] + v.dims[2:], shape)
        out = self.normalise({"node": "zin"}, shape, list(range(2, len(shape))), float(n.module.get("eps", 1e-5)))
        for p, how in (("weight", "mul"), ("bias", "add")):
            target = f"{n.target}.{p}"
            if n.module.get("affine", True) and target in self.g.params and len(v.shape) == 2:
                gm = ident(target, set())
                leaf = self.leaf(target, [str(G), f"({gm}.shape[0]) // {G}"] + ["1"] * (len(shape) - 3),
                                 [G, v.shape[1] // G] + [1] * (len(shape) - 3))
                out = self.node(how, [{"node": out}, {"node": leaf}], shape)
        self.local[n.name], self.cur = out, n.name
        self.close(seen=(v.dims, list(n.shape)))         # the same memory, seen (N, C, ...) again
        if len(v.shape) > 2:          # the affine per channel, in the next segment (within the lanes of this one)
            self.local[n.name] = self.affine(n, "zin", list(n.shape), len(n.shape))

    def pool(self, n: Node) -> None:
        """Each pooled axis in a segment of its own: the axis seen as (windows, taps) with the windows
        `stride` apart (a strided view), reduced over the taps."""
        p = int(n.op[-2]) if n.op[-2].isdigit() else 0
        m = n.module if n.kind == "call_module" else {}
        ks = m.get("kernel_size", n.arg(1, "kernel_size"))
        st = m.get("stride", n.arg(2, "stride"))
        pad, dil = m.get("padding", n.arg(3, "padding", 0)), m.get("dilation", 1)
        ceil = m.get("ceil_mode", n.kwargs.get("ceil_mode", False))
        ks = [ks] * p if isinstance(ks, int) else ks
        st = ks if st in (None, []) else [st] * p if isinstance(st, int) else st
        if not p or any(x not in (0, [0] * p) for x in (pad,)) or dil not in (1, [1] * p) or ceil or \
                len(ks) != p or len(st) != p:
            raise Unsupported([n.op], f"{n.op} with padding, dilation or ceil_mode")
        kind = POOLS[n.op]
        rank = len(self.val.shape)
        for a, k, s in zip(range(rank - p, rank), ks, st):
            if k == 1 and s == 1:
                continue
            v = self.val
            strides = [" * ".join(f"({d})" for d in v.dims[j + 1:]) or "1" for j in range(rank)]
            o = (v.shape[a] - k) // s + 1
            shape = v.shape[:a] + [o, k] + v.shape[a + 1:]
            self.reseat(v.dims[:a] + [f"(({v.dims[a]}) - {k}) // {s} + 1", str(k)] + v.dims[a + 1:], shape,
                        strides[:a] + [f"{s} * ({strides[a]})", strides[a]] + strides[a + 1:])
            out = self.node(kind, [{"node": "zin"}, [a + 1]], v.shape[:a] + [o] + v.shape[a + 1:], {"keepdim": False})
            self.local[n.name], self.cur = out, n.name
            self.close()


def _dim(n: Node):
    d = n.arg(1, "dim")
    return d if isinstance(d, int) and not isinstance(d, bool) else None

