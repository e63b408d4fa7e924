"""The general composer on an intermediate: the chain/reduction lowering of patterns/compose.py applied to
what follows one node of a graph (a GEMM's or convolution's result), for writers that compute that node
themselves (the cube patterns) and want the composer to write the tail.

Contract of `compose_tail(g, node, name)`:
- `g` is the traced graph; `node` names the value the caller computes (e.g. the matmul or conv node). The
  tail is every node after it that the graph's single output depends on. It must be a composer graph:
  broadcasting elementwise ops, reductions over one set of consecutive axes, totals (patterns/compose_plan.py
  says what fits); otherwise `Unsupported` is raised with the reason, as the composer's fallback does.
- In the returned `Parts` the intermediate is the first input, `parts.names[node]`; the other inputs are the
  tail's own (a bias parameter, a residual input), `parts.names[<traced name>]`. The caller declares the intermediate as a GM tensor of that
  name holding the value in row-major order with the node's traced shape (e.g.
  `<name> = A.workspace(A.f32, t.<elements field>)`) and writes it completely, then `A.sync_all()` before
  the tail reads it (the tail splits its work over the blocks differently).
- Kernel text: `parts.decls` go with the caller's declarations; `parts.body` (body level) and then
  `parts.end` (already indented one level) follow the barrier. The tail stores the graph's output into
  `parts.y` (the caller's output takes that name).
- Host text: `parts.host` lines (they read the inputs' shapes, so the intermediate must be an input of the
  tiling function with its traced shape, or the caller rewrites `F<a> = ...` in `parts.frame`) define
  the tail's fields; `parts.fields` ("name=expr", `block_dim=nb` first) go into the caller's A.Tiling.
  The tail's names (tiles w<k>, yout, pacc, ...; fields chunk, rows, L, lanes, outer, R, I, pieces, F<a>,
  D<a>, <input>_s<a>, inv_count, slots, scale; locals o, c, n, r, u, i<a>, j<a>) are the composer's own:
  the caller's program must not use them for anything else.
"""
from __future__ import annotations

import copy
from typing import Any

from kernelwright.agent.builtin.chain import Unsupported
from kernelwright.agent.builtin.graphview import OpGraph, ref
from kernelwright.agent.builtin.patterns.compose import Parts, compose_parts


def tail_trace(trace: dict[str, Any], node: str) -> dict[str, Any]:
    """The trace of what follows `node`: `node` becomes a placeholder of its shape and dtype; the nodes only
    it depended on (and that nothing after it reads) are dropped."""
    g = OpGraph(trace)
    if node not in g.by_name or g.node(node).shape is None:
        raise Unsupported([], f"no tensor value {node!r} in the graph")
    out = trace["nodes"][-1]
    need, seen = [ref(v) for v in (out["args"][0] if isinstance(out["args"][0], list) else [out["args"][0]])], set()
    while need:                           # what the output reads, stopping at the intermediate
        name = need.pop()
        if name is None or name in seen:
            continue
        seen.add(name)
        if name == node:
            continue
        n = g.node(name)
        need += [ref(a) for a in _refs(n.args) + _refs(list(n.kwargs.values()))]
    if node not in seen:
        raise Unsupported([], f"the output does not depend on {node!r}")
    nodes = []
    for entry in trace["nodes"]:
        if entry["name"] == node:
            nodes.append({"name": node, "op": "placeholder", "kind": "placeholder", "args": [], "kwargs": {},
                          "shape": entry["shape"], "dtype": entry.get("dtype"), "target": node})
        elif entry["name"] in seen or entry["kind"] == "output":
            nodes.append(copy.deepcopy(entry))
    placeholders = sorted((n for n in nodes if n["kind"] == "placeholder"), key=lambda n: n["name"] != node)   # it first
    return {**trace, "nodes": placeholders + [n for n in nodes if n["kind"] != "placeholder"]}


def _refs(values: list[Any]) -> list[Any]:
    out = []
    for v in values:
        if isinstance(v, list):
            out += _refs(v)
        elif ref(v):
            out.append(v)
    return out


def compose_tail(g: OpGraph, node: str, name: str) -> Parts:
    """The composer's pieces for the tail after `node` (see the module's contract), or Unsupported."""
    return compose_parts(OpGraph(tail_trace(g.trace, node)), name)

