"""Losses reduced to one scalar across all blocks: mean (or sum, or batch mean) of an elementwise term
of inputs of one shape — mse, l1, smooth l1, huber, kl_div, or any chain followed by .mean()/.sum().
The shape follows the DSL's loss/mse_loss example: per-block partial sums in a GM workspace, then
A.sync_all and block 0 adds the partials."""
from __future__ import annotations

from kernelwright.agent.builtin.chain import ChainCompiler, Unsupported, is_elementwise
from kernelwright.agent.builtin.dslgen import decorator, doc, ident, indent, kernel_name
from kernelwright.agent.builtin.graphview import FLOAT_DTYPES, Node, OpGraph, ref
from kernelwright.agent.builtin.patterns import Emitted
from kernelwright.agent.builtin.patterns.common import cross_block_total, returns
from kernelwright.agent.builtin.recipes import lit

LOSSES = {"mse_loss": "MSELoss", "l1_loss": "L1Loss", "smooth_l1_loss": "SmoothL1Loss", "huber_loss": "HuberLoss",
          "kl_div": "KLDivLoss"}
KNOWN = set(LOSSES) | set(LOSSES.values()) | {"mean", "sum"}
MODULE_TO_FN = {v: k for k, v in LOSSES.items()}


def term(c: ChainCompiler, fn: str, node: Node, p: str, q: str) -> str:
    """The elementwise term of a torch loss function, into a new tile."""
    d, s = c.new(), c.new()
    if fn == "kl_div":                          # target * (log(target) - input), input given as log-probabilities
        c.emit("Ln", s, q)
        c.emit("Sub", s, s, p)
        c.emit("Mul", d, q, s)
        return d
    c.emit("Sub", d, p, q)
    if fn == "mse_loss":
        c.emit("Mul", d, d, d)
        return d
    c.emit("Abs", d, d)
    if fn == "l1_loss":
        return d
    beta = float(node.arg(3, "beta" if fn == "smooth_l1_loss" else "delta", 1.0))
    # m = min(|d|, beta): smooth l1 = 0.5 m^2 / beta + |d| - m, huber = 0.5 m^2 + beta (|d| - m)
    c.emit("Mins", s, d, lit(beta))
    c.emit("Sub", d, d, s)
    if fn == "huber_loss":
        c.emit("Muls", d, d, lit(beta))
    c.emit("Mul", s, s, s)
    c.emit("Muls", s, s, lit(0.5 / beta if fn == "smooth_l1_loss" else 0.5))
    c.emit("Add", d, d, s)
    return d


def _plan(g: OpGraph) -> tuple[Node, str, str] | None:
    """(the reducing node, reduction, loss function or "") of a graph that ends in a full reduction."""
    out = g.single_output()
    if out is None or out.shape != []:
        return None
    fn = MODULE_TO_FN.get(out.op, out.op)
    if fn in LOSSES:
        default = "mean"
        reduction = out.kwargs.get("reduction", out.module.get("reduction", default))
        if fn == "kl_div" and (out.kwargs.get("log_target") or out.module.get("log_target")):
            return None
        return (out, reduction, fn) if reduction in ("mean", "sum", "batchmean") else None
    if out.op in ("mean", "sum") and out.arg(1, "dim") in (None, []) and ref(out.args[0]):
        return out, out.op, ""
    return None


def match(g: OpGraph, name: str) -> Emitted | None:
    inputs = g.tensor_inputs
    plan = _plan(g)
    if plan is None or not inputs or g.scalar_inputs or g.mutated or any(t.dtype not in FLOAT_DTYPES for t in inputs):
        return None
    top, reduction, fn = plan
    numel = inputs[0].numel
    if any(t.numel != numel or t.shape != inputs[0].shape for t in inputs):
        return None
    chain = [n for n in g.compute if n.name != top.name]
    if not all(is_elementwise(g, n) for n in chain) or not returns(g, top):
        return None
    taken: set[str] = set()
    names = {t.name: ident(t.name, taken) for t in inputs}
    c = ChainCompiler(g)
    leaves = {t.name: c.new() for t in inputs}
    try:
        if fn:
            operands = [ref(a) for a in top.args[:2]]
            if len(operands) < 2 or None in operands:
                return None
            tiles = c.compile(chain, leaves, keep=set(operands))
            value = term(c, fn, top, tiles[operands[0]], tiles[operands[1]])
        else:
            source = ref(top.args[0])
            value = c.compile(chain, leaves, keep={source})[source]
    except Unsupported:
        return None
    first = names[inputs[0].name]
    scale = {"mean": f"1.0 / {first}.numel", "sum": "1.0", "batchmean": f"1.0 / {first}.shape[0]"}[reduction]
    ins = [names[t.name] for t in inputs]
    body = []
    for t in inputs:
        body += [f"A.load({names[t.name]}_in, {names[t.name]}[off:], n)",
                 f'A.Cast({leaves[t.name]}, {names[t.name]}_in, "auto", n)']
    body += c.lines + [f"A.Add(acc, acc, {value}, n)"]
    y = ident("y", taken)
    per_elem = " + ".join([f"2 * {first}.dtype.size"] * len(inputs)) + f" + {4 * (len(c.tiles) + 1) + (8 if c.advanced else 0)}"
    decls = ([f"partials = A.workspace(A.f32, t.slots)"] + [f"{i}_in = A.ub({i}.dtype, t.tile)" for i in ins] +
             [f"{w} = A.ub(A.f32, t.tile)" for w in c.tiles] +
             ["acc = A.ub(A.f32, t.tile)", "part = A.ub(A.f32, 8)", "allp = A.ub(A.f32, t.slots)",
              f"yout = A.ub({y}.dtype, 16)"])
    what = fn or f"{reduction} of elementwise {', '.join(dict.fromkeys(n.op for n in chain))}"
    source = (doc(f"{name}: {what} reduced to one scalar across all blocks ({reduction}); per-block partial sums "
                  "in a GM workspace, then A.sync_all and block 0 adds them (written by the builtin writer).") + f'''

@A.tiling
def tiling({", ".join(ins)}, hw):
    total = {first}.numel
    nb = max(1, min(hw.vector_cores, A.ceil_div(total, 4096)))
    per_elem = {per_elem}
    tile = A.align_down((hw.ub_bytes - 16384) // per_elem, 64)
    tile = max(64, min(tile, A.align_up(A.ceil_div(total, 4 * nb), 64)))
    return A.Tiling(block_dim=nb, total=total, tile=tile, lanes=min(tile, total), slots=8 * nb, scale={scale})


@A.shapes
def shapes({", ".join(ins)}):
    return {{"{y}": ()}}


{decorator(ins, {y: first})}
def {kernel_name(name)}({", ".join(ins + [y, "t"])}):
{indent(decls, 1)}
    lo, hi = A.block_span(t.total, 16)
    A.Duplicate(acc, 0.0, t.tile)
    for off, n in A.tiles(lo, hi, t.tile, stages=2):
{indent(body, 2)}
    mine = A.reduce_sum(acc, t.lanes)
    A.Duplicate(part, mine, 1)
''' + cross_block_total("acc", y))
    return Emitted("loss", f"{what} over {numel} elements, {reduction}", source)
