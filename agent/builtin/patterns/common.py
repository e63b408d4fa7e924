"""Small predicates the recognisers share."""
from __future__ import annotations

from typing import Any

from kernelwright.agent.builtin.graphview import FLOAT_DTYPES, Node, OpGraph, ref

STRUCTURAL = {"getitem", "size", "dim", "contiguous", "clone", "detach", "identity"}


def one_float_input(g: OpGraph) -> Node | None:
    ins = g.tensor_inputs
    if len(ins) != 1 or g.scalar_inputs or g.mutated or ins[0].dtype not in FLOAT_DTYPES:
        return None
    return ins[0]


def work(g: OpGraph) -> list[Node]:
    """The compute nodes that do something (not getitem/size/identity, not parameter reads)."""
    return [n for n in g.compute if n.op not in STRUCTURAL and n.kind != "get_attr"]


def returns(g: OpGraph, node: Node, item: int | None = None) -> bool:
    """The graph returns `node` (or `node[item]`, for ops returning (values, indices)), through identities."""
    out = g.single_output()
    while out is not None and out.op in STRUCTURAL - {"getitem"} and ref(out.args[0]):
        out = g.node(ref(out.args[0]))
    if out is None:
        return False
    if item is None:
        return out.name == node.name
    return out.op == "getitem" and ref(out.args[0]) == node.name and out.args[1] == item


def applied_to(node: Node, x: Node) -> bool:
    return bool(node.args) and ref(node.args[0]) == x.name


def one_dim(v: Any, ndim: int) -> int | None:
    """A single axis (int or one-element list), normalised to [0, ndim)."""
    if isinstance(v, list) and len(v) == 1:
        v = v[0]
    if isinstance(v, bool) or not isinstance(v, int) or not -ndim <= v < ndim:
        return None
    return v % ndim


def same_ints(v: Any, ndim: int) -> int | None:
    """An int, or a tuple/list of `ndim` equal ints (pooling sizes the examples apply to every dimension)."""
    if isinstance(v, int) and not isinstance(v, bool):
        return v
    if isinstance(v, list) and len(v) == ndim and len(set(v)) == 1 and isinstance(v[0], int):
        return v[0]
    return None


def cross_block_total(acc: str, y: str) -> str:
    """DSL lines (at kernel-body indent) that end a loss: each block stores its partial sum (already in
    `part`) to the GM workspace, A.sync_all, then block 0 adds the partials, scales by t.scale and
    stores the scalar to `y`. `acc` is a float tile block 0 may overwrite."""
    return f'''    A.store(partials[A.block_idx() * 8:], part, 1)
    A.sync_all()
    if A.block_idx() == 0:
        nb = A.block_num()
        A.load(allp, partials, 1, rows=nb, src_stride=8, dst_stride=8, pad=0.0)
        total = A.reduce_sum(allp, 8 * nb)
        A.Duplicate({acc}, total * t.scale, 1)
        A.Cast(yout, {acc}, "auto", 1)
        A.store({y}, yout, 1)
'''
