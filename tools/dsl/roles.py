"""What each tile is for, read off the kernel IR: load destinations become VECIN queues, store
sources VECOUT queues, the rest VECCALC scratch; queue depth is the largest `stages` of the
A.tiles loops around a tile's loads or stores. The rules, the interpreter and the generator share
this analysis, so the queue protocol the interpreter checks is the one the generator emits."""
from __future__ import annotations

from dataclasses import dataclass, field

from kernelwright.tools.dsl import ir


@dataclass
class Site:
    stmt: ir.Stmt
    block: list[ir.Stmt]             # the statement list it sits in (its queue tensor lives there)
    loops: list[ir.For]              # enclosing loops, outermost first
    depth_path: tuple[int, ...]      # ids of the enclosing blocks, outermost first
    where: list = field(default_factory=list)   # (block, index of the statement holding the site), outermost first


@dataclass
class Roles:
    role: dict[str, str] = field(default_factory=dict)          # tile -> in | out | calc
    depth: dict[str, int] = field(default_factory=dict)         # queue tiles -> slots
    loads: dict[str, list[Site]] = field(default_factory=dict)
    stores: dict[str, list[Site]] = field(default_factory=dict)
    block_loads: dict[int, list[str]] = field(default_factory=dict)    # id(block) -> IN tiles loaded at its top level
    block_stores: dict[int, list[str]] = field(default_factory=dict)   # id(block) -> OUT tiles stored at its top level
    conflicts: list[str] = field(default_factory=list)          # tiles both loaded and stored
    uses_reduce: list[ir.Stmt] = field(default_factory=list)    # statements needing the reduce work buffer
    uses_scalar: list[ir.Stmt] = field(default_factory=list)    # statements needing the 32-byte scalar scratch
    uses_api_tmp: list[ir.Stmt] = field(default_factory=list)   # advanced APIs (Tanh, Sigmoid, Erf)
    uses_gather: list[ir.Gather] = field(default_factory=list)  # need the int32 byte-offset scratch
    uses_select: list[ir.Where] = field(default_factory=list)   # need the half copy and bit mask of the condition
    matmuls: list[ir.Matmul] = field(default_factory=list)
    moves: list[ir.Move] = field(default_factory=list)          # A.move: their `via` tiles stay VECCALC scratch
    sync_all: list[ir.SyncAll] = field(default_factory=list)
    gm_loaded: set[str] = field(default_factory=set)
    gm_stored: set[str] = field(default_factory=set)
    last_store: set[int] = field(default_factory=set)           # id(Store) that releases its tile (end of a run)
    first_load: set[int] = field(default_factory=set)           # id(Load) that allocates its tile (start of a run)

    def queue(self, tile: str) -> bool:
        return self.role.get(tile) in ("in", "out")

    @property
    def select_scalar(self) -> bool:
        """A.where with a number: Select's scalar mode stages it in the last 8 KiB of UB."""
        return any(not isinstance(w.a, ir.TileRef) or not isinstance(w.b, ir.TileRef) for w in self.uses_select)


def kernel_kind(program: ir.Program) -> str:
    """"vector" (no cube unit), "cube" (cube units and no UB tile: runs on the cube cores alone) or
    "mix" (cube units and vector work: one cube core and two vector cores per block)."""
    if not program.cubes:
        return "vector"
    return "mix" if program.tiles else "cube"


