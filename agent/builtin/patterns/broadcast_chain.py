"""Elementwise chains over inputs that broadcast against each other (NumPy rules, rank 4 at most):
`x / (scale.abs() + 1)` with a per-channel scale, `a * b + c` over three broadcasting shapes, an
outer difference `a - b` of a column and a row. It follows the DSL's broadcast/mul_broadcast example:
shapes right-aligned and padded to rank 4 in the tiling, one output row (the last axis) at a time,
broadcast dimensions read with stride 0. An input whose last axis is the output's is loaded a row
chunk at a time; one whose last axis is 1 is read as one element per row and duplicated across the
chunk. Which inputs are which comes from the traced shapes; the tiling asserts each case agrees."""
from __future__ import annotations

from kernelwright.agent.builtin.chain import ChainCompiler, Unsupported, fn_name, is_elementwise
from kernelwright.agent.builtin.dslgen import decorator, doc, ident, indent, kernel_name
from kernelwright.agent.builtin.graphview import FLOAT_DTYPES, OpGraph, ref
from kernelwright.agent.builtin import recipes
from kernelwright.agent.builtin.patterns import Emitted

KNOWN = recipes.KNOWN
RANK = 4
LOCALS = {"c", "r", "r0", "r1", "i0", "i1", "i2", "rows", "nb", "chunk", "per_elem", "full", "rank", "y0", "y1", "y2",
          "y3"}                                   # names the program uses itself


def _dims(x: str) -> list[str]:
    """The tiling lines giving input x's shape right-aligned to rank 4: x_d0 .. x_d3."""
    return [f"{x}_d{i} = {x}.shape[{i - RANK}] if {x}.ndim >= {RANK - i} else 1" for i in range(RANK - 1)] + \
           [f"{x}_d{RANK - 1} = {x}.shape[-1]"]


def _max(names: list[str]) -> str:
    out = names[0]
    for n in names[1:]:
        out = f"max({out}, {n})"
    return out


