"""Matrix products on the cube unit: matmul / mm / bmm / `@`, nn.Linear, F.linear and addmm, with operands read
transposed in place (`.T`, `.t()`, `transpose(-2, -1)`), a batch, a bias row added by the cube, and any
elementwise epilogue (activations, scalar arithmetic, a same-shape tensor, a per-column vector or a 0-d
parameter) run by the vector unit on each block the cube leaves in the UB (a MIX kernel). Without an epilogue the kernel is
cube-only and writes C straight to GM. Either way the vector work is per element of C, never per K.
The programs follow prompts/examples/matmul/ (matmul, bmm, matmul_tt, linear_gelu)."""
from __future__ import annotations

from dataclasses import dataclass, field

from kernelwright.agent.builtin import recipes
from kernelwright.agent.builtin.chain import MODULES, ChainCompiler, Unsupported, is_elementwise
from kernelwright.agent.builtin.dslgen import decorator, doc, ident, indent, kernel_name
from kernelwright.agent.builtin.graphview import FLOAT_DTYPES, Node, OpGraph, ref
from kernelwright.agent.builtin.patterns import Emitted

MASKS = {"tril", "triu"}
PRODUCTS = {"matmul", "mm", "bmm", "Linear", "linear", "addmm", "einsum"}
TRANSPOSES = {"t", "transpose", "getattr", "permute"}
PASS = {"contiguous", "clone", "detach", "identity"}
LOCALS = {"acc", "yout", "mm", "bi", "m0", "n0", "mn", "nn", "ld", "ls", "r", "i", "lo_", "hi_", "M", "N", "K", "bm", "bn",
          "tn", "per", "tiles", "batch", "ramp", "colv", "mk", "j"} | \
    {f"{pre}_{k}" for pre in ("ex", "in", "s", "wk") for k in range(32)}
KNOWN = PRODUCTS | TRANSPOSES | PASS | MASKS | recipes.KNOWN | set(MODULES)


@dataclass
class Operand:
    node: Node                       # the input or parameter read from GM
    trans: bool = False


@dataclass
class Product:
    a: Operand
    b: Operand
    bias: Node | None = None
    batched: bool = False
    extras: dict[str, str] = field(default_factory=dict)     # leaf fx name -> "full" | "row" | "scalar"


def _swaps_last_two(n: Node, ndim: int) -> bool:
    if n.op == "t" or (n.op == "getattr" and n.args[1:2] in (["T"], ["mT"])):
        return ndim == 2 or n.op == "getattr" and n.args[1] == "mT"
    if n.op == "transpose" and len(n.args) == 3:
        dims = {d % ndim for d in n.args[1:] if isinstance(d, int)}
        return dims == {ndim - 2, ndim - 1}
    if n.op == "permute":
        perm = n.args[1] if len(n.args) == 2 and isinstance(n.args[1], list) else n.args[1:]
        return list(perm) == [*range(ndim - 2), ndim - 1, ndim - 2]
    return False


def _operand(g: OpGraph, v) -> Operand | None:
    """The GM tensor a matmul operand reads, through copies and at most one swap of the last two axes."""
    trans, name = False, ref(v)
    while name is not None:
        n = g.node(name)
        if n.kind in ("placeholder", "get_attr"):
            ok = n.shape is not None and n.dtype in FLOAT_DTYPES and len(n.shape) >= 1
            return Operand(n, trans) if ok else None
        if n.op in PASS:
            name = ref(n.args[0])
            continue
        src = g.node(ref(n.args[0])) if n.args and ref(n.args[0]) else None
        if trans or src is None or src.shape is None or not _swaps_last_two(n, len(src.shape)):
            return None
        trans, name = True, src.name
    return None


