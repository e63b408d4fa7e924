"""Elementwise chains: any DAG of activations, scalar arithmetic and same-shape binary ops over
inputs of one shape, computed in fp32 tiles between one load per input and one store."""
from __future__ import annotations

from kernelwright.agent.builtin import recipes
from kernelwright.agent.builtin.chain import ChainCompiler, Unsupported, is_elementwise
from kernelwright.agent.builtin.dslgen import decorator, doc, flat_tiling, ident, indent, kernel_name
from kernelwright.agent.builtin.graphview import FLOAT_DTYPES, OpGraph
from kernelwright.agent.builtin.patterns import Emitted

KNOWN = recipes.KNOWN


def match(g: OpGraph, name: str) -> Emitted | None:
    out = g.single_output()
    inputs = g.tensor_inputs
    if out is None or not inputs or out.shape is None or g.scalar_inputs:
        return None
    if not all(is_elementwise(g, n) for n in g.compute):
        return None
    if any(t.dtype not in FLOAT_DTYPES or t.numel != out.numel for t in inputs) or out.dtype not in FLOAT_DTYPES:
        return None
    taken: set[str] = set()
    names = {t.name: ident(t.name, taken) for t in inputs}
    y = ident("y", taken)
    comp = ChainCompiler(g)
    leaves = {t.name: comp.new() for t in inputs}
    try:
        result = comp.compile(g.compute, leaves, keep={out.name})[out.name]
    except Unsupported:
        return None
    first = names[inputs[0].name]
    body = []
    for t in inputs:
        body += [f"A.load({names[t.name]}_in, {names[t.name]}[off:], n)",
                 f'A.Cast({leaves[t.name]}, {names[t.name]}_in, "auto", n)']
    body += comp.lines + [f'A.Cast({y}_out, {result}, "auto", n)', f"A.store({y}[off:], {y}_out, n)"]
    decls = [f"{names[t.name]}_in = A.ub({names[t.name]}.dtype, t.tile)" for t in inputs]
    decls += [f"{y}_out = A.ub({y}.dtype, t.tile)"] + [f"{w} = A.ub(A.f32, t.tile)" for w in comp.tiles]
    io = " + ".join(["2 * " + f"{first}.dtype.size"] * (len(inputs) + 1))
    ops = ", ".join(dict.fromkeys(n.op for n in g.compute)) or "identity"
    kname = kernel_name(name)
    source = (doc(f"{name}: elementwise {ops}, computed in fp32 tiles (written by the builtin writer).") + "\n\n" +
              flat_tiling(first, [names[t.name] for t in inputs], io, len(comp.tiles), comp.advanced) + "\n\n" +
              decorator([names[t.name] for t in inputs], {y: first}) + "\n" +
              f"def {kname}({', '.join([names[t.name] for t in inputs] + [y, 't'])}):\n" +
              indent(decls, 1) + "\n" +
              f"    lo, hi = A.block_span(t.total, A.elems_per_block({first}.dtype))\n"
              "    for off, n in A.tiles(lo, hi, t.tile, stages=2):\n" + indent(body, 2) + "\n")
    return Emitted("elementwise", f"elementwise {ops} over {out.numel} elements", source)