def match(g: OpGraph, name: str) -> Emitted | None:
    inputs = g.tensor_inputs
    out = g.single_output()
    if out is None or len(inputs) < 2 or g.scalar_inputs or g.mutated or out.shape is None:
        return None
    dtype = inputs[0].dtype
    if dtype not in FLOAT_DTYPES or any(t.dtype != dtype for t in inputs) or out.dtype != dtype:
        return None
    if not 1 <= len(out.shape) <= RANK or any(not 1 <= len(t.shape) <= RANK for t in inputs):
        return None
    if all(t.shape == out.shape for t in inputs) or not all(is_elementwise(g, n) for n in g.compute):
        return None
    for n in g.compute:               # a reshape would move an operand's broadcast axes: not handled here
        src = ref(n.args[0]) if n.args else None
        if fn_name(n) in recipes.IDENTITY and src and g.node(src).shape != n.shape:
            return None
    L = out.shape[-1]
    rowwise = {t.name: t.shape[-1] == L for t in inputs}
    taken: set[str] = set(LOCALS)
    names = {t.name: ident(t.name, taken) for t in inputs}
    ins = [names[t.name] for t in inputs]
    y = ident("y", taken)
    comp = ChainCompiler(g, broadcast=True)
    leaves = {t.name: comp.new() for t in inputs}
    try:
        result = comp.compile(g.compute, leaves, keep={out.name})[out.name]
    except Unsupported:
        return None
    rows_in = [x for t, x in zip(inputs, ins) if rowwise[t.name]]
    io = " + ".join([f"2 * {ins[0]}.dtype.size"] * (len(rows_in) + 1))
    per_elem = f"{io} + {4 * len(comp.tiles) + (8 if comp.advanced else 0)}"
    tiling = [line for x in ins for line in _dims(x)]
    tiling.append(f'assert {" and ".join(f"{x}.ndim <= {RANK}" for x in ins)}, "rank {RANK} at most"')
    tiling += [f"y{i} = {_max([f'{x}_d{i}' for x in ins])}" for i in range(RANK)]
    for t, x in zip(inputs, ins):
        want = f"{x}_d3 == y3" if rowwise[t.name] else f"{x}_d3 == 1"
        tiling.append(f'assert {want}, "{x}: the last axis must {"match the output" if rowwise[t.name] else "be 1"} '
                      f'(as in the traced shapes)"')
    tiling += ["rows = y0 * y1 * y2",
               "nb = max(1, min(hw.vector_cores, rows))",
               f"per_elem = {per_elem}",
               "chunk = A.align_down((hw.ub_bytes - 4096) // per_elem, 64)",
               "chunk = max(64, min(chunk, A.align_up(y3, 64)))"]
    fields = ["block_dim=nb", "rows=rows", "y1=y1", "y2=y2", "L=y3", "chunk=chunk"]
    for x in ins:
        fields += [f"{x}_s0=({x}_d1 * {x}_d2 * {x}_d3 if {x}_d0 > 1 else 0)", f"{x}_s1=({x}_d2 * {x}_d3 if {x}_d1 > 1 else 0)",
                   f"{x}_s2=({x}_d3 if {x}_d2 > 1 else 0)"]
    tiling.append("return A.Tiling(" + ",\n                    ".join(fields) + ")")
    shapes = [line for x in ins for line in _dims(x)]
    shapes += [f"full = ({', '.join(_max([f'{x}_d{i}' for x in ins]) for i in range(RANK))})",
               f"rank = {_max([f'{x}.ndim' for x in ins])}",
               f'return {{"{y}": full[{RANK} - rank:]}}']

    decls = []
    for t, x in zip(inputs, ins):
        decls.append(f"{x}_in = A.ub({x}.dtype, t.chunk)" if rowwise[t.name] else
                     f"{x}_one = A.ub({x}.dtype, A.elems_per_block({x}.dtype))      # one broadcast element a row")
    decls += [f"{y}_out = A.ub({y}.dtype, t.chunk)"] + [f"{w} = A.ub(A.f32, t.chunk)" for w in comp.tiles]
    row = ["i0 = r // (t.y1 * t.y2)", "i1 = r // t.y2 % t.y1", "i2 = r % t.y2"]
    row += [f"{x}_off = i0 * t.{x}_s0 + i1 * t.{x}_s1 + i2 * t.{x}_s2" for x in ins]
    for t, x in zip(inputs, ins):
        if not rowwise[t.name]:
            row += [f"A.load({x}_one, {x}[{x}_off:], 1)", f"{x}_v = A.get({x}_one, 0)"]
    body = []
    for t, x in zip(inputs, ins):
        body += ([f"A.load({x}_in, {x}[{x}_off + c:], n)", f'A.Cast({leaves[t.name]}, {x}_in, "auto", n)']
                 if rowwise[t.name] else [])
    body += [f"A.Duplicate({leaves[t.name]}, {x}_v, n)" for t, x in zip(inputs, ins) if not rowwise[t.name]]
    body += comp.lines + [f'A.Cast({y}_out, {result}, "auto", n)', f"A.store({y}[r * t.L + c:], {y}_out, n)"]
    ops = ", ".join(dict.fromkeys(n.op for n in g.compute))
    shapes_txt = " with ".join(str(t.shape) for t in inputs)
    source = (doc(f"{name}: elementwise {ops} over broadcasting inputs {shapes_txt} -> {out.shape}, one output row "
                  "at a time, fp32 math (written by the builtin writer).") + "\n\n"
              f"@A.tiling\ndef tiling({', '.join(ins + ['hw'])}):\n{indent(tiling, 1)}\n\n\n"
              f"@A.shapes\ndef shapes({', '.join(ins)}):\n{indent(shapes, 1)}\n\n\n"
              f"{decorator(ins, {y: ins[0]})}\n"
              f"def {kernel_name(name)}({', '.join(ins + [y, 't'])}):\n{indent(decls, 1)}\n"
              "    r0, r1 = A.block_span(t.rows)\n"
              f"    for r in A.range(r0, r1):\n{indent(row, 2)}\n"
              f"        for c, n in A.tiles(0, t.L, t.chunk, stages=2):\n{indent(body, 3)}\n")
    return Emitted("broadcast", f"elementwise {ops} over broadcasting inputs {shapes_txt}", source)
