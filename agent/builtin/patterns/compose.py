"""The general composer, tried after the recognisers: any graph of elementwise ops (broadcasting),
reductions over one set of consecutive axes (sum, mean, max, min, norms, and composites written as
them) and a final total (mean/sum of everything, losses), lowered op by op. The plan (frame, reduced
axes, passes) comes from agent.builtin.compose_plan; this module writes the loop nest:

row mode:    for each outer row o: prologue (per-row inputs) / pass p: for each chunk c of the row:
             load, compute, fold into accumulators / reduce each accumulator to a scalar, broadcast it
             back into its tile, compute what depends on it / ... / store
column mode: for each (outer o, chunk c of the inner axes): prologue / pass p: for each r along the
             reduced axes: load, compute, fold / compute what depends on the accumulators / ... / store
Every value is an fp32 tile whose lanes line up with the chunk being computed."""
from __future__ import annotations

import math
from dataclasses import dataclass

from kernelwright.agent.builtin.chain import ChainCompiler, Unsupported
from kernelwright.agent.builtin.compose_plan import ACC, KNOWN as PLAN_KNOWN, MEAN, Plan, plan
from kernelwright.agent.builtin import recipes
from kernelwright.agent.builtin.dslgen import FLOATS, doc, ident, indent, kernel_name
from kernelwright.agent.builtin.graphview import Node, OpGraph, ref
from kernelwright.agent.builtin.patterns import Emitted
from kernelwright.agent.builtin.patterns.common import cross_block_total

KNOWN = recipes.KNOWN | PLAN_KNOWN
FIELDS = {"block_dim", "chunk", "rows", "L", "lanes", "outer", "R", "I", "pieces", "slots", "scale", "hw", "A", "t"}
LOCALS = {MEAN, "o", "c", "n", "r", "u", "r0", "r1", "u0", "u1", "ones", "pick", "pacc", "part", "allp", "partials", "yout",
          "mine", "total", "nb", "chunk", "per_elem"}


