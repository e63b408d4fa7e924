"""Static rules on the kernel IR (no case needed): declarations at the top, queue roles and
lifetimes, store grouping, queue limits, loop variables, and dtype x instruction support for every
dtype column of the signature. Each finding has a rule id, the DSL line and a fix hint."""
from __future__ import annotations

from kernelwright.tools.dsl import ir
from kernelwright.tools.dsl.errors import DslDiagnostic
from kernelwright.tools.dsl.optable import auto_mode, cast_modes, ops
from kernelwright.tools.dsl.primitives import prims
from kernelwright.tools.dsl.roles import Roles, analyse, canonical_split
from kernelwright.tools.dsl.typecheck import dtype_of_gm, tile_dtypes

MAX_QUEUE_SLOTS = 8      # TQue buffers per position (event ids) on A2/A3
MAX_BUFFERS = 64         # buffers one TPipe manages


def check(program: ir.Program) -> list[DslDiagnostic]:
    roles = analyse(program)
    out: list[DslDiagnostic] = []
    out += declarations(program)
    out += queue_roles(program, roles)
    out += lifetimes(program, roles)
    out += loops(program, roles)
    out += dtypes(program)
    out += cube_units(program, roles)
    out += move_tiles(program, roles)
    return out


def d(rule: str, line: int | None, message: str, hint: str | None = None, severity: str = "error",
      **values) -> DslDiagnostic:
    return DslDiagnostic(rule=rule, line=line, message=message, hint=hint, severity=severity, values=values)


def declarations(p: ir.Program) -> list[DslDiagnostic]:
    out = []
    seen_work = None
    for s in p.kernel.body:
        if isinstance(s, (ir.TileDecl, ir.WorkspaceDecl, ir.CubeDecl)):
            if seen_work is not None:
                out.append(d("decl.top", s.line, f"`{s.name}` is declared after the kernel's work started (line "
                                                 f"{seen_work})", "declare every tile and workspace at the top of "
                                                                  "the kernel: they become buffers reserved in Init"))
        elif not isinstance(s, (ir.Assign, ir.AugAssign, ir.Pass)) and seen_work is None:
            seen_work = s.line
    for s in ir.walk(p.kernel.body):
        if isinstance(s, ir.For) or isinstance(s, ir.If):
            for inner in ir.walk(s.body + (s.orelse if isinstance(s, ir.If) else [])):
                if isinstance(inner, (ir.TileDecl, ir.WorkspaceDecl, ir.CubeDecl)):
                    out.append(d("decl.top", inner.line, f"`{inner.name}` is declared inside a loop or branch",
                                 "declare tiles and workspaces at the top level of the kernel"))
    used = {r.name for s in ir.walk(p.kernel.body) for r in _refs(s)}
    for name, decl in p.tiles.items():
        if name not in used:
            out.append(d("decl.unused", decl.line, f"tile `{name}` is declared but never used",
                         "remove it: it still takes UB", severity="warning"))
    return out


def queue_roles(p: ir.Program, roles: Roles) -> list[DslDiagnostic]:
    out = []
    for name in roles.conflicts:
        line = roles.stores[name][0].stmt.line
        out.append(d("queue.role", line, f"tile `{name}` is both loaded from GM and stored to GM",
                     "load into one tile and store from another: compute into the output tile, or A.copy into it "
                     "(a tile is a VECIN queue when loaded, a VECOUT queue when stored)", tile=name))
    for pos, what in (("in", "loaded"), ("out", "stored")):
        slots = sum(roles.depth[t] for t, r in roles.role.items() if r == pos and t not in roles.conflicts)
        if slots > MAX_QUEUE_SLOTS:
            out.append(d("queue.limit", p.kernel.line, f"{slots} queue slots of {what} tiles; a core has "
                                                       f"{MAX_QUEUE_SLOTS} per direction",
                         "use fewer tiles per direction (a tile in a stages=2 loop takes 2 slots)"))
    nbuf = len(p.tiles) + 3
    if nbuf > MAX_BUFFERS:
        out.append(d("queue.limit", p.kernel.line, f"{nbuf} buffers; a TPipe manages at most {MAX_BUFFERS}"))
    return out