def _product(g: OpGraph, core: Node) -> Product | None:
    if core.op == "Linear":
        w = g.params.get(f"{core.target}.weight")
        if w is None:
            return None
        weight = Node(f"{core.target}.weight", "param", "get_attr", [], {}, w["shape"], w["dtype"])
        bias = g.params.get(f"{core.target}.bias")
        bnode = Node(f"{core.target}.bias", "param", "get_attr", [], {}, bias["shape"], bias["dtype"]) if bias else None
        a = _operand(g, core.args[0])
        return Product(a, Operand(weight, True), bnode) if a else None
    if core.op == "linear":
        a, w = _operand(g, core.arg(0, "input")), _operand(g, core.arg(1, "weight"))
        bias = core.arg(2, "bias")
        bnode = _operand(g, bias) if bias is not None else None
        if a is None or w is None or w.trans or (bias is not None and (bnode is None or bnode.trans)):
            return None
        return Product(a, Operand(w.node, True), bnode.node if bnode else None)
    if core.op == "addmm":
        if core.kwargs.get("beta", 1) != 1 or core.kwargs.get("alpha", 1) != 1:
            return None
        bias, a, b = (_operand(g, v) for v in core.args[:3])
        if bias is None or a is None or b is None or bias.trans or len(bias.node.shape) != 1:
            return None
        return Product(a, b, bias.node)
    if core.op == "einsum":
        if len(core.args) != 3 or not isinstance(core.args[0], str) or not _einsum_is_matmul(core.args[0]):
            return None
        a, b = _operand(g, core.args[1]), _operand(g, core.args[2])
        return Product(a, b) if a and b and not a.trans and not b.trans else None
    a, b = (_operand(g, v) for v in core.args[:2])
    if a is None or b is None:
        return None
    return Product(a, b, batched=len(a.node.shape) == 3 and len(b.node.shape) == 3)


def _einsum_is_matmul(eq: str) -> bool:
    """`<rows>l,lk-><rows>k` (e.g. "bijl,lk->bijk"): an N-D tensor times a matrix over its last axis."""
    ins, _, out = eq.replace(" ", "").partition("->")
    parts = ins.split(",")
    if len(parts) != 2 or len(parts[1]) != 2:
        return False
    a, (l, k) = parts[0], parts[1]
    letters = a + k
    return len(set(letters)) == len(letters) and a[-1] == l and out == a[:-1] + k


def _fits(p: Product, core: Node) -> bool:
    """Operand shapes the program's offsets handle: 2-D @ 2-D, N-D (rows flattened) @ 2-D, 3-D @ 3-D."""
    sa, sb = p.a.node.shape, p.b.node.shape
    if p.batched:
        return sa[0] == sb[0] and (sa[1] if p.a.trans else sa[2]) == (sb[2] if p.b.trans else sb[1])
    if len(sb) != 2 or len(sa) < 2 or (p.a.trans and len(sa) != 2):
        return False
    k = sa[0] if p.a.trans else sa[-1]
    n = sb[0] if p.b.trans else sb[1]
    if p.bias is not None and p.bias.shape != [n]:
        return False
    return k == (sb[1] if p.b.trans else sb[0]) and core.shape is not None and core.shape[-1] == n


def _epilogue(g: OpGraph, core: Node, p: Product, mask: Node | None = None) -> list[Node] | None:
    """The elementwise nodes after the product (in graph order, but `mask`), classifying their other tensor
    operands."""
    nodes = [n for n in g.compute if n.kind != "get_attr" and n is not mask]
    at = nodes.index(core)
    before, after = nodes[:at], nodes[at + 1:]
    if any(n.op not in TRANSPOSES | PASS for n in before) or not all(is_elementwise(g, n) for n in after):
        return None
    done = {core.name} | {n.name for n in after}
    rows, cols = core.numel // core.shape[-1], core.shape[-1]
    for n in after:
        for v in list(n.args) + list(n.kwargs.values()):
            name = ref(v)
            if name is None or name in done:
                continue
            leaf = g.node(name)
            if leaf.kind not in ("placeholder", "get_attr") or leaf.shape is None or leaf.dtype not in FLOAT_DTYPES:
                return None
            if leaf.numel == rows * cols and leaf.shape == core.shape:
                p.extras[name] = "full"
            elif leaf.numel == cols and leaf.shape[-1] == cols:
                p.extras[name] = "row"
            elif leaf.numel == 1:
                p.extras[name] = "scalar"
            else:
                return None
    return after


def match(g: OpGraph, name: str, mix: bool = False) -> Emitted | None:
    """`mix`: a MIX kernel even without an epilogue (C through the UB: a stage of patterns/cube_tail)."""
    cores = [n for n in g.compute if n.op in PRODUCTS]
    out = g.single_output()
    if len(cores) != 1 or out is None or g.mutated or g.scalar_inputs:
        return None
    core = cores[0]
    p = _product(g, core)
    if p is None or not _fits(p, core):
        return None
    mask = None
    if out.op in MASKS and len(core.shape) == 2 and isinstance(out.arg(1, "diagonal", 0), int):
        mask, out = out, g.node(ref(out.args[0]))          # tril/triu of the result: zeros by position
    after = _epilogue(g, core, p, mask)
    if after is None or (after and out.name != after[-1].name) or (not after and out.name != core.name):
        return None
    if core.dtype not in FLOAT_DTYPES or p.a.node.dtype != p.b.node.dtype:
        return None
    try:
        return _emit(g, core, p, after, name, mix, mask)
    except Unsupported:
        return None


