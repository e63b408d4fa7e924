"""The analysis half of the general composer (patterns/compose.py): rewrite the traced graph into
elementwise ops and plain reductions (mean, norm, cosine_similarity, pairwise_distance and triplet
margin loss expand into sums and elementwise math), place every value in one frame (the broadcast
shape of the inputs) and decide the loop nest:

- the frame's axes split into outer axes (split over the blocks), the reduced axes S (every reduction
  of the graph reduces the same consecutive axes) and the inner axes after S;
- row mode (S is a suffix of the frame, or there is no reduction and the lanes are the last axis):
  a tile runs along S; a reduction folds chunks into an accumulator and ends as a scalar per row;
- column mode (inner axes after S): a tile runs along the inner axes and a loop walks S row by row;
  a reduction is an accumulator tile.
A value is `full` (varies over S) or `red` (constant over S: a reduction's result or what follows
from it). A reduction of depth d (d reductions on its longest path from an input) is fed by pass d-1
over S; the last pass computes a full-level result. The output is the frame (full), a reduction's
shape (red), or a total over everything (mean/sum with no dim, or a loss), summed across blocks."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from kernelwright.agent.builtin import recipes
from kernelwright.agent.builtin.chain import Unsupported, fn_name, is_elementwise
from kernelwright.agent.builtin.graphview import FLOAT_DTYPES, Node, OpGraph, ref

REDUCE = {"sum": "sum", "mean": "mean", "amax": "max", "amin": "min", "norm": "norm", "linalg_vector_norm": "norm"}
COMPOSITE = {"cosine_similarity", "CosineSimilarity", "pairwise_distance", "PairwiseDistance", "TripletMarginLoss",
             "triplet_margin_loss"}
ACC = {"sum": ("Add", "0.0", "reduce_sum"), "max": ("Max", "-A.inf", "reduce_max"), "min": ("Min", "A.inf", "reduce_min")}
KNOWN = set(REDUCE) | COMPOSITE | {"where"}
MEAN = "inv_count"      # a scalar field: 1 / the elements a mean divides by (the reduced axes', or the total's)


@dataclass
class Plan:
    frame: list[int]
    S: list[int]                          # reduced frame axes (consecutive)
    ops: list[Node]                       # elementwise nodes and reductions (op "reduce"), in order
    fshape: dict[str, list[int]]          # value -> its shape in the frame (1 on broadcast axes)
    depth: dict[str, int]
    out: str                              # the value stored (or totalled)
    total: str | None = None              # "mean" | "sum": the output is this total of `out`
    inputs: list[Node] = field(default_factory=list)

    @property
    def glob(self) -> bool:
        """Totals inside the graph: every pass walks all of the block's rows, then a barrier."""
        return any(n.kwargs.get("global") for n in self.ops if n.op == "reduce")

    @property
    def row_mode(self) -> bool:
        return not self.S or self.S[-1] == len(self.frame) - 1

    @property
    def lanes(self) -> list[int]:
        if not self.S:        # the last axis longer than 1 and the size-1 axes after it: a (1, C, B, 1) frame
            # runs C rows of B lanes, not C * B rows of one lane
            last = max((a for a, d in enumerate(self.frame) if d > 1), default=len(self.frame) - 1)
            return list(range(last, len(self.frame)))
        return self.S if self.row_mode else list(range(self.S[-1] + 1, len(self.frame)))

    def level(self, name: str) -> str:
        fs = self.fshape[name]
        return "full" if any(fs[a] > 1 for a in self.S) or not self.S and any(x > 1 for x in fs) else "red"


class Builder:
    """Synthesised nodes (registered in the graph so the chain compiler can look them up)."""

    def __init__(self, g: OpGraph):
        self.g, self.k = g, 0

    def node(self, op: str, args: list[Any], shape: list[int] | None, kwargs: dict | None = None) -> Node:
        self.k += 1
        n = Node(f"_c{self.k}", op, "call_function", args, kwargs or {}, shape, "float32")
        self.g.by_name[n.name] = n
        return n