class _Writer:
    def __init__(self, g: OpGraph, p: Plan, name: str):
        self.g, self.p, self.name = g, p, name
        self.taken = set(LOCALS)
        self.x = {t.name: ident(t.name, self.taken) for t in p.inputs}
        self.y = ident("y", self.taken)
        self.scalars = {s.name: s.name for s in g.scalar_inputs}         # forward numbers: attributes, as t.<name>
        self.bool_out = g.node(g.outputs[0]).dtype == "bool"
        self.comp = ChainCompiler(g, broadcast=True)
        nd = len(p.frame)
        self.loop_axes = list(range(p.lanes[0])) if p.row_mode else list(range(p.S[0])) + p.S
        self.outer_axes = [a for a in self.loop_axes if a not in p.S] if not p.row_mode else self.loop_axes
        self.have: dict[str, str] = {}          # value -> tile, live across compile calls
        self.globals: list[str] = []            # totals inside the graph, in order
        self._want: set[str] = set()          # what the last `needed` call reads
        self.lane_full: dict[str, bool] = {}
        for t in p.inputs:
            fs = p.fshape[t.name]
            lanes = [fs[a] for a in p.lanes]
            if all(fs[a] == p.frame[a] for a in p.lanes):
                self.lane_full[t.name] = True
            elif all(v == 1 for v in lanes):
                self.lane_full[t.name] = False
            else:
                raise Unsupported([], f"input {t.name} {t.shape} broadcasts within the lane axes {p.lanes}")
        self.nd = nd

    # ---- where values are computed
    def site(self, t: Node) -> str:
        if self.p.row_mode:
            return "body" if self.lane_full[t.name] else "pro"
        return "body" if self.p.level(t.name) == "full" else "pro"

    def run(self, nodes: list[Node], leaves: dict[str, str], keep: set[str], count: str) -> tuple[list[str], dict]:
        self.comp.count = count
        start = len(self.comp.lines)
        tiles = self.comp.compile(nodes, {**self.have, **leaves}, keep | set(self.have))
        seg = self.comp.lines[start:]
        del self.comp.lines[start:]
        return seg, tiles

    def offset(self, t: Node, lanes: str, col_r: bool) -> str:
        x = self.x[t.name]
        terms = [f"i{a} * t.{x}_s{a}" for a in self.outer_axes if self.p.fshape[t.name][a] > 1]
        if col_r:
            terms += [f"j{a} * t.{x}_s{a}" for a in self.p.S if self.p.fshape[t.name][a] > 1]
        if self.lane_full[t.name]:
            terms.append(lanes)
        return " + ".join(terms) or "0"

    def load(self, t: Node, leaf: str, count: str, lanes: str, col_r: bool) -> list[str]:
        x, off = self.x[t.name], self.offset(t, lanes, col_r)
        if self.lane_full[t.name]:
            conv = (f"A.where({leaf}, {x}_in, ones, 0.0, n)" if t.dtype == "bool" else f'A.Cast({leaf}, {x}_in, "auto", n)')
            return [f"A.load({x}_in, {x}[{off}:], n)", conv]
        if t.dtype == "bool":
            return [f"A.load({x}_one, {x}[{off}:], 1)", f"A.where(pick, {x}_one, ones, 0.0, 1)",
                    f"{x}_v = A.get(pick, 0)", f"A.Duplicate({leaf}, {x}_v, {count})"]
        return [f"A.load({x}_one, {x}[{off}:], 1)", f"{x}_v = A.get({x}_one, 0)", f"A.Duplicate({leaf}, {x}_v, {count})"]

    def needed(self, targets: set[str]) -> list[Node]:
        """The full-level ops (in order) a pass computes for `targets`."""
        want, out = set(targets), []
        for n in reversed(self.p.ops):
            if n.name in want and n.op != "reduce" and n.name not in self.have:
                out.append(n)
                want |= {ref(a) for a in list(n.args) + list(n.kwargs.values()) if ref(a)}
        self._want = want
        return out[::-1]

    def write(self) -> Parts:
        p, g = self.p, self.g
        pro_count = "t.chunk" if p.row_mode else "n"
        reds = [n for n in p.ops if n.op == "reduce" and n.name in p.depth]
        D = max((p.depth[n.name] for n in reds), default=0)
        final_full = p.level(p.out) == "full"
        y_store = "o" if p.row_mode else "o * t.I + c"
        y_full = "o * t.L + c" if p.row_mode else "(o * t.R + r) * t.I + c"
        pro = []
        leaves = {}
        for t in p.inputs:
            if self.site(t) == "pro":
                leaves[t.name] = self.comp.new()
                pro += self.load(t, leaves[t.name], pro_count, "c", False)
        self.have.update(leaves)
        red_nodes = [n for n in p.ops if n.op != "reduce" and p.level(n.name) == "red" and n.name in p.depth]
        seg, tiles = self.run([n for n in red_nodes if p.depth[n.name] == 0], {}, {n.name for n in red_nodes
                                                                                     if p.depth[n.name] == 0}, pro_count)
        pro += seg
        self.have.update({k: v for k, v in tiles.items()})
        passes = []
        for d in range(D + (1 if final_full else 0)):
            feeds = [n for n in reds if p.depth[n.name] == d + 1]
            targets = {ref(n.args[0]) for n in feeds} | ({p.out} if d == D else set())
            nodes = self.needed(targets)
            body_in = [t for t in p.inputs if self.site(t) == "body" and t.name in self._want]
            body_leaves = {t.name: self.comp.new() for t in body_in}
            accs = {n.name: self.comp.new() for n in feeds}
            seg, tiles = self.run(nodes, body_leaves, targets, "n")
            head = [f"A.Duplicate({accs[n.name]}, {ACC[n.kwargs['kind']][1]}, {'t.chunk' if p.row_mode else 'n'})"
                    for n in feeds]
            body = [line for t in body_in for line in self.load(t, body_leaves[t.name], "n", "c", not p.row_mode)] + seg
            body += [f"A.{ACC[n.kwargs['kind']][0]}({accs[n.name]}, {accs[n.name]}, {tiles[ref(n.args[0])]}, n)"
                     for n in feeds]
            if d == D:
                v = tiles[p.out]
                body += ([f"A.Add(pacc, pacc, {v}, n)"] if p.total else self.store(v, y_full, "n"))
            tail = []
            for n in feeds:
                if n.kwargs.get("global"):
                    tail += self.barrier_total(n.name, accs[n.name])
                elif p.row_mode:
                    tail += [f"s_{n.name} = A.{ACC[n.kwargs['kind']][2]}({accs[n.name]}, t.lanes)",
                             f"A.Duplicate({accs[n.name]}, s_{n.name}, t.chunk)"]
                self.have[n.name] = accs[n.name]
            live = set(self.have.values())            # the pass's own values are dead once it ends
            self.comp.free = [w for w in self.comp.tiles if w not in live]
            now = [n for n in red_nodes if p.depth[n.name] == d + 1]
            seg, tiles = self.run(now, {}, {n.name for n in now}, pro_count)
            self.have.update(tiles)
            passes.append((head, body, tail + seg))
        if not final_full:
            v = self.have[p.out]
            cnt = "1" if p.row_mode else "n"
            end = [f"A.Add(pacc, pacc, {v}, {cnt})"] if p.total else self.store(v, y_store, cnt)
            passes[-1][2].extend(end) if passes else pro.extend(end)
        return self.emit(pro, passes)

    def store(self, v: str, at: str, count: str) -> list[str]:
        """fp32 tile `v` into y[at:]; a bool result (0/1 values) goes through fp16, the cast to bool's bytes."""
        if self.bool_out:
            return [f'A.Cast(yhalf, {v}, "auto", {count})', f'A.Cast(yout, yhalf, "none", {count})',
                    f"A.store({self.y}[{at}:], yout, {count})"]
        return [f'A.Cast(yout, {v}, "auto", {count})', f"A.store({self.y}[{at}:], yout, {count})"]

    def barrier_total(self, name: str, acc: str) -> list[str]:
        """The total of `acc` over every block, broadcast back into it: each block's partial to a GM
        workspace, a barrier, every block adds all partials."""
        self.globals.append(name)
        k = len(self.globals)
        return [f"s_{name} = A.reduce_sum({acc}, t.chunk)", f"A.Duplicate(gpart{k}, s_{name}, 1)",
                f"A.store(gsum{k}[A.block_idx() * 8:], gpart{k}, 1)", "A.sync_all()",
                f"A.load(gall{k}, gsum{k}, 1, rows=A.block_num(), src_stride=8, dst_stride=8, pad=0.0)",
                f"g_{name} = A.reduce_sum(gall{k}, 8 * A.block_num())", f"A.Duplicate({acc}, g_{name}, t.chunk)"]

    # ---- text
    def digits(self, axes: list[int], var: str, letter: str) -> list[str]:
        return [f"{letter}{a} = {var} // t.D{a} % t.F{a}" for a in axes if self.p.frame[a] > 1]

    def emit(self, pro: list[str], passes: list) -> Parts:
        p, x = self.p, self.x
        ins = [x[t.name] for t in p.inputs]
        first = next((t for t in p.inputs if (t.dtype == "bool") == self.bool_out), p.inputs[0])
        attrs = [self.scalars[s.name] for s in self.g.scalar_inputs]
        kernel = []
        if p.glob:              # totals inside the graph: each pass walks every row of the block, then the barrier
            kernel += ["r0, r1 = A.block_span(t.rows)"]
            for head, body, tail in passes:
                rows = self.digits(self.outer_axes, "o", "i") + pro + ["for c, n in A.tiles(0, t.L, t.chunk, stages=2):"]
                kernel += head + ["for o in A.range(r0, r1):"] + ["    " + b for b in rows + ["    " + b for b in body]]
                kernel += tail
            inner = []
        elif p.row_mode:
            kernel += ["r0, r1 = A.block_span(t.rows)", "for o in A.range(r0, r1):"]
            inner = self.digits(self.outer_axes, "o", "i") + pro
            for head, body, tail in passes:
                inner += head + ["for c, n in A.tiles(0, t.L, t.chunk, stages=2):"] + ["    " + b for b in body] + tail
        else:
            kernel += ["u0, u1 = A.block_span(t.outer * t.pieces)", "for u in A.range(u0, u1):"]
            inner = ["o = u // t.pieces", "c = u % t.pieces * t.chunk", "n = min(t.chunk, t.I - c)"]
            inner += self.digits(self.outer_axes, "o", "i") + pro
            for head, body, tail in passes:
                inner += head + ["for r in A.range(t.R, stages=2):"]
                inner += ["    " + b for b in self.digits(p.S, "r", "j") + body] + tail
        kernel += ["    " + line for line in inner]
        decls = []
        for t in p.inputs:
            nm = x[t.name]
            decls.append(f"{nm}_in = A.ub({nm}.dtype, t.chunk)" if self.lane_full[t.name] else
                         f"{nm}_one = A.ub({nm}.dtype, A.elems_per_block({nm}.dtype))")
        decls += [f"yout = A.ub({self.y}.dtype, {'16' if p.total else 't.chunk'})"]
        decls += ["yhalf = A.ub(A.f16, t.chunk)"] if self.bool_out else []
        decls += [f"{w} = A.ub(A.f32, t.chunk)" for w in self.comp.tiles]
        bools = any(t.dtype == "bool" for t in p.inputs)
        if bools:
            decls += ["ones = A.ub(A.f32, t.chunk)", "pick = A.ub(A.f32, 8)"]
        start = ["A.Duplicate(ones, 1.0, t.chunk)"] if bools else []
        for k in range(1, len(self.globals) + 1):
            decls += [f"gsum{k} = A.workspace(A.f32, t.slots)", f"gpart{k} = A.ub(A.f32, 8)", f"gall{k} = A.ub(A.f32, t.slots)"]
        if p.total:
            decls += ["pacc = A.ub(A.f32, t.chunk)", "partials = A.workspace(A.f32, t.slots)", "part = A.ub(A.f32, 8)",
                      "allp = A.ub(A.f32, t.slots)"]
            start.append("A.Duplicate(pacc, 0.0, t.chunk)")
        end = ""
        if p.total:
            end = "    mine = A.reduce_sum(pacc, t.chunk)\n    A.Duplicate(part, mine, 1)\n" + cross_block_total("pacc", self.y)
        # host side
        frame_lines = []
        for a in range(self.nd):
            src = next((t for t in p.inputs if p.fshape[t.name][a] == p.frame[a] and a - self.nd + len(t.shape) >= 0), None)
            frame_lines.append(f"F{a} = {x[src.name]}.shape[{a - self.nd + len(src.shape)}]" if src and p.frame[a] > 1
                               else f"F{a} = 1")
        checks = [f'assert {x[t.name]}.ndim == {len(t.shape)}, "{x[t.name]}: rank {len(t.shape)} (as traced)"'
                  for t in p.inputs]
        for t in p.inputs:
            for a in range(self.nd - len(t.shape), self.nd):
                j = a - self.nd + len(t.shape)
                want = f"F{a}" if p.fshape[t.name][a] > 1 else "1"
                checks.append(f'assert {x[t.name]}.shape[{j}] == {want}, "{x[t.name]}: axis {j} broadcasts as traced"')
        io = [f"2 * {x[t.name]}.dtype.size" for t in p.inputs if self.lane_full[t.name]] + [f"2 * {ins[0]}.dtype.size"]
        ntiles = len(self.comp.tiles) + (1 if bools else 0) + (1 if p.total else 0) + (1 if self.bool_out else 0)
        prod = lambda axes: " * ".join(f"F{a}" for a in axes) or "1"  # noqa: E731
        host = frame_lines + checks
        fields = ["block_dim=nb", "chunk=chunk"] + [f"{a}={a}" for a in attrs]
        if p.row_mode:
            host += [f"rows = {prod(self.outer_axes)}", f"L = {prod(p.lanes)}", "units = rows"]
            fields += ["rows=rows", "L=L", "lanes=min(chunk, L)"]
            lane_total = "L"
        else:
            host += [f"outer = {prod(self.outer_axes)}", f"R = {prod(p.S)}", f"I = {prod(p.lanes)}"]
            lane_total = "I"
        host += [f"per_elem = {' + '.join(io)} + {4 * ntiles + (8 if self.comp.advanced else 0)}",
                 "chunk = A.align_down((hw.ub_bytes - 16384) // per_elem, 64)",
                 f"chunk = max(64, min(chunk, A.align_up({lane_total}, 64)))"]
        if not p.row_mode:
            host += ["pieces = A.ceil_div(I, chunk)", "units = outer * pieces"]
            fields += ["outer=outer", "R=R", "I=I", "pieces=pieces"]
        host += ["nb = max(1, min(hw.vector_cores, units))"]
        for group in (self.outer_axes, [] if p.row_mode else p.S):
            for k, a in enumerate(group):
                if p.frame[a] > 1:
                    fields += [f"F{a}=F{a}", f"D{a}={prod(group[k + 1:])}"]
        for t in p.inputs:
            for a in self.loop_axes:
                if p.fshape[t.name][a] > 1:
                    j = a - self.nd + len(t.shape)
                    fields.append(f"{x[t.name]}_s{a}=A.prod({x[t.name]}.shape[{j + 1}:])")
        if p.S or p.glob:
            fields.append(f"{MEAN}=1.0 / ({prod(p.S if p.S else range(self.nd))})")
        if p.glob and not p.total:
            fields.append("slots=8 * nb")
        if p.total:       # a mean of everything divides by the elements of what it totals
            counted = range(self.nd) if p.level(p.out) == "full" else [a for a in range(self.nd) if a not in p.S]
            fields += ["slots=8 * nb", "scale=1.0" if p.total == "sum" else f"scale=1.0 / ({prod(counted)})"]
        out_node = self.g.node(self.g.outputs[0])
        if p.total:
            shape = "()"
        elif p.level(p.out) == "full":
            shape = "(" + ", ".join(f"F{a}" for a in range(self.nd)) + ",)"
        else:
            keep = len(out_node.shape) == self.nd
            shape = "(" + "".join(f"{'1' if a in p.S else f'F{a}'}, " for a in range(self.nd) if keep or a not in p.S) + ")"
        attr_text = ", attrs={" + ", ".join(f'"{a}": 1.0' for a in attrs) + "}" if attrs else ""
        cols = ", ".join(f'"{x[t.name]}": {"(A.bool,)" if t.dtype == "bool" else FLOATS}' for t in p.inputs)
        ops = ", ".join(dict.fromkeys(n.op for n in self.g.compute))
        mode = "rows" if p.row_mode else "columns"
        what = (f"{ops} composed over a {p.frame} frame, reducing axes {p.S}" if p.S else f"{ops} over a {p.frame} frame")
        what += f", {p.total} of everything" if p.total else ""
        family = "loss" if p.total else "reduce" if p.S else "broadcast"
        return Parts(ins, {t.name: x[t.name] for t in p.inputs}, attrs, self.y, x[first.name], shape, frame_lines, host,
                     fields, decls, start + kernel, end, cols, attr_text, what, f"{mode} mode, {len(passes)} pass(es)", family)