def _masking(mask: Node, result: str) -> list[str]:
    """tril/triu of the block: each row times a 0/1 mask made from the column index (colv = n0 + j):
    tril keeps col <= row + d (mask = clamp(row + d - col + 1, 0, 1)), triu keeps col >= row + d."""
    d = mask.arg(1, "diagonal", 0)
    lines = ["A.Adds(colv, ramp, float(n0), nn)"]
    if mask.op == "tril":
        lines += ["A.Muls(colv, colv, -1.0, nn)", "for r in A.range(0, mn):",
                  f"    A.Adds(mk, colv, float(m0 + r + {d + 1}), nn)"]
    else:
        lines += ["for r in A.range(0, mn):", f"    A.Adds(mk, colv, float({1 - d} - m0 - r), nn)"]
    return lines + ["    A.Maxs(mk, mk, 0.0, nn)", "    A.Mins(mk, mk, 1.0, nn)",
                    f"    A.Mul({result}[r * ld:], {result}[r * ld:], mk, nn)"]


def _emit(g: OpGraph, core: Node, p: Product, after: list[Node], name: str, mix: bool = False,
          mask: Node | None = None) -> Emitted:
    taken = set(LOCALS)
    names = {p.a.node.name: ident(p.a.node.name, taken)}
    names.setdefault(p.b.node.name, ident(p.b.node.name, taken))
    for leaf in ([p.bias.name] if p.bias is not None else []) + list(p.extras):
        names.setdefault(leaf, ident(leaf, taken))
    a, b = names[p.a.node.name], names[p.b.node.name]
    bias = names[p.bias.name] if p.bias is not None else None
    y = ident("y", taken)
    inputs = list(dict.fromkeys(names.values()))
    sa = p.a.node.shape
    if p.batched:
        shape_fields = (f"batch = {a}.shape[0]\n    M = {a}.shape[{2 if p.a.trans else 1}]\n"
                        f"    K = {a}.shape[{1 if p.a.trans else 2}]\n    N = {b}.shape[{1 if p.b.trans else 2}]")
        out_shape = f"({a}.shape[0], M, N)"
    else:
        shape_fields = (f"K = {a}.shape[{0 if p.a.trans else len(sa) - 1}]\n    M = {a}.numel // K\n"
                        f"    N = {b}.shape[{0 if p.b.trans else 1}]\n    batch = 1")
        out_shape = "(" + "".join(f"{a}.shape[{i}], " for i in range(len(sa) - 1)) + "N)" if not p.a.trans else "(M, N)"
    mix = bool(after) or mix or mask is not None
    comp = ChainCompiler(g, count="mn * ld", prefix="wk_", broadcast=True)
    result = "acc"
    if after:
        leaves = {core.name: "acc"} | {leaf: f"ex_{i}" for i, leaf in enumerate(p.extras)}
        tiles = comp.compile(after, leaves, keep={after[-1].name})
        result = tiles[after[-1].name]
    # acc, the store tile, operands (as loaded, widened), scratch, and the advanced APIs' temporary (two tiles)
    ntiles = 2 + 2 * len(p.extras) + len(comp.tiles) + (2 if comp.advanced else 0)
    a_off = ("bi * t.M * t.K + " if p.batched else "") + ("m0" if p.a.trans else "m0 * t.K")
    b_off = ("bi * t.K * t.N + " if p.batched else "") + ("n0 * t.K" if p.b.trans else "n0")
    c_off = "(bi * t.M + m0) * t.N + n0"
    cube_args = (f"tile=(t.bm, t.bn, t.K), shape=(t.M, t.N, t.K)" + (", trans_a=True" if p.a.trans else "") +
                 (", trans_b=True" if p.b.trans else "") + (f", bias={bias}" if bias else ""))
    bias_arg = f", bias={bias}[n0:]" if bias else ""
    loop = ["bi = i // t.per", "m0 = i % t.per // t.tn * t.bm", "n0 = i % t.tn * t.bn",
            "mn = min(t.bm, t.M - m0)", "nn = min(t.bn, t.N - n0)"]
    if not mix:
        decls = [f"mm = A.cube({a}, {b}, {y}, {cube_args})"]
        loop.append(f"A.matmul(mm, {y}[{c_off}:], {a}[{a_off}:], {b}[{b_off}:], mn, nn, t.K{bias_arg})")
        cores, per_tile = "hw.cube_cores", "bm = min(128, M)\n    bn = min(256, N)"
    else:
        decls = ["acc = A.ub(A.f32, t.lanes)", f"yout = A.ub({y}.dtype, t.lanes)"]
        decls += [f"in_{i} = A.ub({names[leaf]}.dtype, t.lanes)" for i, leaf in enumerate(p.extras)]
        decls += [f"ex_{i} = A.ub(A.f32, t.lanes)" for i in range(len(p.extras))] + [f"{w} = A.ub(A.f32, t.lanes)" for w in comp.tiles]
        if mask is not None:
            decls += ["ramp = A.ub(A.f32, A.align_up(t.bn, 8))", "colv = A.ub(A.f32, A.align_up(t.bn, 8))",
                      "mk = A.ub(A.f32, A.align_up(t.bn, 8))"]
        decls.append(f"mm = A.cube({a}, {b}, acc, {cube_args})")
        if mask is not None:          # the column offsets 0, 1, ... of a block, once
            decls += ["for j in A.range(0, t.bn):", "    A.set(ramp, j, float(j))"]
        loop += ["ld = A.align_up(nn, 8)                     # fp32 rows of the block: 32-byte aligned",
                 "ls = A.align_up(nn, 16)                    # rows of the store tile (any float dtype)",
                 "A.Duplicate(acc, 0.0, mn * ld)             # the padding lanes of each row stay defined",
                 f"A.matmul(mm, acc, {a}[{a_off}:], {b}[{b_off}:], mn, nn, t.K{bias_arg})"]
        for i, (leaf, kind) in enumerate(p.extras.items()):     # loaded in their dtype, widened row by row
            if kind != "scalar":                           # its padding lanes stay defined, like acc's
                loop.append(f"A.Duplicate(ex_{i}, 0.0, mn * ld)")
            if kind == "full":
                loop += [f"A.load(in_{i}, {names[leaf]}[{c_off}:], nn, rows=mn, src_stride=t.N, dst_stride=ls)",
                         "for r in A.range(0, mn):", f'    A.Cast(ex_{i}[r * ld:], in_{i}[r * ls:], "auto", nn)']
            elif kind == "scalar":                         # a 0-d parameter: read once, spread over the block
                loop += [f"A.load(in_{i}, {names[leaf]}, 1)", f'A.Cast(ex_{i}, in_{i}, "auto", 1)',
                         f"s_{i} = A.get(ex_{i}, 0)", f"A.Duplicate(ex_{i}, s_{i}, mn * ld)"]
            else:
                loop += [f"A.load(in_{i}, {names[leaf]}[n0:], nn)",
                         "for r in A.range(0, mn):", f'    A.Cast(ex_{i}[r * ld:], in_{i}, "auto", nn)']
        loop += comp.lines + (_masking(mask, result) if mask is not None else [])
        loop += ["for r in A.range(0, mn):", f'    A.Cast(yout[r * ls:], {result}[r * ld:], "auto", nn)',
                 f"A.store({y}[{c_off}:], yout, nn, rows=mn, src_stride=ls, dst_stride=t.N)"]
        cores = "hw.vector_cores"
        per_tile = (f"bn = min(128, N)\n    # UB: {ntiles} fp32 tiles of bm rows x align_up(bn, 16) lanes\n"
                    f"    bm = max(1, min(64, M, (hw.ub_bytes - 4096) // ({ntiles} * 4 * A.align_up(bn, 16))))")
    params = ", ".join(inputs)
    ops = ", ".join(dict.fromkeys(n.op for n in [core, *after] + ([mask] if mask is not None else [])))
    kind = "MIX (cube + vector epilogue)" if mix else "cube-only"
    source = (doc(f"{name}: {ops} on the cube unit, {kind} (written by the builtin writer).") + f'''

@A.tiling
def tiling({params}, hw):
    {shape_fields}
    {per_tile}
    tn = A.ceil_div(N, bn)
    per = A.ceil_div(M, bm) * tn
    tiles = batch * per
    return A.Tiling(block_dim=max(1, min({cores}, tiles)), M=M, N=N, K=K, bm=bm, bn=bn, tn=tn, per=per, tiles=tiles,
                    lanes=bm * A.align_up(bn, 16))


@A.shapes
def shapes({params}):
    {shape_fields}
    return {{"{y}": {out_shape}}}


{decorator(inputs, {y: a})}
def {kernel_name(name)}({params}, {y}, t):
{indent(decls, 1)}
    lo_, hi_ = A.block_span(t.tiles)
    for i in A.range(lo_, hi_):
{indent(loop, 2)}
''')
    return Emitted("matmul", f"{ops}: C = {'A^T' if p.a.trans else 'A'} @ {'B^T' if p.b.trans else 'B'} "
                             f"{'per batch ' if p.batched else ''}on the cube unit, {kind}", source)