def launch_blocks(program: ir.Program, block_dim: int) -> int:
    """Blocks (vector-core instances for a MIX kernel) a launch of `block_dim` runs: MIX kernels
    run their vector cores in pairs, so an odd block_dim gets one more."""
    return 2 * ((block_dim + 1) // 2) if kernel_kind(program) == "mix" else block_dim


def analyse(program: ir.Program) -> Roles:
    r = Roles()
    for name in program.tiles:
        r.role[name] = "calc"

    def visit(block: list[ir.Stmt], loops: list[ir.For], path: tuple[int, ...], where: list) -> None:
        path = path + (id(block),)
        for i, s in enumerate(block):
            here = where + [(block, i)]
            if isinstance(s, ir.Load):
                r.loads.setdefault(s.dst.name, []).append(Site(s, block, list(loops), path, here))
                r.block_loads.setdefault(id(block), [])
                if s.dst.name not in r.block_loads[id(block)]:
                    r.block_loads[id(block)].append(s.dst.name)
                r.gm_loaded.add(s.src)
            elif isinstance(s, ir.Store):
                r.stores.setdefault(s.src.name, []).append(Site(s, block, list(loops), path, here))
                r.block_stores.setdefault(id(block), [])
                if s.src.name not in r.block_stores[id(block)]:
                    r.block_stores[id(block)].append(s.src.name)
                r.gm_stored.add(s.dst)
            elif isinstance(s, ir.VecOp):
                if s.op.startswith("Reduce"):
                    r.uses_reduce.append(s)
                if s.op in ("Tanh", "Sigmoid", "Erf"):
                    r.uses_api_tmp.append(s)
            elif isinstance(s, ir.ScalarCall):
                if s.fn in ("reduce_sum", "reduce_max", "reduce_min"):
                    r.uses_reduce.append(s)
                if s.fn in ("reduce_sum", "reduce_max", "reduce_min", "sqrt", "exp", "ln"):
                    r.uses_scalar.append(s)
            elif isinstance(s, ir.SyncAll):
                r.sync_all.append(s)
            elif isinstance(s, ir.Gather):
                r.uses_gather.append(s)
            elif isinstance(s, ir.Where):
                r.uses_select.append(s)
            elif isinstance(s, ir.Move):
                r.moves.append(s)
                r.gm_loaded.add(s.load.src)
                r.gm_stored.add(s.store.dst)
            elif isinstance(s, ir.Matmul):
                r.matmuls.append(s)
                r.gm_loaded.update(v.name for v in (s.a, s.b, s.bias) if v is not None)
                if isinstance(s.out, ir.GmView):
                    r.gm_stored.add(s.out.name)
            elif isinstance(s, ir.Extern):
                r.gm_loaded.update(x for x in s.reads if isinstance(x, str))
                r.gm_stored.update(x for x in s.writes if isinstance(x, str))
            if isinstance(s, ir.For):
                visit(s.body, loops + [s], path, here)
            elif isinstance(s, ir.If):
                visit(s.body, loops, path, here)
                visit(s.orelse, loops, path, here)

    visit(program.kernel.body, [], (), [])
    for block in _blocks(program.kernel.body):
        allocated: set[str] = set()
        for i, st in enumerate(block):
            if isinstance(st, ir.Store):
                nxt = block[i + 1] if i + 1 < len(block) else None
                if not (isinstance(nxt, ir.Store) and nxt.src.name == st.src.name):
                    r.last_store.add(id(st))
            if isinstance(st, ir.Load) and st.dst.name not in allocated:
                allocated.add(st.dst.name)
                r.first_load.add(id(st))
    for name in program.tiles:
        loaded, stored = name in r.loads, name in r.stores
        if loaded and stored:
            r.conflicts.append(name)
        if loaded or stored:
            r.role[name] = "in" if loaded else "out"
            sites = r.loads.get(name, []) + r.stores.get(name, [])
            r.depth[name] = max([1] + [lp.stages for site in sites for lp in site.loops])
    return r


def canonical_split(loop: ir.For, roles: Roles) -> tuple[int, int]:
    """(leading loads, trailing stores) of an A.tiles body: the CopyIn and CopyOut stages. A load
    leads when it fills a queue tile at the top of the body; a store trails at the bottom."""
    body = loop.body
    lead = 0
    while lead < len(body) and isinstance(body[lead], ir.Load) and roles.role.get(body[lead].dst.name) == "in":
        lead += 1
    trail = 0
    while trail < len(body) - lead and isinstance(body[-1 - trail], ir.Store) and \
            roles.role.get(body[-1 - trail].src.name) == "out":
        trail += 1
    return lead, trail


def _blocks(body: list[ir.Stmt]):
    yield body
    for st in body:
        for child in ir.child_blocks(st):
            yield from _blocks(child)
