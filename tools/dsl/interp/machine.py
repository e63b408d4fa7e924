"""One block of a kernel, executed statement by statement on its own UB arena. A generator: it
yields at every A.sync_all so the runner can line all blocks up at the barrier."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterator

import numpy as np

from kernelwright.tools.dsl import ir
from kernelwright.tools.dsl.dtypes import DType
from kernelwright.tools.dsl.errors import DslDiagnostic, DslError
from kernelwright.tools.dsl.interp import cube, dma, index, vector
from kernelwright.tools.dsl.interp.memory import Arena, GmTensor
from kernelwright.tools.dsl.interp.values import F32, KernelExprEval
from kernelwright.tools.dsl.layout import Buffer
from kernelwright.tools.dsl.roles import Roles

MAX_STEPS = 4_000_000           # statements of one block
MAX_TOTAL_STEPS = 16_000_000    # statements of all blocks of one case (run.py lowers each block's limit to fit)


@dataclass
class TileState:
    buf: Buffer
    queue: bool
    slot: int = -1
    live: bool = False
    loads: int = 0                  # times filled (IN) / allocated (OUT)
    owner: int = -1                 # serial of the block execution that allocated it
    last_line: int | None = None    # where it was last filled or freed

    def base(self) -> int:
        return self.buf.offset + max(self.slot, 0) * self.buf.slot_bytes


class Block:
    def __init__(self, program: ir.Program, roles: Roles, buffers: list[Buffer], gm: dict[str, GmTensor],
                 ev: KernelExprEval, block: int, ub_bytes: int, externs, arch: str,
                 warnings: list[DslDiagnostic]):
        self.p, self.roles, self.gm, self.ev, self.block, self.arch = program, roles, gm, ev, block, arch
        self.externs, self.warnings = externs, warnings
        self.arena = Arena(ub_bytes)
        self.tiles = {b.name: TileState(b, roles.queue(b.name)) for b in buffers if b.kind in ("in", "out", "calc")}
        self.hidden = {b.kind: b for b in buffers if b.kind not in ("in", "out", "calc")}
        self.steps = 0
        self.max_steps = MAX_STEPS
        self.sync_count = 0
        self.serials = 0
        self.current = [0]              # serials of the block executions we are in, innermost last

    # ---- control flow
    def run(self) -> Iterator[int]:
        yield from self.block_body(self.p.kernel.body)

    def block_body(self, stmts: list[ir.Stmt]) -> Iterator[int]:
        self.serials += 1
        self.current.append(self.serials)
        yield from self._block_body(stmts)
        self.current.pop()

    def _block_body(self, stmts: list[ir.Stmt]) -> Iterator[int]:
        for name in self.roles.block_stores.get(id(stmts), []):
            self.alloc(name, stmts[0].line if stmts else None)
        for s in stmts:
            self.steps += 1
            if self.steps > self.max_steps:
                raise DslError("kernel.steps", f"the case ran more than its budget of {MAX_STEPS} statements per block "
                                               f"and {MAX_TOTAL_STEPS} in all (an endless loop, or a scalar loop too "
                                               "long to interpret)", s.line,
                               hint="check the loop bounds and steps; test with smaller shapes")
            if isinstance(s, (ir.If, ir.For, ir.SyncAll)):
                yield from self.compound(s)
            else:
                self.simple(s)
        for name in self.roles.block_loads.get(id(stmts), []):
            self.free(name, stmts[-1].line if stmts else None)

    def compound(self, s: ir.Stmt) -> Iterator[int]:
        if isinstance(s, ir.SyncAll):
            self.sync_count += 1
            yield s.line
        elif isinstance(s, ir.If):
            yield from self.block_body(s.body if self.ev.eval(s.cond) else s.orelse)
        elif s.kind == "range":
            i = self.ev.index(s.start)
            while i < self.ev.index(s.stop):
                self.ev.env[s.vars[0]] = i
                yield from self.block_body(s.body)
                step = self.ev.index(s.step)
                if step <= 0:
                    raise DslError("loop.step", f"A.range step must be positive, got {step}", s.line)
                i += step
        else:
            off = self.ev.index(s.start)
            while off < self.ev.index(s.stop):
                tile = self.ev.index(s.step)
                if tile <= 0:
                    raise DslError("loop.step", f"the tile length of A.tiles must be positive, got {tile}", s.line,
                                   hint="check the tiling field used as the tile length")
                self.ev.env[s.vars[0]] = off
                self.ev.env[s.vars[1]] = min(tile, self.ev.index(s.stop) - off)
                yield from self.block_body(s.body)
                off += tile

    def simple(self, s: ir.Stmt) -> None:
        if isinstance(s, (ir.TileDecl, ir.WorkspaceDecl, ir.CubeDecl, ir.Pass)):
            return
        if isinstance(s, ir.Assign):
            v = self.ev.eval(s.value)
            if len(s.targets) == 2:
                self.ev.env[s.targets[0]], self.ev.env[s.targets[1]] = v
            else:
                self.ev.env[s.targets[0]] = self.typed(s.targets[0], v)
        elif isinstance(s, ir.AugAssign):
            v = self.ev.binop(s.op, self.ev.env[s.target], self.ev.eval(s.value), s.line)
            self.ev.env[s.target] = self.typed(s.target, v)
        elif isinstance(s, ir.Load):
            dma.load(self, s)
        elif isinstance(s, ir.Store):
            dma.store(self, s)
        elif isinstance(s, ir.Move):
            dma.move(self, s)
        elif isinstance(s, ir.VecOp):
            vector.vec_op(self, s)
        elif isinstance(s, ir.ScalarCall):
            self.ev.env[s.target] = self.typed(s.target, vector.scalar_call(self, s))
        elif isinstance(s, ir.SetValue):
            vector.set_value(self, s)
        elif isinstance(s, ir.Extern):
            self.extern(s)
        elif isinstance(s, ir.Matmul):
            cube.matmul(self, s)
        elif isinstance(s, ir.Gather):
            index.gather(self, s)
        elif isinstance(s, ir.Scatter):
            index.scatter(self, s)
        elif isinstance(s, ir.Where):
            index.where(self, s)

    def typed(self, name: str, v: Any) -> Any:
        return F32(v) if self.p.kernel_types.get(name) == "scalar" else int(v)

    # ---- queue protocol (mirrors the generated AllocTensor / FreeTensor placement)
    def alloc(self, name: str, line: int | None) -> None:
        ts = self.tiles[name]
        if ts.live:
            raise DslError("queue.reload", f"tile `{name}` is filled again while its previous contents are still in "
                                           "use", line, hint="a queue tile is loaded (or stored) once per block; "
                                                            "declare a second tile", tile=name)
        ts.slot = (ts.slot + 1) % ts.buf.depth
        ts.live, ts.loads, ts.last_line, ts.owner = True, ts.loads + 1, line, self.current[-1]
        self.arena.garbage(ts.base(), ts.buf.slot_bytes)

    def fill(self, name: str, line: int | None) -> None:
        """An A.load: the first load of a tile in a block execution allocates its queue slot; later
        loads in the same block write into the same slot."""
        ts = self.tiles[name]
        if not (ts.live and ts.owner == self.current[-1]):
            self.alloc(name, line)

    def free(self, name: str, line: int | None) -> None:
        ts = self.tiles[name]
        ts.live, ts.last_line = False, line

    def gm_tensor(self, name: str, line: int) -> GmTensor:
        return self.gm[name]

    def extern(self, s: ir.Extern) -> None:
        fn = self.externs.get(s.numpy)
        if fn is None:
            raise DslError("extern.missing", f"no NumPy semantics named `{s.numpy}` for hole `{s.name}`", s.line,
                           hint="use one of the registered semantics: " + (", ".join(self.externs.names()) or "none")
                                + " (or np.<ufunc> through the agent); argument conventions are in the DSL reference")
        params = {k: self.ev.eval(v) for k, v in s.params.items()}

        def arrays(refs: list, write: bool) -> list[np.ndarray]:
            out = []
            for r in refs:
                if isinstance(r, str):
                    t = self.gm[r]
                    if write:
                        t.defined[:] = True
                        t.written[:] = True
                    out.append(t.data)
                else:
                    ts = self.tiles[r.name]
                    k = self.ev.index(r.offset) if r.offset is not None else 0
                    off = ts.base() + k * ts.buf.dtype.size
                    count = ts.buf.capacity - k
                    if write:
                        self.arena.valid[off:off + count * ts.buf.dtype.size] = True
                    out.append(self.arena.array(off, count, ts.buf.dtype))
            return out
        reads, writes = arrays(s.reads, False), arrays(s.writes, True)
        try:
            fn(reads, writes, **params)
        except Exception as e:   # the semantics run on the program's arguments: a bad call is the program's finding
            shapes = ", ".join(f"{len(a)}" for a in reads) or "none"
            raise DslError("extern.semantics", f"the semantics `{s.numpy}` of hole `{s.name}` failed on its arguments: "
                                               f"{type(e).__name__}: {str(e)[:200]}", s.line,
                           hint=f"check reads/writes and the keywords against the semantics' conventions in the DSL "
                                f"reference (elements available from each read's view: {shapes}; indices are element "
                                f"indices, not byte offsets)") from None

    def dtype_of(self, name: str) -> DType:
        return self.ev.dtype_of(name)
