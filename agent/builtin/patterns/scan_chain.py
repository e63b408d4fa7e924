"""Scans composed with elementwise work (the composer's scans): an elementwise prologue over the inputs
(x * mask with a bool mask, any chain the chain compiler writes), one cumsum or cumprod along an axis,
optionally reversed (flip, scan, flip) or exclusive (the scan of the first R-1 elements after a zero:
cat([zeros_like(...), cumsum(x.narrow(dim, 0, R-1))])), and a one-operand elementwise epilogue.

Along the last axis (inner == 1) the scan is blocked as scan/cumsum.dsl.py: G rows x K columns per strided
copy, gathered lane-major, the columns folded onto a carry, gathered back, one strided store. The prologue
runs on each such block as it comes in when K divides the row (fused: every input read once); otherwise
(a ragged last block) it runs flat over the block's share of the elements into an fp32 GM workspace, then
A.sync_all(), and the scan reads the workspace. Along a middle axis (inner > 1) a chunk of the inner axes
walks the scanned axis one slice at a time. Without a prologue the scan reads its input directly. The plain
scans (cumsum, cumprod, reversed cumsum of one input) stay with patterns/reduce.py's examples, which come first."""
from __future__ import annotations

from dataclasses import dataclass, field

from kernelwright.agent.builtin.chain import ChainCompiler, Unsupported, is_elementwise
from kernelwright.agent.builtin.dslgen import FLOATS, doc, ident, indent, kernel_name
from kernelwright.agent.builtin.graphview import FLOAT_DTYPES, Node, OpGraph, ref
from kernelwright.agent.builtin.patterns import Emitted
from kernelwright.agent.builtin.patterns.common import one_dim

SCANS = {"cumsum": ("Add", "0.0"), "cumprod": ("Mul", "1.0")}
KNOWN = set(SCANS) | {"narrow", "cat", "zeros_like", "select", "flip"}


# rows per block (the lanes of one column, 8 apart), as scan/cumsum.dsl.py picks them: the fewest cycles on the busiest
# core, counting ~0.45 cycles per element (two gathers) and one vector instruction per column (3 cycles up to 64
# lanes); a group leaves room for a block of at least `kal` columns
def scan_group(room: str, kal: int) -> list[str]:
    return ["    group = 8", "    best = -1", "    for i in range(5):", "        g = 8 * 2 ** i",
            "        cost = A.ceil_div(A.ceil_div(outer, g), hw.vector_cores) * (9 * g + 20 * max(3, 2 * A.ceil_div(g, 64)))",
            f"        if g <= A.align_up(A.ceil_div(outer, hw.vector_cores), 8) and {room.replace('group', 'g')} >= {kal} "
            "and (best < 0 or cost < best):",
            "            group = g", "            best = cost"]


@dataclass
class ScanChain:
    scan: Node
    dim: int
    reverse: bool
    exclusive: bool
    src: Node                                          # the value scanned (its full R elements)
    prologue: list[Node] = field(default_factory=list)
    epilogue: list[Node] = field(default_factory=list)


def _one_tensor_arg(g: OpGraph, n: Node) -> Node | None:
    tensors = [g.node(ref(a)) for a in list(n.args) + list(n.kwargs.values()) if ref(a) and g.node(ref(a)).shape]
    return tensors[0] if len(tensors) == 1 else None


def _flip_of(g: OpGraph, n: Node, dim: int) -> Node | None:
    if n.op != "flip" or one_dim(n.arg(1, "dims"), len(n.shape or [])) != dim:
        return None
    return g.node(ref(n.args[0])) if ref(n.args[0]) else None


