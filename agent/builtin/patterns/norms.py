"""Normalisation by a norm: x / ||x|| with the L2 or L1 norm along the last axis, or the Frobenius norm
of the whole tensor, emitted from the DSL's norms/ examples."""
from __future__ import annotations

from kernelwright.agent.builtin.examples import instantiate
from kernelwright.agent.builtin.graphview import Node, OpGraph, ref
from kernelwright.agent.builtin.patterns import Emitted
from kernelwright.agent.builtin.patterns.common import applied_to, one_dim, one_float_input, returns, work

KNOWN = {"norm", "div", "abs", "sum", "mean", "normalize"}


def _p(n: Node) -> object:
    return n.arg(1, "p", "fro")


def match(g: OpGraph, name: str) -> Emitted | None:
    x = one_float_input(g)
    nodes = work(g)
    if x is None or not nodes or not returns(g, nodes[-1]):
        return None
    last = len(x.shape) - 1
    kind, mean = None, False
    if len(nodes) == 1 and nodes[0].op == "normalize" and applied_to(nodes[0], x):
        n = nodes[0]
        if n.arg(1, "p", 2.0) in (2, 2.0) and one_dim(n.arg(2, "dim", 1), len(x.shape)) == last:
            kind = "l2"
    elif len(nodes) >= 2 and nodes[-1].op == "div" and applied_to(nodes[-1], x) and ref(nodes[-1].args[1]) == nodes[-2].name:
        den = nodes[-2]
        if len(nodes) == 2 and den.op == "norm" and applied_to(den, x):
            dim = den.arg(2, "dim")
            if dim is None and _p(den) == "fro":
                kind = "frobenius"
            elif one_dim(dim, len(x.shape)) == last and den.arg(3, "keepdim", False) and _p(den) in (1, 2, 1.0, 2.0):
                kind = "l1" if _p(den) in (1, 1.0) else "l2"
        elif len(nodes) == 3 and den.op in ("sum", "mean") and nodes[0].op == "abs" and applied_to(nodes[0], x) \
                and ref(den.args[0]) == nodes[0].name and one_dim(den.arg(1, "dim"), len(x.shape)) == last \
                and den.arg(2, "keepdim", False):
            kind, mean = "l1", den.op == "mean"
    if kind is None:
        return None
    where = "the whole tensor" if kind == "frobenius" else "the last axis"
    if mean:
        return Emitted("norms", f"x divided by the mean of |x| over {where} ({x.shape})",
                       instantiate("norms/l1_norm.dsl.py", {"mean": True}, name))
    return Emitted("norms", f"x divided by its {kind} norm over {where} ({x.shape})",
                   instantiate(f"norms/{kind}_norm.dsl.py", {"mean": False} if kind == "l1" else {}, name))
