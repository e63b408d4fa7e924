"""Elementwise chains: any DAG of activations, scalar arithmetic and same-shape binary/ternary ops over
inputs of one shape, computed in fp32 tiles between one load per input and one store per result.
In-place updates (`m.mul_(b1).add_(g, alpha=1 - b1)`, optimizer steps) are stored back into the
inputs they overwrite, each block writing back only what it read."""
from __future__ import annotations

from kernelwright.agent.builtin import recipes
from kernelwright.agent.builtin.chain import ChainCompiler, Unsupported, is_elementwise
from kernelwright.agent.builtin.dslgen import decorator, doc, flat_tiling, ident, indent, kernel_name
from kernelwright.agent.builtin.graphview import FLOAT_DTYPES, OpGraph
from kernelwright.agent.builtin.patterns import Emitted

KNOWN = recipes.KNOWN


def match(g: OpGraph, name: str) -> Emitted | None:
    inputs = g.tensor_inputs
    if not inputs or g.scalar_inputs or any(t.dtype not in FLOAT_DTYPES for t in inputs):
        return None
    mutated = g.mutated
    if not all(is_elementwise(g, n) for n in g.compute) or g.returns_tuple:
        return None
    returned = g.outputs[0] if g.outputs and g.outputs[0] else None
    if returned is None and not mutated:
        return None
    numel, dtype = inputs[0].numel, inputs[0].dtype
    results = [g.node(r) for r in [returned, *mutated.values()] if r]
    if any(t.numel != numel or t.dtype != dtype for t in inputs + results):
        return None
    taken: set[str] = set()
    names = {t.name: ident(t.name, taken) for t in inputs}
    comp = ChainCompiler(g)
    leaves = {t.name: comp.new() for t in inputs}
    keep = {r.name for r in results}
    try:
        tiles = comp.compile(g.compute, leaves, keep=keep)
    except Unsupported:
        return None
    stores = [(ident("y", taken), returned or next(iter(mutated.values())))]   # (GM tensor, fx value)
    stores += [(names[base], last) for base, last in mutated.items()]
    first = names[inputs[0].name]
    body = []
    for t in inputs:
        body += [f"A.load({names[t.name]}_in, {names[t.name]}[off:], n)",
                 f'A.Cast({leaves[t.name]}, {names[t.name]}_in, "auto", n)']
    body += comp.lines
    for gm, value in stores:
        body += [f'A.Cast({gm}_out, {tiles[value]}, "auto", n)', f"A.store({gm}[off:], {gm}_out, n)"]
    decls = [f"{names[t.name]}_in = A.ub({names[t.name]}.dtype, t.tile)" for t in inputs]
    decls += [f"{gm}_out = A.ub({gm}.dtype, t.tile)" for gm, _ in stores] + [f"{w} = A.ub(A.f32, t.tile)" for w in comp.tiles]
    io = " + ".join([f"2 * {first}.dtype.size"] * (len(inputs) + len(stores)))
    ops = ", ".join(dict.fromkeys(n.op for n in g.compute)) or "identity"
    y = stores[0][0]
    in_place = f"; {', '.join(names[b] for b in mutated)} updated in place" if mutated else ""
    source = (doc(f"{name}: elementwise {ops} in fp32 tiles{in_place} (written by the builtin writer).") + "\n\n" +
              flat_tiling(first, [names[t.name] for t in inputs], io, len(comp.tiles), comp.advanced) + "\n\n" +
              decorator([names[t.name] for t in inputs], {y: first}) + "\n" +
              f"def {kernel_name(name)}({', '.join([names[t.name] for t in inputs] + [y, 't'])}):\n" +
              indent(decls, 1) + "\n" +
              f"    lo, hi = A.block_span(t.total, A.elems_per_block({first}.dtype))\n"
              "    for off, n in A.tiles(lo, hi, t.tile, stages=2):\n" + indent(body, 2) + "\n")
    family = "optimizer" if mutated else "elementwise"
    return Emitted(family, f"elementwise {ops} over {numel} elements{in_place}", source)