def find(g: OpGraph) -> ScanChain | None:
    """The scan chain the graph computes, or None."""
    out = g.single_output()
    scans = [n for n in g.compute if n.op in SCANS]
    if out is None or g.mutated or g.scalar_inputs or len(scans) != 1 or out.shape is None:
        return None
    s = scans[0]
    dim = one_dim(s.arg(1, "dim"), len(s.shape or []))
    if dim is None or s.kwargs.get("dtype") is not None or s.dtype not in FLOAT_DTYPES:
        return None
    cur, epilogue = out, []
    while cur is not s and cur.op not in ("flip", "cat"):
        arg = _one_tensor_arg(g, cur)
        if arg is None or not is_elementwise(g, cur) or cur.shape != out.shape:
            return None
        epilogue.insert(0, cur)
        cur = arg
    reverse = cur.op == "flip"
    if reverse:
        cur = _flip_of(g, cur, dim)
    exclusive = cur is not None and cur.op == "cat"
    if exclusive:
        parts = cur.args[0] if cur.args and isinstance(cur.args[0], list) else []
        zero = g.node(ref(parts[0])) if len(parts) == 2 and ref(parts[0]) else None
        if one_dim(cur.arg(1, "dim", 0), len(cur.shape)) != dim or zero is None or zero.op != "zeros_like" \
                or ref(parts[1]) != s.name or (zero.shape or [0] * len(cur.shape))[dim] != 1:
            return None
        cur = s
    if cur is not s:
        return None
    src = g.node(ref(s.args[0])) if s.args and ref(s.args[0]) else None
    if exclusive and src is not None:
        if src.op != "narrow" or one_dim(src.arg(1, "dim"), len(src.shape)) != dim or src.arg(2, "start") != 0 \
                or src.shape[dim] != out.shape[dim] - 1:
            return None
        src = g.node(ref(src.args[0]))
    if src is not None and src.op == "flip":
        if not reverse:
            return None
        src = _flip_of(g, src, dim)
    elif reverse:
        return None
    if src is None or src.shape != out.shape or src.dtype not in FLOAT_DTYPES:
        return None
    prologue = _prologue(g, src, out.shape)
    return None if prologue is None else ScanChain(s, dim, reverse, exclusive, src, prologue, epilogue)


def _prologue(g: OpGraph, v: Node, frame: list[int]) -> list[Node] | None:
    """The elementwise nodes (in graph order) computing `v` from inputs of the frame's shape."""
    need, seen = [v.name], set()
    while need:
        n = g.node(need.pop())
        if n.name in seen:
            continue
        seen.add(n.name)
        if n.kind == "placeholder":
            if n.shape != frame or n.dtype not in FLOAT_DTYPES + ("bool",):
                return None
            continue
        if not (is_elementwise(g, n) or n.op == "where") or n.shape != frame:
            return None
        need += [ref(a) for a in list(n.args) + list(n.kwargs.values()) if ref(a) and g.node(ref(a)).shape]
    return [n for n in g.compute if n.name in seen]


def match(g: OpGraph, name: str) -> Emitted | None:
    found = find(g)
    if found is None:
        return None
    try:
        return _Writer(g, found, name).write()
    except Unsupported:
        return None


