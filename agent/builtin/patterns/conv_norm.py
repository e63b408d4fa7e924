"""A GroupNorm or InstanceNorm between the elementwise ops after a convolution (MultiKernelBench `fuse`:
conv -> activation -> group_norm -> activation). The GEMM phase leaves conv + the ops before the norm in an fp32
workspace z (N, CO, positions); after a barrier each block takes whole (image, group) slices, which are contiguous
in z: one sweep for the mean, one for the variance around it (two sweeps: no cancellation), one that normalises
each channel with its affine weight and bias folded into one multiply-add, runs the ops after the norm and
stores y."""
from __future__ import annotations

from dataclasses import dataclass, field

from kernelwright.agent.builtin.chain import ChainCompiler, Unsupported
from kernelwright.agent.builtin.graphview import Node, OpGraph

NORMS = {"GroupNorm", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"}
CHUNK = 1024          # elements of one phase-3 tile


@dataclass
class NormStage:
    node: Node
    groups: int | None            # None: one group per channel (instance norm)
    eps: float
    weight: str | None            # parameter names of the affine weight and bias
    bias: str | None
    post: list[Node]
    post_extras: dict[str, str] = field(default_factory=dict)


def split(g: OpGraph, after: list[Node]) -> tuple[list[Node], NormStage | None] | None:
    """`after` as (ops before the norm, the norm stage with the ops after it); (after, None) without a norm;
    None when the norm is one this writer cannot run (running statistics, a second norm)."""
    at = [i for i, n in enumerate(after) if n.op in NORMS]
    if not at:
        return after, None
    if len(at) > 1:
        return None
    n = after[at[0]]
    m = n.module
    if n.op == "GroupNorm":
        groups, affine = m.get("num_groups"), m.get("affine", True)
    else:
        if m.get("track_running_stats"):
            return None
        groups, affine = None, m.get("affine", False)
    weight, bias = (f"{n.target}.weight", f"{n.target}.bias") if affine else (None, None)
    if affine and (weight not in g.params or bias not in g.params):
        return None
    return after[:at[0]], NormStage(n, groups, float(m.get("eps", 1e-5)), weight, bias, after[at[0] + 1:])


def decls(stage: NormStage, comp: ChainCompiler, names: dict[str, str], y: str) -> list[str]:
    out = ["z = A.workspace(A.f32, t.zsize)           # conv + the ops before the norm", "zin = A.ub(A.f32, t.T)",
           "w0 = A.ub(A.f32, t.T)", f"yo = A.ub({y}.dtype, t.T)"]
    if stage.weight:
        out += [f"gin = A.ub({names[stage.weight]}.dtype, t.CgA)", "gam = A.ub(A.f32, t.CgA)",
                f"bin2 = A.ub({names[stage.bias]}.dtype, t.CgA)", "bet = A.ub(A.f32, t.CgA)"]
    for i, (leaf, kind) in enumerate(stage.post_extras.items()):
        out.append(f"px_{i} = A.ub(A.f32, t.T)")
        if kind != "const":
            out.append(f"pin_{i} = A.ub({names[leaf]}.dtype, t.T)")
    return out + [f"{w} = A.ub(A.f32, t.T)" for w in comp.tiles]


def phase(stage: NormStage, comp: ChainCompiler, result: str, names: dict[str, str], y: str,
          const) -> list[str]:
    """The DSL lines (kernel-body indent 0) of the norm phase, after the barrier."""
    lines = ["A.sync_all()", "lo4, hi4 = A.block_span(t.N * t.GN)",
             "for q in A.range(lo4, hi4):                     # q = n * GN + group: its slice of z is contiguous",
             "    gb = q * t.glen", "    s1 = 0.0",
             "    for c0 in A.range(0, t.glen, t.T):", "        cn = min(t.T, t.glen - c0)",
             "        A.load(zin, z[gb + c0:], cn)", "        v = A.reduce_sum(zin, cn)", "        s1 = s1 + v",
             "    mean = s1 / float(t.glen)", "    s2 = 0.0",
             "    for c0 in A.range(0, t.glen, t.T):", "        cn = min(t.T, t.glen - c0)",
             "        A.load(zin, z[gb + c0:], cn)", "        A.Adds(w0, zin, -mean, cn)", "        A.Mul(w0, w0, w0, cn)",
             "        v = A.reduce_sum(w0, cn)", "        s2 = s2 + v",
             f"    rt = A.sqrt(s2 / float(t.glen) + {stage.eps!r})", "    rstd = 1.0 / rt",
             "    ch0 = q % t.GN * t.Cg                        # the group's first channel"]
    if stage.weight:
        lines += [f"    A.load(gin, {names[stage.weight]}[ch0:], t.Cg)", '    A.Cast(gam, gin, "auto", t.Cg)',
                  f"    A.load(bin2, {names[stage.bias]}[ch0:], t.Cg)", '    A.Cast(bet, bin2, "auto", t.Cg)']
    lines += ["    for cc in A.range(0, t.Cg):"]
    if stage.weight:
        lines += ["        ga = A.get(gam, cc)", "        be = A.get(bet, cc)", "        sa = rstd * ga",
                  "        sb = be - mean * sa"]
    else:
        lines += ["        sa = rstd", "        sb = 0.0 - mean * rstd"]
    lines += ["        for o0 in A.range(0, t.OHW, t.T):", "            on = min(t.T, t.OHW - o0)",
              "            A.load(zin, z[gb + cc * t.OHW + o0:], on)", "            A.Muls(w0, zin, sa, on)",
              "            A.Adds(w0, w0, sb, on)"]
    body = []
    for i, (leaf, kind) in enumerate(stage.post_extras.items()):
        e = names.get(leaf)
        if kind == "const":
            body.append(f"A.Duplicate(px_{i}, {float(const(leaf))!r}, on)")
        elif kind == "full":
            body += [f"A.load(pin_{i}, {e}[gb + cc * t.OHW + o0:], on)", f'A.Cast(px_{i}, pin_{i}, "auto", on)']
        elif kind == "chan":
            body += [f"A.load(pin_{i}, {e}[ch0 + cc:], 1)", f'A.Cast(px_{i}, pin_{i}, "auto", 1)',
                     f"ps_{i} = A.get(px_{i}, 0)", f"A.Duplicate(px_{i}, ps_{i}, on)"]
        else:
            body += [f"A.load(pin_{i}, {e}, 1)", f'A.Cast(px_{i}, pin_{i}, "auto", 1)', f"ps_{i} = A.get(px_{i}, 0)",
                     f"A.Duplicate(px_{i}, ps_{i}, on)"]
    body += comp.lines + [f'A.Cast(yo, {result}, "auto", on)', f"A.store({y}[gb + cc * t.OHW + o0:], yo, on)"]
    return lines + ["            " + b for b in body]


def compile_post(g: OpGraph, stage: NormStage) -> tuple[ChainCompiler, str]:
    comp = ChainCompiler(g, count="on", prefix="pk_", broadcast=True)
    if not stage.post:
        return comp, "w0"
    leaves = {stage.node.name: "w0"} | {leaf: f"px_{i}" for i, leaf in enumerate(stage.post_extras)}
    return comp, comp.compile(stage.post, leaves, keep={stage.post[-1].name})[stage.post[-1].name]


def locals_() -> set[str]:
    return {"z", "zin", "w0", "yo", "gin", "gam", "bin2", "bet", "lo4", "hi4", "q", "gb", "s1", "s2", "c0", "cn", "v",
            "mean", "rt", "rstd", "ch0", "cc", "ga", "be", "sa", "sb", "o0", "on"} | \
        {f"{p}_{k}" for p in ("px", "pin", "ps", "pk") for k in range(32)}



BATCHNORMS = {"BatchNorm1d", "BatchNorm2d", "BatchNorm3d"}


def batchnorm_ok(g: OpGraph, n: Node) -> bool:
    """An evaluation-mode BatchNorm (the referee runs the model in eval()): per channel, x * a + b."""
    return n.op in BATCHNORMS and n.module.get("track_running_stats", True) and \
        all(f"{n.target}.{p}" in g.params for p in ("running_mean", "running_var"))


def batchnorm_params(g: OpGraph, n: Node) -> list[str]:
    affine = n.module.get("affine", True) and f"{n.target}.weight" in g.params
    return [f"{n.target}.{p}" for p in ("running_mean", "running_var") + (("weight", "bias") if affine else ())]


def batchnorm_lines(n: Node, k: int, tile: str, params: list[str], names: dict[str, str]) -> tuple[list[str], list[str]]:
    """(declarations, block lines) of BatchNorm k on the block's fp32 rows in `tile`: each row (an output
    channel) scaled by weight / sqrt(running_var + eps) and shifted to bias - running_mean * that scale."""
    decls, lines = [], []
    for j, p in enumerate(params):
        decls += [f"bni_{k}_{j} = A.ub({names[p]}.dtype, t.bma)", f"bnf_{k}_{j} = A.ub(A.f32, t.bma)"]
        lines += [f"A.load(bni_{k}_{j}, {names[p]}[ch:], mn)", f'A.Cast(bnf_{k}_{j}, bni_{k}_{j}, "auto", mn)']
    eps = float(n.module.get("eps", 1e-5))
    lines += ["for r in A.range(0, mn):", f"    bm_ = A.get(bnf_{k}_0, r)", f"    bv_ = A.get(bnf_{k}_1, r)",
              f"    brt = A.sqrt(bv_ + {eps!r})", "    ba = 1.0 / brt"]
    if len(params) == 4:
        lines += [f"    bw_ = A.get(bnf_{k}_2, r)", "    ba = ba * bw_", f"    bb_ = A.get(bnf_{k}_3, r)",
                  "    bb = bb_ - bm_ * ba"]
    else:
        lines.append("    bb = 0.0 - bm_ * ba")
    lines += [f"    A.Muls({tile}[r * ld:], {tile}[r * ld:], ba, nn)", f"    A.Adds({tile}[r * ld:], {tile}[r * ld:], bb, nn)"]
    return decls, lines


def compile_pre(g: OpGraph, comp: ChainCompiler, core: str, after: list[Node], extras: dict[str, str],
                names: dict[str, str]) -> tuple[str, list[str]]:
    """The ops between the GEMM and the store (or the norm phase) on the block in `acc`: runs of elementwise ops
    through `comp`, with eval-mode BatchNorms (per-row multiply-adds) between them. Returns the tile holding the
    result and the BatchNorms' tile declarations."""
    result, decls, cur, seg, runs, k = "acc", [], core, [], 0, 0
    ex_tiles = {leaf: f"ex_{i}" for i, leaf in enumerate(extras)}
    for n in after + [None]:
        if n is not None and n.op not in BATCHNORMS:
            seg.append(n)
            continue
        if seg:
            runs += 1
            try:
                result = comp.compile(seg, {cur: result} | ex_tiles, keep={seg[-1].name})[seg[-1].name]
            except KeyError as e:         # a run reads a value from before a BatchNorm (a residual)
                raise Unsupported([], f"{e} is read across a BatchNorm") from e
            cur, seg = seg[-1].name, []
        if n is not None:
            d, lines = batchnorm_lines(n, k, result, batchnorm_params(g, n), names)
            decls, k, cur = decls + d, k + 1, n.name
            comp.lines += lines
    if runs > 1 and extras:               # a run frees the tiles of its last reads: an extra must not span runs
        raise Unsupported([], "operands shared across a BatchNorm")
    return result, decls