def _axes(v: Any, ndim: int) -> list[int] | None:
    if v is None or v == []:
        return list(range(ndim))
    v = v if isinstance(v, list) else [v]
    if not all(isinstance(a, int) and not isinstance(a, bool) and -ndim <= a < ndim for a in v):
        return None
    return sorted({a % ndim for a in v})


def _reduced(shape: list[int], axes: list[int], keep: bool) -> list[int]:
    return [1 if i in axes else s for i, s in enumerate(shape)] if keep else \
        [s for i, s in enumerate(shape) if i not in axes]


def expand(g: OpGraph, b: Builder) -> list[Node]:
    """The graph's compute nodes with composites and means/norms written as sums and elementwise ops;
    a reduction is a node of op "reduce" (kwargs: kind sum|max|min, axes, keep)."""
    out: list[Node] = []
    alias: dict[str, str] = {}

    def red(x: Node | str, axes: list[int], keep: bool, kind: str = "sum") -> Node:
        x = g.node(x) if isinstance(x, str) else x
        n = b.node("reduce", [{"node": x.name}], _reduced(x.shape, axes, keep), {"kind": kind, "axes": axes, "keep": keep})
        out.append(n)
        return n

    def ew(op: str, shape: list[int], *args: Any, **kw: Any) -> Node:
        n = b.node(op, list(args), shape, kw)
        out.append(n)
        return n

    def norm(x: Node, axes: list[int], keep: bool, p: Any) -> Node:
        if p in (1, 1.0):
            return red(ew("abs", x.shape, {"node": x.name}), axes, keep)
        if p not in (2, 2.0, "fro", None):
            raise Unsupported(["norm"], f"a norm of order {p}")
        sq = ew("mul", x.shape, {"node": x.name}, {"node": x.name})
        return ew("sqrt", _reduced(x.shape, axes, keep), {"node": red(sq, axes, keep).name})

    def pairwise(x1: str, x2: str, eps: float, keep: bool) -> Node:
        a = g.node(x1)
        d = ew("sub", a.shape, {"node": x1}, {"node": x2})
        d = ew("add", a.shape, {"node": d.name}, eps)
        return norm(d, [len(a.shape) - 1], keep, 2)

    for n in g.compute:
        n.args = [{"node": alias.get(ref(a), ref(a))} if ref(a) else a for a in n.args]
        n.kwargs = {k: {"node": alias.get(ref(a), ref(a))} if ref(a) else a for k, a in n.kwargs.items()}
        op = fn_name(n)
        if op in REDUCE and ref(n.args[0]) and g.node(ref(n.args[0])).shape is not None:
            x = g.node(ref(n.args[0]))
            nd = len(x.shape)
            if REDUCE[op] == "norm":
                axes, keep = _axes(n.arg(2, "dim"), nd), bool(n.arg(3, "keepdim", False))
            else:
                axes, keep = _axes(n.arg(1, "dim"), nd), bool(n.arg(2, "keepdim", False))
            if axes is None or n.kwargs.get("dtype") is not None:
                raise Unsupported([n.op], f"{n.op} over {n.arg(1, 'dim')}")
            kind = REDUCE[op]
            if kind == "norm":
                r = norm(x, axes, keep, n.arg(1, "p", "fro"))
            elif kind == "mean":
                s = red(x, axes, keep)
                r = ew("mul", s.shape, {"node": s.name}, {"node": MEAN})
            else:
                r = red(x, axes, keep, kind)
            alias[n.name] = r.name
        elif op in ("cosine_similarity", "CosineSimilarity"):
            x1, x2 = ref(n.args[0]), ref(n.args[1])
            a = g.node(x1)
            axes = _axes(n.arg(2, "dim", n.module.get("dim", 1)), len(a.shape))
            eps = float(n.arg(3, "eps", n.module.get("eps", 1e-8)))
            if axes is None or len(axes) != 1 or g.node(x2).shape != a.shape:
                raise Unsupported([n.op], "cosine_similarity of differently shaped inputs")
            dot = red(ew("mul", a.shape, {"node": x1}, {"node": x2}), axes, False)
            n1 = ew("clamp", dot.shape, {"node": norm(a, axes, False, 2).name}, min=eps)
            n2 = ew("clamp", dot.shape, {"node": norm(g.node(x2), axes, False, 2).name}, min=eps)
            den = ew("mul", dot.shape, {"node": n1.name}, {"node": n2.name})
            alias[n.name] = ew("div", dot.shape, {"node": dot.name}, {"node": den.name}).name
        elif op in ("pairwise_distance", "PairwiseDistance"):
            if float(n.arg(2, "p", n.module.get("norm", 2.0))) != 2.0:
                raise Unsupported([n.op], "a pairwise distance of order other than 2")
            alias[n.name] = pairwise(ref(n.args[0]), ref(n.args[1]), float(n.arg(3, "eps", n.module.get("eps", 1e-6))),
                                     bool(n.arg(4, "keepdim", n.module.get("keepdim", False)))).name
        elif op in ("TripletMarginLoss", "triplet_margin_loss"):
            m = n.module
            if m.get("swap") or float(m.get("p", 2.0)) != 2.0 or m.get("reduction", "mean") not in ("mean", "sum"):
                raise Unsupported([n.op], "a triplet margin loss with swap, p != 2 or no reduction")
            a, p, q = (ref(x) for x in n.args[:3])
            eps = float(m.get("eps", 1e-6))
            dap, dan = pairwise(a, p, eps, False), pairwise(a, q, eps, False)
            d = ew("sub", dap.shape, {"node": dap.name}, {"node": dan.name})
            d = ew("add", d.shape, {"node": d.name}, float(m.get("margin", 1.0)))
            d = ew("clamp", d.shape, {"node": d.name}, min=0.0)
            r = red(d, list(range(len(d.shape))), False)
            if m.get("reduction", "mean") == "mean":
                r = ew("mul", [], {"node": r.name}, {"node": MEAN})
            alias[n.name] = r.name
        elif n.op in ("getitem", "size", "dim") or fn_name(n) in recipes.IDENTITY and n.shape is not None and \
                ref(n.args[0]) and g.node(ref(n.args[0])).shape == n.shape:
            alias[n.name] = ref(n.args[0]) if n.op not in ("size", "dim") else n.name
        elif is_elementwise(g, n) or op == "where":
            out.append(n)
        else:
            raise Unsupported([n.op], f"{n.op} is neither elementwise nor a reduction")
    g.outputs = [alias.get(o, o) for o in g.outputs]
    return out