def move_tiles(p: ir.Program, roles: Roles) -> list[DslDiagnostic]:
    """The `via` tile of A.move is only passed between the copy engines (no vector flag guards it)."""
    via = {m.load.dst.name: m.line for m in roles.moves}
    others = {r.name for s in ir.walk(p.kernel.body) if not isinstance(s, ir.Move) for r in _refs(s)}
    out = []
    for name, line in via.items():
        if name in others:
            out.append(d("move.via", line, f"tile `{name}` carries A.move data and is also used by another statement",
                         "give A.move a tile of its own (the copy engines pass it on without the vector unit's "
                         "flags)", tile=name))
    return out


def _refs(s: ir.Stmt) -> list[ir.TileRef]:
    if isinstance(s, ir.Move):
        return [s.load.dst]
    if isinstance(s, ir.Load):
        return [s.dst]
    if isinstance(s, ir.Store):
        return [s.src]
    if isinstance(s, ir.VecOp):
        return [s.dst] + s.srcs
    if isinstance(s, ir.ScalarCall) and s.src is not None:
        return [s.src]
    if isinstance(s, ir.SetValue):
        return [s.tile]
    if isinstance(s, ir.Extern):
        return [r for r in s.reads + s.writes if isinstance(r, ir.TileRef)]
    if isinstance(s, (ir.Gather, ir.Scatter)):
        return [s.dst, s.src, s.idx]
    if isinstance(s, ir.Where):
        return [r for r in (s.dst, s.cond, s.a, s.b) if isinstance(r, ir.TileRef)]
    if isinstance(s, ir.Matmul) and isinstance(s.out, ir.TileRef):
        return [s.out]
    return []


def lifetimes(p: ir.Program, roles: Roles) -> list[DslDiagnostic]:
    """A loaded tile is used only after a load in an enclosing block; an output tile is written only
    in a block that stores it, before the store; the stores of one tile in a block are adjacent."""
    out: list[DslDiagnostic] = []

    def visit(block: list[ir.Stmt], path: list[tuple[list[ir.Stmt], int]]) -> None:
        for i, s in enumerate(block):
            here = path + [(block, i)]
            for ref in _refs(s):
                role = roles.role.get(ref.name)
                if role not in ("in", "out") or ref.name in roles.conflicts:
                    continue
                if role == "in" and not isinstance(s, ir.Load) and not _after(roles.loads[ref.name], here, before=False):
                    out.append(d("queue.lifetime", s.line, f"tile `{ref.name}` is used where no A.load of it is alive",
                                 "a loaded tile lives from its A.load to the end of that load's block (loop body or "
                                 "branch); load it in this block, or A.copy it into a scratch tile that lives longer",
                                 tile=ref.name))
                if role == "out" and not isinstance(s, ir.Store) and not _after(roles.stores[ref.name], here, before=True):
                    out.append(d("queue.lifetime", s.line, f"output tile `{ref.name}` is used outside the block that "
                                                           "stores it, or after its A.store",
                                 "an output tile lives from the start of the block with its A.store until the store; "
                                 "compute into it and store it in the same loop body", tile=ref.name))
            if isinstance(s, ir.For):
                visit(s.body, here)
            elif isinstance(s, ir.If):
                visit(s.body, here)
                visit(s.orelse, here)

    visit(p.kernel.body, [])
    for name, sites in roles.stores.items():
        by_block: dict[int, list[int]] = {}
        for site in sites:
            by_block.setdefault(id(site.block), []).append(next(i for i, x in enumerate(site.block) if x is site.stmt))
        for idxs in by_block.values():
            if max(idxs) - min(idxs) + 1 != len(idxs):
                out.append(d("queue.store_group", sites[0].stmt.line, f"the stores of `{name}` in one block are "
                                                                     "separated by other statements",
                             "store an output tile with adjacent A.store calls (its queue slot is released after the "
                             "last one), or use a second output tile"))
    for name, sites in roles.loads.items():
        for s in sites:
            for other in sites:
                if other.block is s.block:
                    continue
                # `other` is alive from its position to the end of its block: a load nested in a later statement
                # of that block would need a second slot while the first is still in use
                j = next((i for blk, i in s.where if blk is other.block), None)
                k = next(i for i, x in enumerate(other.block) if x is other.stmt)
                if j is not None and j > k:
                    out.append(d("queue.reload", s.stmt.line, f"tile `{name}` is loaded here while the load at line "
                                                             f"{other.stmt.line} (an enclosing block) is still alive",
                                 "use a second tile for the inner loads"))
    return out