@dataclass
class Parts:
    """A composed program in pieces (see agent/builtin/compose_tail.py for embedding them in another kernel).
    Kernel-body lines are at body level (no indent); `end` is text already indented one level (the final
    cross-block total, or "")."""
    inputs: list[str]          # kernel input identifiers, in order
    names: dict[str, str]      # traced input name -> its identifier
    attrs: list[str]           # forward numbers: attributes, read as t.<name>
    y: str                     # the output's identifier
    like: str                  # the input whose dtype the output takes
    shape: str                 # the output shape (an expression over F0, F1, ...)
    frame: list[str]           # host lines F<a> = <input>.shape[...]
    host: list[str]            # tiling lines (frame, shape checks, sizes), before the return
    fields: list[str]          # A.Tiling(...) fields, "name=expr" (block_dim=nb first)
    decls: list[str]           # tile and workspace declarations
    body: list[str]            # start + the loop nest
    end: str
    cols: str                  # the inputs={...} dtype text
    attr_text: str
    what: str                  # what it computes, in words
    how: str                   # its loop nest, in words
    family: str


def program(parts: Parts, name: str) -> Emitted:
    """The DSL program text of composed parts."""
    q = parts
    host = q.host + ["return A.Tiling(" + ", ".join(q.fields) + ")"]
    source = (doc(f"{name}: {q.what}; {q.how}, fp32 math (written by the builtin writer's composer).") + "\n\n"
              f"@A.tiling\ndef tiling({', '.join(q.inputs + ['hw'] + q.attrs)}):\n{indent(host, 1)}\n\n\n"
              f"@A.shapes\ndef shapes({', '.join(q.inputs + q.attrs)}):\n{indent(q.frame, 1)}\n"
              f"    return {{\"{q.y}\": {q.shape}}}\n\n\n"
              f'@A.kernel(inputs={{{q.cols}}}, outputs={{"{q.y}": "{q.like}"}}{q.attr_text})\n'
              f"def {kernel_name(name)}({', '.join(q.inputs + [q.y, 't'])}):\n{indent(q.decls + q.body, 1)}\n" + q.end)
    return Emitted(q.family, q.what, source)


def compose(g: OpGraph, name: str) -> Emitted:
    """The composed program, or Unsupported with the reason."""
    return program(compose_parts(g, name), name)


def compose_parts(g: OpGraph, name: str) -> Parts:
    """The composed program in pieces, or Unsupported with the reason."""
    p = plan(g)
    clash = [s.name for s in g.scalar_inputs if s.name in FIELDS or s.name in LOCALS or s.name.startswith(("F", "D"))
             or not s.name.isidentifier()]
    if clash:
        raise Unsupported([], f"a forward number named like one of the program's own names ({', '.join(clash)})")
    if len(p.frame) == 0 or math.prod(p.frame) == 0:
        raise Unsupported([], "an empty or 0-d frame")
    return _Writer(g, p, name).write()


def match(g: OpGraph, name: str) -> Emitted | None:
    return attempt(g, name)[0]


def attempt(g: OpGraph, name: str) -> tuple[Emitted | None, str]:
    """(the program, "") or (None, why the composer cannot write it); it works on its own copy of the
    graph (the plan rewrites nodes)."""
    try:
        return compose(OpGraph(g.trace), name), ""
    except Unsupported as e:
        return None, e.why
