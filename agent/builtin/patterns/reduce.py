"""Reductions over one axis (sum, mean, max, min, prod; keepdim or not) and scans along one axis
(cumsum, reversed cumsum, cumprod), emitted from the DSL's reduce/ and scan/ examples."""
from __future__ import annotations

from kernelwright.agent.builtin.examples import instantiate
from kernelwright.agent.builtin.graphview import OpGraph, ref
from kernelwright.agent.builtin.patterns import Emitted
from kernelwright.agent.builtin.patterns.common import applied_to, one_dim, one_float_input, returns, work

REDUCE = {"sum": "sum", "mean": "mean", "amax": "max", "max": "max", "amin": "min", "min": "min", "prod": "prod"}
KNOWN = set(REDUCE) | {"cumsum", "cumprod", "flip"}


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
    return Emitted("reduce", f"{kind} over axis {dim} of a {x.shape} tensor (keepdim={keepdim})",
                   instantiate(f"reduce/reduce_{kind}.dsl.py", {"dim": dim, "keepdim": keepdim}, name))


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
