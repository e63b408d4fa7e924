"""How the tail's ops become the composer's: softmax, log_softmax, logsumexp, max/min over a dim, batch norm
(eval), layer and instance norm as elementwise ops and reductions in the open segment; group norm (the channels
split into groups: a view) and pooling (each pooled axis as (windows, taps): a strided view) as segments of their
own, except narrow groups of a (rows, C) value and short windows along the last axis, which are gathered stages
(tail_group_rows.py). A mixin of tail.Segments, which owns the segment state these methods add nodes to."""
from __future__ import annotations

import math
from dataclasses import replace

from kernelwright.agent.builtin import recipes
from kernelwright.agent.builtin.chain import Unsupported, fn_name, is_elementwise
from kernelwright.agent.builtin.dslgen import ident
from kernelwright.agent.builtin.graphview import Node, ref
from kernelwright.agent.builtin.patterns import tail_axis_pool, tail_group_rows
from kernelwright.agent.builtin.patterns.stitch import BUDGET, Stage, View

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



class TailOps:
    def per_channel(self, target: str, rank: int) -> dict:
        """A (C,) parameter broadcast along axis 1 of a rank-`rank` value: viewed as (C, 1, ...)."""
        p = self.g.params[target]
        gm = ident(target, set())
        return {"node": self.leaf(target, [f"{gm}.shape[0]"] + ["1"] * (rank - 2), [p["shape"][0]] + [1] * (rank - 2))}

    # ---- closing a segment
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
            d = d[0] if isinstance(d, list) and len(d) == 1 else d
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

    def group_norm(self, n: Node) -> None:
        G = n.module.get("num_groups") if n.kind == "call_module" else n.arg(1, "num_groups")
        v = self.val
        if not isinstance(G, int) or len(v.shape) < 2 or v.shape[1] % G:
            raise Unsupported([n.op], "group norm whose groups do not divide the channels")
        if n.kind == "call_module" and len(v.shape) == 2 and v.shape[1] // G <= tail_group_rows.NARROW:
            return self.narrow_groups(n, G)
        shape = [v.shape[0], G, v.shape[1] // G] + v.shape[2:]
        GE, LE = tail_group_rows.group_count(v.dims[1], v.shape[1], G)     # the channels per group are the constant
        self.reseat([v.dims[0], GE, LE] + v.dims[2:], shape)
        out = self.normalise({"node": "zin"}, shape, list(range(2, len(shape))), float(n.module.get("eps", 1e-5)))
        for p, how in (("weight", "mul"), ("bias", "add")):
            target = f"{n.target}.{p}"
            if n.module.get("affine", True) and target in self.g.params and len(v.shape) == 2:
                gm = ident(target, set())
                GW, LW = tail_group_rows.group_count(f"{gm}.shape[0]", v.shape[1], G)
                leaf = self.leaf(target, [GW, LW] + ["1"] * (len(shape) - 3),
                                 [G, v.shape[1] // G] + [1] * (len(shape) - 3))
                out = self.node(how, [{"node": out}, {"node": leaf}], shape)
        self.local[n.name], self.cur = out, n.name
        self.close(seen=(v.dims, list(n.shape)))         # the same memory, seen (N, C, ...) again
        if len(v.shape) > 2:          # the affine per channel, in the next segment (within the lanes of this one)
            self.local[n.name] = self.affine(n, "zin", list(n.shape), len(n.shape))

    def narrow_groups(self, n: Node, G: int) -> None:
        """Group norm of a (rows, C) value in groups of a few channels: a stage of its own
        (patterns/tail_group_rows.py) instead of one composer row per group."""
        keys = [f"{n.target}.{p}" for p in ("weight", "bias")]
        affine = n.module.get("affine", True) and all(k in self.g.params for k in keys)
        leaves = []
        for k in keys if affine else []:
            gm = ident(k, set())
            leaves.append(View(gm, [f"{gm}.shape[0]"]))
        self.staged(Stage(tail_group_rows.program(G, float(n.module.get("eps", 1e-5)), affine, self.val.shape[1]),
                          [None] + leaves), n)

    def pool_last(self, n: Node, kind: str, k: int) -> None:
        """Pooling of the last axis in windows of k taps, k apart: a stage of its own (patterns/tail_group_rows.py),
        not one composer row of k lanes per window."""
        v = self.val
        rows = " * ".join(f"({d})" for d in v.dims[:-1]) or "1"
        self.st.add(Stage(tail_group_rows.window_program(kind, k), [View(v.gm, [rows, v.dims[-1]], None, v.workspace)]))
        o = (v.shape[-1] - k) // k + 1
        self.val = self.at[n.name] = replace(v, gm=f"ws_{len(self.st.stages) - 1}", shape=v.shape[:-1] + [o],
                                             dims=v.dims[:-1] + [f"(({v.dims[-1]}) - {k}) // {k} + 1"], workspace=True)
        self._fresh()

    def pool_axis(self, n: Node, kind: str, k: int, a: int) -> None:
        """Pooling of axis `a` (not the last) in windows of k taps, k apart: a stage of its own
        (patterns/tail_axis_pool.py), not a composer unit per window row."""
        v = self.val
        rows = " * ".join(f"({d})" for d in v.dims[:a]) or "1"
        inner = " * ".join(f"({d})" for d in v.dims[a + 1:]) or "1"
        self.st.add(Stage(tail_axis_pool.axis_window_program(kind, k),
                          [View(v.gm, [rows, v.dims[a], inner], None, v.workspace)]))
        o = (v.shape[a] - k) // k + 1
        dims = v.dims[:a] + [f"(({v.dims[a]}) - {k}) // {k} + 1"] + v.dims[a + 1:]
        self.val = self.at[n.name] = replace(v, gm=f"ws_{len(self.st.stages) - 1}", dims=dims, workspace=True,
                                             shape=v.shape[:a] + [o] + v.shape[a + 1:])
        self._fresh()

    def pool(self, n: Node) -> None:
        """Each pooled axis in a segment of its own: the axis seen as (windows, taps) with the windows
        `stride` apart (a strided view), reduced over the taps."""
        p = int(n.op[-2]) if n.op[-2].isdigit() else 0
        m = n.module if n.kind == "call_module" else {}
        ks = m.get("kernel_size", n.arg(1, "kernel_size"))
        st = m.get("stride", n.arg(2, "stride"))
        pad, dil = m.get("padding", n.arg(3, "padding", 0)), m.get("dilation", 1)
        ceil = m.get("ceil_mode", n.kwargs.get("ceil_mode", False)) or m.get("divisor_override") or \
            m.get("return_indices") or n.kwargs.get("divisor_override") or n.kwargs.get("return_indices")
        ks = [ks] * p if isinstance(ks, int) else ks
        st = ks if st in (None, []) else [st] * p if isinstance(st, int) else st
        if not p or any(x not in (0, [0] * p) for x in (pad,)) or dil not in (1, [1] * p) or ceil or \
                len(ks) != p or len(st) != p:
            raise Unsupported([n.op], f"{n.op} with padding, dilation, ceil_mode, a divisor or indices")
        kind = POOLS[n.op]
        rank = len(self.val.shape)
        axes = list(zip(range(rank - p, rank), ks, st))
        if axes[-1][1] == axes[-1][2] and 2 <= axes[-1][1] <= tail_group_rows.NARROW:
            self.pool_last(n, kind, axes.pop()[1])
        for a, k, s in axes:
            if k == 1 and s == 1:
                continue
            v = self.val
            inner = math.prod(v.shape[a + 1:])
            if k == s and 2 <= k <= tail_group_rows.NARROW and v.strides is None and \
                    tail_axis_pool.fits(k, inner, BUDGET):
                self.pool_axis(n, kind, k, a)
                continue
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
