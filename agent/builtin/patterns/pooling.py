"""Max and average pooling over 1, 2 or 3 spatial dimensions (one kernel size, stride, padding and
dilation for every dimension), emitted from the DSL's pooling/ examples."""
from __future__ import annotations

from kernelwright.agent.builtin.examples import instantiate
from kernelwright.agent.builtin.graphview import OpGraph
from kernelwright.agent.builtin.patterns import Emitted
from kernelwright.agent.builtin.patterns.common import applied_to, one_float_input, returns, same_ints, work

POOLS = {f"{kind}{d}d": (kind.split("_")[0].lower().replace("pool", ""), d)
         for d in (1, 2, 3) for kind in ("MaxPool", "AvgPool", "max_pool", "avg_pool")}
KNOWN = set(POOLS)


def match(g: OpGraph, name: str) -> Emitted | None:
    x = one_float_input(g)
    nodes = work(g)
    if x is None or len(nodes) != 1 or nodes[0].op not in POOLS or not applied_to(nodes[0], x):
        return None
    n = nodes[0]
    kind, dims = POOLS[n.op]
    if len(x.shape) != dims + 2 or not returns(g, n):
        return None
    k = same_ints(n.arg(1, "kernel_size"), dims)
    stride = n.arg(2, "stride")
    s = k if stride in (None, []) else same_ints(stride, dims)
    p = same_ints(n.arg(3, "padding", 0), dims)
    if None in (k, s, p) or n.arg(5 if kind == "max" else 4, "ceil_mode", False):
        return None
    consts = {"kernel_size": k, "stride": s, "padding": p}
    if kind == "max":
        dil = same_ints(n.arg(4, "dilation", 1), dims)
        if dil is None or n.arg(6, "return_indices", False):
            return None
        consts["dilation"] = dil
    elif not n.arg(5, "count_include_pad", True) or n.arg(6, "divisor_override") is not None:
        return None
    return Emitted("pooling", f"{kind} pooling {dims}-D of {x.shape}, kernel {k}, stride {s}, padding {p}",
                   instantiate(f"pooling/{kind}_pool.dsl.py", consts, name))