class _Writer:
    def __init__(self, g: OpGraph, c: ScanChain, name: str):
        self.g, self.c, self.name = g, c, name
        taken = {"ones", "pre", "pout", "sin", "w", "acc", "yout", "epb", "cnt", "row", "gn", "g0", "g1", "k", "r", "u",
                 "u0", "u1", "o", "c", "n", "m", "off", "lo", "hi",
                 "ex", "idx1", "idx2", "bg", "bk", "carry", "kn", "c0", "j", "i", "g", "q"}
        self.inputs = g.tensor_inputs
        self.x = {t.name: ident(t.name, taken) for t in self.inputs}
        self.y = ident("y", taken)
        self.fused: tuple[list[str], list[str], str] | None = None     # (start, per block, result tile)

    def write(self) -> Emitted:
        c, x, y = self.c, self.x, self.y
        instr, init = SCANS[c.scan.op]
        if c.exclusive and init != "0.0":   # the cat's zero column is the carry in only when the fold starts at 0
            raise Unsupported([], "an exclusive scan that does not start from 0")
        first = next((t for t in self.inputs if t.dtype in FLOAT_DTYPES), None)
        if first is None:
            raise Unsupported([], "no float input")
        body, decls, host_bytes, bools = [], [], [], False
        staged = c.src.kind != "placeholder"
        if staged:                       # phase 1: the prologue into the fp32 workspace
            pro = ChainCompiler(self.g, count="m", prefix="w")
            leaves, loads = {}, []
            used = [t for t in self.inputs if any(ref(a) == t.name for n in c.prologue for a in list(n.args) + list(n.kwargs.values()))]
            for t in used:
                leaves[t.name] = pro.new()
                conv = (f"A.where({leaves[t.name]}, {x[t.name]}_in, ones, 0.0, m)" if t.dtype == "bool"
                        else f'A.Cast({leaves[t.name]}, {x[t.name]}_in, "auto", m)')
                loads += [f"A.load({x[t.name]}_in, {x[t.name]}[off:], m)", conv]
            tiles = pro.compile(c.prologue, leaves, {c.src.name})
            bools = any(t.dtype == "bool" for t in used)
            decls += [f"{x[t.name]}_in = A.ub({x[t.name]}.dtype, t.chunk)" for t in used]
            decls += [f"{w} = A.ub(A.f32, t.chunk)" for w in pro.tiles] + ["pout = A.ub(A.f32, t.chunk)"]
            decls += ["ones = A.ub(A.f32, t.chunk)"] if bools else []
            decls += ["pre = A.workspace(A.f32, t.total)"]
            host_bytes += [f"2 * {x[t.name]}.dtype.size" for t in used]
            host_bytes += [str(4 * (len(pro.tiles) + 2 + bools) + (8 if pro.advanced else 0))]
            body += ["A.Duplicate(ones, 1.0, t.chunk)"] if bools else []
            phase1 = ["lo, hi = A.block_span(t.total, 64)", "for off, m in A.tiles(lo, hi, t.chunk, stages=2):"]
            phase1 += ["    " + ln for ln in loads + pro.lines + [f'A.Cast(pout, {tiles[c.src.name]}, "auto", m)',
                                                                 "A.store(pre[off:], pout, m)"]]
            body += ["if t.fused == 0:"] + ["    " + ln for ln in phase1 + ["A.sync_all()"]]
            # fused (a block of columns divides the row): the prologue runs on each G x K block as it comes in
            self.fused = [f"A.Duplicate({w}, 0.0, t.chunk)" for w in pro.tiles], \
                [ln.replace(f"[off:], m)", "[row * t.R + c0:], t.K, rows=gn, src_stride=t.R, dst_stride=t.K)")
                 for ln in loads] + pro.lines, tiles[c.src.name]
            src, src_dtype = "pre", "A.f32"
        else:
            src, src_dtype = x[c.src.name], f"{x[c.src.name]}.dtype"
        epi = ChainCompiler(self.g, count="cnt", prefix="e")
        head = _one_tensor_arg(self.g, c.epilogue[0]).name if c.epilogue else c.scan.name   # the scan, cat or flip
        scanned = "ex" if c.exclusive else "acc"
        tiles = epi.compile(c.epilogue, {head: scanned}, {head} | ({c.epilogue[-1].name} if c.epilogue else set()))
        out_tile = tiles[c.epilogue[-1].name] if c.epilogue else scanned
        decls += ["sin = A.ub({}, t.chunk)".format(src_dtype), "w = A.ub(A.f32, t.chunk)", "acc = A.ub(A.f32, t.chunk)",
                  f"yout = A.ub({y}.dtype, t.chunk)"] + (["ex = A.ub(A.f32, t.chunk)"] if c.exclusive else [])
        decls += [f"{e} = A.ub(A.f32, t.chunk)" for e in epi.tiles]
        decls += ["idx1 = A.ub(A.i32, t.ichunk)", "idx2 = A.ub(A.i32, t.ichunk)", "bg = A.ub(A.i32, t.group)",
                  "bk = A.ub(A.i32, t.K)", "carry = A.ub(A.f32, t.group)"]
        host_bytes += [f"2 * {'4' if staged else f'{src}.dtype.size'} + 2 * {x[first.name]}.dtype.size",
                       str(8 + 4 * len(epi.tiles) + (8 if epi.advanced else 0))]
        body += ["epb = A.elems_per_block({})".format(src_dtype), "if t.inner == 1:"]
        body += ["    " + ln for ln in self.blocked(instr, init, src, epi.lines, out_tile)]
        # inner > 1: a chunk of the inner axes is one lane each, the scan walks r one slice at a time
        fold = [f"A.Cast(w, sin, \"auto\", cnt)", f"A.{instr}(acc, acc, w, cnt)"]
        put = epi.lines + [f'A.Cast(yout, {out_tile}, "auto", cnt)']
        if c.exclusive:
            put = ["A.copy(ex, acc, cnt)"] + put
        step = (put + [None] + fold) if c.exclusive else (fold + put + [None])   # None: the store
        rev = "t.R - 1 - k" if c.reverse else "k"
        chunked = [f"A.load(sin, {src}[(o * t.R + r) * t.inner + c:], n)"] + \
            [ln or f"A.store({y}[(o * t.R + r) * t.inner + c:], yout, n)" for ln in step]
        body += ["else:", "    u0, u1 = A.block_span(t.outer * t.pieces)", "    for u in A.range(u0, u1):",
                 "        o = u // t.pieces", "        c = u % t.pieces * t.chunk", "        n = min(t.chunk, t.inner - c)",
                 "        cnt = n", f"        A.Duplicate(acc, {init}, cnt)", "        for k in A.range(t.R, stages=2):",
                 f"            r = {rev}"] + ["            " + ln for ln in chunked]
        ins = [x[t.name] for t in self.inputs]
        f0 = x[first.name]
        ex = 4 if c.exclusive else 0
        kal = 32 if staged and bools else 16        # K columns: whole 32-byte blocks of every input's rows
        room = f"((hw.ub_bytes - 24576) // group - 8) // (per_elem + {12 + ex})"     # columns a block of G rows fits
        host = [f"R = {f0}.shape[{c.dim}]", f"inner = A.prod({f0}.shape[{c.dim + 1}:])", "outer = " + f"{f0}.numel // (R * inner)",
                f"per_elem = {' + '.join(host_bytes)}",
                "if inner == 1:",
                "    # a block of G rows x K columns; per element also two i32 gather indices and the gather's own scratch",
                "    # (and the exclusive scan's copy); 24 KiB for the API scratch of where/Tanh",
                *scan_group(room, kal),
                f"    K = min(A.align_up(R, {kal}), A.align_down({room}, {kal}))",
                "    fused = 0"] + ([
                "    KF = K                      # the prologue fuses into the scan when a block of columns divides R",
                "    for i in range(64):", f"        if KF > {kal} and R % KF != 0:", f"            KF -= {kal}",
                "    if R % KF == 0 and 2 * KF >= K:", "        fused = 1", "        K = KF"] if staged else []) + [
                "    chunk = group * K",
                "    units = A.ceil_div(outer, group)",
                "    pieces = A.ceil_div(R, K)",
                "    ichunk = chunk",
                "else:",
                f"    chunk = A.align_down((hw.ub_bytes - 16384) // (per_elem + {ex}), 64)",
                "    chunk = max(64, min(chunk, A.align_up(inner, 64)))",
                "    group = 8", "    K = 16", "    fused = 0", "    units = outer * A.ceil_div(inner, chunk)",
                "    pieces = A.ceil_div(inner, chunk)", "    ichunk = 8",
                "nb = max(1, min(hw.vector_cores, units))",
                "return A.Tiling(block_dim=nb, outer=outer, R=R, inner=inner, chunk=chunk, group=group, K=K, "
                f"pieces=pieces, ichunk=ichunk, fused=fused, total={f0}.numel)"]
        cols = ", ".join(f'"{x[t.name]}": {"(A.bool,)" if t.dtype == "bool" else FLOATS}' for t in self.inputs)
        kind = ("reversed " if c.reverse else "") + ("exclusive " if c.exclusive else "") + c.scan.op
        pro_ops = ", ".join(dict.fromkeys(n.op for n in c.prologue)) or "none"
        epi_ops = ", ".join(dict.fromkeys(n.op for n in c.epilogue)) or "none"
        what = f"{kind} along axis {c.dim} of a {c.src.shape} frame (prologue: {pro_ops}; epilogue: {epi_ops})"
        source = (doc(f"{self.name}: {what}; {'prologue into an fp32 workspace, a barrier, then ' if staged else ''}"
                      "the scan (written by the builtin writer's composer).") + "\n\n"
                  f"@A.tiling\ndef tiling({', '.join(ins + ['hw'])}):\n{indent(host, 1)}\n\n\n"
                  f"@A.shapes\ndef shapes({', '.join(ins)}):\n    return {{\"{y}\": {f0}.shape}}\n\n\n"
                  f'@A.kernel(inputs={{{cols}}}, outputs={{"{y}": "{f0}"}})\n'
                  f"def {kernel_name(self.name)}({', '.join(ins + [y, 't'])}):\n{indent(decls + body, 1)}\n")
        return Emitted("scan", what, source)

    def blocked(self, instr: str, init: str, src: str, epilogue: list[str], out_tile: str) -> list[str]:
        """The scan along the last axis, blocked as scan/cumsum.dsl.py: G rows x K columns come in with one
        strided copy, a gather turns them lane-major (column k is G contiguous lanes), the columns fold in
        order onto the carry of the previous K, a gather turns the result back and one strided copy stores it."""
        c, y = self.c, self.y
        G = "t.group"
        if c.reverse:
            scan = [f"A.{instr}(acc[(kn - 1) * {G}:], acc[(kn - 1) * {G}:], carry, {G})", "for i in A.range(1, kn):",
                    "    k = kn - 1 - i", f"    A.{instr}(acc[k * {G}:], acc[k * {G}:], acc[(k + 1) * {G}:], {G})"]
            shift = [f"A.copy(ex[(kn - 1) * {G}:], carry, {G})"], ["if kn > 1:", f"    A.copy(ex, acc[{G}:], (kn - 1) * {G})"]
            scan += ["A.copy(carry, acc, t.group)"]
        else:
            scan = [f"A.{instr}(acc, acc, carry, {G})", "for k in A.range(1, kn):",
                    f"    A.{instr}(acc[k * {G}:], acc[k * {G}:], acc[(k - 1) * {G}:], {G})"]
            shift = [f"A.copy(ex, carry, {G})"], ["if kn > 1:", f"    A.copy(ex[{G}:], acc, (kn - 1) * {G})"]
            scan += [f"A.copy(carry, acc[(kn - 1) * {G}:], {G})"]
        if c.exclusive:                  # column k gets the fold of the columns before it; the first the carry in
            scan = shift[0] + scan[:-1] + shift[1] + scan[-1:]
        piece = "t.pieces - 1 - j" if c.reverse else "j"
        lines = ["for g in A.range(t.group):", "    A.set(bg, g, g * t.K)", "for k in A.range(t.K):",
                 "    A.Adds(idx1[k * t.group:], bg, k, t.group)", "for q in A.range(8):", "    A.set(bk, q, q * t.group)",
                 "for q in A.range(1, t.K // 8):", "    A.Adds(bk[q * 8:], bk, q * 8 * t.group, 8)",
                 "for g in A.range(t.group):", "    A.Adds(idx2[g * t.K:], bk, g, t.K)",
                 "A.Duplicate(w, 0.0, t.chunk)          # rows past a ragged group are transposed too, never stored"]
        lines += ["A.Duplicate(ex, 0.0, t.chunk)"] if c.exclusive else []
        lines += ["g0, g1 = A.block_span(t.outer, t.group)", "for row, gn in A.tiles(g0, g1, t.group):",
                  f"    A.Duplicate(carry, {init}, t.group)", "    for j in A.range(t.pieces, stages=2):",
                  f"        c0 = ({piece}) * t.K", "        kn = min(t.K, t.R - c0)"]
        lines += ["        cnt = t.chunk"] if epilogue else []
        staged = [f"A.load(sin, {src}[row * t.R + c0:], kn, rows=gn, src_stride=t.R, dst_stride=t.K, pad=0.0)",
                  "if kn == t.K:                        # whole rows: one instruction (a row each costs a repeat's start)",
                  '    A.Cast(w, sin, "auto", gn * t.K)', "else:",
                  "    for g in A.range(gn):", '        A.Cast(w[g * t.K:], sin[g * t.K:], "auto", A.align_up(kn, epb))',
                  "A.gather(acc, w, idx1, t.chunk, t.chunk)"]
        if self.fused is None:
            lines += ["        " + ln for ln in staged]
        else:
            start, block, res = self.fused
            lines[:0] = ["if t.fused == 1:"] + ["    " + ln for ln in start]   # rows past a ragged group: never stored
            lines += ["        if t.fused == 1:", "            m = gn * t.K"]
            lines += ["            " + ln for ln in block + [f"A.gather(acc, {res}, idx1, t.chunk, t.chunk)"]]
            lines += ["        else:"] + ["            " + ln for ln in staged]
        lines += ["        " + ln for ln in scan + epilogue]
        lines += [f"        A.gather(w, {out_tile}, idx2, gn * t.K, t.chunk)", '        A.Cast(yout, w, "auto", gn * t.K)',
                  f"        A.store({y}[row * t.R + c0:], yout, kn, rows=gn, src_stride=t.K, dst_stride=t.R)"]
        return lines