def _fit(shape: list[int], frame: list[int]) -> list[int] | None:
    """`shape` right-aligned in the frame, or None when it does not broadcast to it."""
    if len(shape) > len(frame):
        return None
    fs = [1] * (len(frame) - len(shape)) + list(shape)
    return fs if all(a in (1, b) for a, b in zip(fs, frame)) else None


def _broadcast(shapes: list[list[int]]) -> list[int]:
    """The inputs' common broadcast shape: the frame (not the largest input's shape, which a (B, 1) value
    and a (1, C, 1, 1) bias both fail to fill)."""
    rank = max(len(s) for s in shapes)
    frame = [1] * rank
    for s in shapes:
        for i, d in enumerate(s, rank - len(s)):
            if d != 1:
                if frame[i] not in (1, d):
                    raise Unsupported([], f"inputs of shapes {shapes} do not broadcast together (axis {i})")
                frame[i] = d
    return frame


def plan(g: OpGraph) -> Plan:
    """Raises Unsupported with the reason when the graph does not fit the composer."""
    if g.returns_tuple or g.mutated or len(g.outputs) != 1 or g.outputs[0] is None:
        raise Unsupported([], "one returned tensor, no in-place updates")
    inputs = g.tensor_inputs
    if not inputs or any(t.dtype not in FLOAT_DTYPES + ("bool",) for t in inputs):
        raise Unsupported([], "float (or bool mask) inputs")
    b = Builder(g)
    g.by_name[MEAN] = Node(MEAN, "placeholder", "placeholder", [], {})
    ops = expand(g, b)
    frame = _broadcast([t.shape for t in inputs])
    fshape: dict[str, list[int]] = {}
    squeezed: set[str] = set()
    depth: dict[str, int] = {}
    for t in inputs:
        fs = _fit(t.shape, frame)
        if fs is None:
            raise Unsupported([], f"input {t.name} {t.shape} does not broadcast to {frame}")
        fshape[t.name], depth[t.name] = fs, 0
    S: list[int] | None = None
    out_name = g.outputs[0]
    total = None
    for i, n in enumerate(ops):
        srcs = [ref(a) for a in list(n.args) + list(n.kwargs.values()) if ref(a) and ref(a) in fshape]
        if any(ref(a) and ref(a) not in fshape and g.node(ref(a)).kind != "placeholder"
               for a in list(n.args) + list(n.kwargs.values())):
            raise Unsupported([n.op], f"{n.op} reads a value the composer does not place")
        if n.op == "reduce":
            src = srcs[0]
            axes = [a + len(frame) - len(g.node(src).shape) for a in n.kwargs["axes"]]
            fs = fshape[src]
            if n.kwargs["axes"] == list(range(len(g.node(src).shape))):
                # a total over every axis: only as the graph's result (possibly scaled to a mean)
                rest = ops[i + 1:]
                if not (rest == [] and out_name == n.name or len(rest) == 1 and rest[0].op == "mul" and
                        out_name == rest[0].name and ref(rest[0].args[1]) == MEAN):
                    # a total inside the graph (lamb's norms): every block's partial, a barrier, the sum
                    if n.kwargs["kind"] != "sum" or fs != frame:
                        raise Unsupported([n.op], "a max/min over every axis, or a total of a broadcast value, "
                                                  "inside the graph")
                    n.kwargs["global"] = True
                    fshape[n.name], depth[n.name] = [1] * len(frame), depth[src] + 1
                    continue
                if n.kwargs["kind"] != "sum":
                    raise Unsupported([n.op], "a max/min over every axis as the result")
                total = "mean" if rest else "sum"
                out_name, ops = src, ops[:i]
                break
            if src in squeezed:
                raise Unsupported([n.op], "a reduction of a reduced value")
            if S is None:
                S = axes
            if axes != S or axes != list(range(axes[0], axes[-1] + 1)):
                raise Unsupported([n.op], f"reductions over different or non-consecutive axes ({S} and {axes})")
            fshape[n.name] = [1 if a in axes else s for a, s in enumerate(fs)]
            if not n.kwargs["keep"]:
                squeezed.add(n.name)
            depth[n.name] = depth[src] + 1
            continue
        fss = [fshape[s] for s in srcs]
        if not fss:
            raise Unsupported([n.op], f"{n.op} of constants only")
        sq = [s in squeezed for s in srcs if any(x > 1 for x in fshape[s])]
        if any(sq) and not all(sq):
            raise Unsupported([n.op], f"{n.op} mixes a reduced value without keepdim with a full one")
        fs = [max(c) for c in zip(*fss)]
        if any(ref(a) and g.node(ref(a)).kind == "placeholder" and g.node(ref(a)).shape is not None
               and g.node(ref(a)).dtype == "bool" for a in n.args) and n.op not in {"where", "mul"} | recipes.LOGIC:
            raise Unsupported([n.op], f"{n.op} of a bool tensor")
        fshape[n.name], depth[n.name] = fs, max(depth[s] for s in srcs)
        if any(sq) or all(s in squeezed or all(x == 1 for x in fshape[s]) for s in srcs) and any(s in squeezed for s in srcs):
            squeezed.add(n.name)
    if out_name not in fshape:
        raise Unsupported([], "the result is not computed from the inputs")
    if S and any(n.kwargs.get("global") for n in ops if n.op == "reduce"):
        raise Unsupported([], "a total inside the graph together with reductions over some axes")
    p = Plan(frame, S or [], ops, fshape, depth, out_name, total, inputs)
    last = g.node(g.outputs[0])
    if total is None:
        want = _reduced(frame, p.S, True) if p.level(out_name) == "red" and p.S else frame
        if p.level(out_name) == "full" and fshape[out_name] != frame:
            raise Unsupported([], "a result that broadcasts over fewer axes than the inputs")
        if math.prod(last.shape or [1]) != math.prod(want):
            raise Unsupported([], f"a result of shape {last.shape}")
    return p