def _after(sites, here: list[tuple[list[ir.Stmt], int]], before: bool) -> bool:
    """True when some site sits in a block on `here`'s path: a load earlier in that block
    (before=False), or a store later in it (before=True)."""
    for site in sites:
        for block, i in here:
            if block is site.block:
                j = next(k for k, x in enumerate(block) if x is site.stmt)
                if (j > i) if before else (j < i):
                    return True
    return False


def loops(p: ir.Program, roles: Roles) -> list[DslDiagnostic]:
    out = []
    for s in ir.walk(p.kernel.body):
        if not isinstance(s, ir.For):
            continue
        for inner in ir.walk(s.body):
            targets = inner.targets if isinstance(inner, ir.Assign) else [inner.target] if isinstance(
                inner, (ir.AugAssign, ir.ScalarCall)) else inner.vars if isinstance(inner, ir.For) else []
            for v in s.vars:
                if v in targets:
                    out.append(d("loop.variable", inner.line, f"loop variable `{v}` (line {s.line}) is assigned "
                                                             "inside its loop", "use another name"))
        if s.stages == 2:
            lead, trail = canonical_split(s, roles)
            if lead == 0 and trail == 0:
                out.append(d("pipeline.shape", s.line, "stages=2 on a loop that neither starts with A.load nor ends "
                                                       "with A.store: there is no copy to overlap",
                             "use stages=1, or put the loads first and the stores last in the loop body",
                             severity="warning"))
    return out


def dtypes(p: ir.Program) -> list[DslDiagnostic]:
    """Every instruction, for every dtype column of the signature."""
    out: list[DslDiagnostic] = []
    seen = set()
    for col in range(p.sig.columns):
        tile_dt = tile_dtypes(p, col)
        for s in ir.walk(p.kernel.body):
            for f in _dtype_findings(p, s, tile_dt, col):
                key = (f.rule, f.line, f.message)
                if key not in seen:
                    seen.add(key)
                    out.append(f)
    return out


