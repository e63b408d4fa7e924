"""Reductions over one axis (sum, mean, max, min, prod; keepdim or not), means over consecutive axes
(x.mean(dim=(2, 3)), global average pooling: adaptive_avg_pool with output size 1) and scans along
one axis (cumsum, reversed cumsum, cumprod), emitted from the DSL's reduce/ and scan/ examples."""
from __future__ import annotations

from kernelwright.agent.builtin.examples import instantiate
from kernelwright.agent.builtin.graphview import OpGraph, ref
from kernelwright.agent.builtin.patterns import Emitted
from kernelwright.agent.builtin.patterns.common import applied_to, one_dim, one_float_input, returns, work

REDUCE = {"sum": "sum", "mean": "mean", "amax": "max", "max": "max", "amin": "min", "min": "min", "prod": "prod"}
GLOBAL_AVG = {f"{kind}{d}d": d for d in (1, 2, 3) for kind in ("adaptive_avg_pool", "AdaptiveAvgPool")}
KNOWN = set(REDUCE) | {"cumsum", "cumprod", "flip"} | set(GLOBAL_AVG)


def _span(v, ndim: int) -> tuple[int, int] | None:
    """(first axis, count) of a list of two or more consecutive axes."""
    if not isinstance(v, list) or len(v) < 2 or not all(isinstance(a, int) and -ndim <= a < ndim for a in v):
        return None
    axes = sorted(a % ndim for a in v)
    return (axes[0], len(axes)) if axes == list(range(axes[0], axes[0] + len(axes))) else None


def _mean_over(g: OpGraph, n, x, name: str) -> Emitted | None:
    """A mean over consecutive axes, or a global average pooling: reduce_mean with a span."""
    ndim = len(x.shape)
    if n.op in GLOBAL_AVG:
        size = n.arg(1, "output_size")
        d = GLOBAL_AVG[n.op]
        if ndim != d + 2 or not (size == 1 or size == [1] * d):
            return None
        dim, span, keepdim = 2, d, True
    else:
        found = _span(n.arg(1, "dim"), ndim)
        if found is None:
            return None
        (dim, span), keepdim = found, bool(n.arg(2, "keepdim", False))
    if not returns(g, n):
        return None
    return Emitted("reduce", f"mean over axes {dim}..{dim + span - 1} of a {x.shape} tensor (keepdim={keepdim})",
                   instantiate("reduce/reduce_mean.dsl.py", {"dim": dim, "keepdim": keepdim, "span": span}, name))


def match(g: OpGraph, name: str) -> Emitted | None:
    x = one_float_input(g)
    nodes = work(g)
    if x is None or not nodes:
        return None
    ndim = len(x.shape)
    if len(nodes) == 3 and [n.op for n in nodes] == ["flip", "cumsum", "flip"]:
        return _reverse_cumsum(g, nodes, x, name)
    if len(nodes) != 1 or not applied_to(nodes[0], x) or nodes[0].kwargs.get("dtype") is not None:
        return None
    n = nodes[0]
    if n.op in GLOBAL_AVG or n.op == "mean" and isinstance(n.arg(1, "dim"), list) and len(n.arg(1, "dim")) > 1:
        return _mean_over(g, n, x, name)
    dim = one_dim(n.arg(1, "dim"), ndim)
    if dim is None:
        return None
    if n.op in ("cumsum", "cumprod"):
        if not returns(g, n):
            return None
        consts = {"dim": dim, "reverse": False} if n.op == "cumsum" else {"dim": dim}
        return Emitted("scan", f"{n.op} along axis {dim} of a {x.shape} tensor",
                       instantiate(f"scan/{n.op}.dsl.py", consts, name))
    kind = REDUCE.get(n.op)
    if kind is None:
        return None
    tuple_result = n.op in ("max", "min")               # torch.max(x, dim) -> (values, indices)
    if not returns(g, n, 0 if tuple_result else None):
        return None
    keepdim = bool(n.arg(2, "keepdim", False))
    consts = {"dim": dim, "keepdim": keepdim} | ({"span": 1} if kind == "mean" else {})
    return Emitted("reduce", f"{kind} over axis {dim} of a {x.shape} tensor (keepdim={keepdim})",
                   instantiate(f"reduce/reduce_{kind}.dsl.py", consts, name))


def _reverse_cumsum(g: OpGraph, nodes, x, name: str) -> Emitted | None:
    first, scan, last = nodes
    dims = [first.arg(1, "dims"), scan.arg(1, "dim"), last.arg(1, "dims")]
    axes = {one_dim(d, len(x.shape)) for d in dims}
    if len(axes) != 1 or None in axes or not applied_to(first, x) or ref(scan.args[0]) != first.name \
            or ref(last.args[0]) != scan.name or not returns(g, last):
        return None
    dim = axes.pop()
    return Emitted("scan", f"reversed cumsum along axis {dim} of a {x.shape} tensor",
                   instantiate("scan/cumsum.dsl.py", {"dim": dim, "reverse": True}, name))