def _dtype_findings(p: ir.Program, s: ir.Stmt, tdt: dict[str, str], col: int) -> list[DslDiagnostic]:
    cols = f" (dtype column {col}: {', '.join(f'{t.name}={t.dtypes[min(col, len(t.dtypes) - 1)]}' for t in p.sig.inputs)})" \
        if p.sig.columns > 1 else ""
    if isinstance(s, ir.Move):
        return _dtype_findings(p, s.load, tdt, col) + _dtype_findings(p, s.store, tdt, col)
    if isinstance(s, (ir.Load, ir.Store)):
        tile = s.dst if isinstance(s, ir.Load) else s.src
        gm = s.src if isinstance(s, ir.Load) else s.dst
        g = dtype_of_gm(p, gm, col)
        if tdt[tile.name] != g:
            return [d("dtype.mix", s.line, f"tile `{tile.name}` is {tdt[tile.name]} but `{gm}` is {g}{cols}",
                      f"declare the tile as A.ub({gm}.dtype, ...) and A.Cast after loading / before storing")]
        return []
    if isinstance(s, ir.ScalarCall) and s.fn.startswith("reduce_") and s.fn != "reduce_prod":
        info = ops()[{"reduce_sum": "ReduceSum", "reduce_max": "ReduceMax", "reduce_min": "ReduceMin"}[s.fn]]
        dt = tdt[s.src.name]
        if not info.supports(dt):
            return [d("dtype.op", s.line, f"A.{s.fn} has no {dt} form on this target{cols}",
                      "A.Cast to f32 first" + (" (bf16 has no arithmetic on A2/A3)" if dt == "bf16" else ""))]
        return []
    if isinstance(s, (ir.Gather, ir.Scatter, ir.Where)):
        return _index_dtypes(s, tdt, cols)
    if not isinstance(s, ir.VecOp):
        return []
    info = ops()[s.op]
    dst = tdt[s.dst.name]
    srcs = [tdt[r.name] for r in s.srcs]
    if info.form in ("cast", "copy"):
        src = srcs[0]
        if info.form == "copy" or (src == dst and s.mode in ("auto", "none")):
            if src != dst:
                return [d("dtype.mix", s.line, f"A.copy from {src} to {dst}{cols}", "use A.Cast to convert")]
            return []
        modes = cast_modes(src, dst)
        if modes is None:
            return [d("cast.pair", s.line, f"A.Cast from {src} to {dst} is not supported on this target{cols}",
                      "cast through f32 (f16 -> f32 -> bf16)", src=src, dst=dst)]
        mode = auto_mode(src, dst) if s.mode == "auto" else s.mode
        if mode is None or mode not in modes:
            return [d("cast.mode", s.line, f"A.Cast {src} -> {dst} does not support round mode "
                                           f"{s.mode!r}{cols}", f"supported: {', '.join(modes)}")]
        return []
    operand_dt = srcs[0] if info.form == "reduce" else dst
    found = []
    if not info.supports(operand_dt):
        found.append(d("dtype.op", s.line, f"A.{s.op} has no {operand_dt} form on this target (it takes "
                                           f"{', '.join(info.accepted())}){cols}",
                       "bf16 has no arithmetic on A2/A3: A.Cast to f32, compute, A.Cast back" if operand_dt == "bf16"
                       else "A.Cast the operands to a supported dtype", op=s.op, dtype=operand_dt))
    if any(x != dst for x in srcs):
        found.append(d("dtype.mix", s.line, f"A.{s.op} mixes {', '.join(sorted(set(srcs + [dst])))}{cols}",
                       "operands of one instruction share a dtype; A.Cast first"))
    return found


def _index_dtypes(s: ir.Stmt, tdt: dict[str, str], cols: str) -> list[DslDiagnostic]:
    """The dtypes the primitive table allows for the data, index and condition operands."""
    name = "gather" if isinstance(s, ir.Gather) else "where" if isinstance(s, ir.Where) else \
        "scatter_add" if s.add else "scatter"
    table = prims()[name].dtypes
    roles = [("data", s.dst.name)] + ([("cond", s.cond.name)] if isinstance(s, ir.Where) else [("index", s.idx.name)])
    out = []
    for role, tile in roles:
        if tdt[tile] not in table[role]:
            out.append(d("dtype.op", s.line, f"A.{name}: `{tile}` is {tdt[tile]}; the {role} operand takes "
                                             f"{', '.join(table[role])}{cols}",
                         "A.Cast the indices to i32" if role == "index" else "A.Cast to a supported dtype first",
                         op=name, dtype=tdt[tile]))
    return out


def cube_units(p: ir.Program, roles: Roles) -> list[DslDiagnostic]:
    """Every A.matmul names its unit's tensors; a cube-only kernel (no UB tile) has no vector barrier."""
    out = []
    for s in roles.matmuls:
        unit = p.cubes[s.unit]
        out_name = s.out.name
        pairs = [("the result", out_name, unit.c), ("a", s.a.name, unit.a), ("b", s.b.name, unit.b)]
        if s.bias is not None and unit.bias is not None:
            pairs.append(("bias", s.bias.name, unit.bias))
        for role, got, want in pairs:
            if got != want:
                out.append(d("cube.operand", s.line, f"A.matmul({s.unit}, ...): {role} is `{got}` but the unit was "
                                                     f"declared with `{want}`", f"pass {want}[offset:] (declare another "
                                                                                 "A.cube for other tensors)"))
    if p.cubes and not p.tiles and roles.sync_all:
        out.append(d("cube.sync_all", roles.sync_all[0].line, "A.sync_all in a cube-only kernel (no UB tile): it "
                                                               "runs on the cube cores, which have no vector barrier",
                     "split the work so that blocks do not wait for each other, or add the vector part that needs it"))
    return out
