"""Rules that need a case's tiling: launch limits and the UB budget (the whole ledger, hidden
scratch included, for this case's shapes)."""
from __future__ import annotations

from kernelwright.tools.dsl import ir
from kernelwright.tools.dsl.errors import DslDiagnostic
from kernelwright.tools.dsl.host_eval import TilingResult
from kernelwright.tools.dsl.layout import Buffer, render, total_bytes
from kernelwright.tools.dsl.roles import Roles
from kernelwright.tools.hardware import SocProfile

MAX_BLOCK_DIM = 65535


def case_rules(program: ir.Program, roles: Roles, tiling: TilingResult, buffers: list[Buffer],
               soc: SocProfile) -> list[DslDiagnostic]:
    out: list[DslDiagnostic] = []
    ret_line = program.tiling.body[-1].line
    nb = tiling.block_dim
    if not 1 <= nb <= MAX_BLOCK_DIM:
        out.append(DslDiagnostic(rule="launch.block_dim", line=ret_line,
                                 message=f"block_dim is {nb}; a launch takes 1 to {MAX_BLOCK_DIM} blocks",
                                 hint="clamp it: max(1, min(hw.vector_cores, units))", values={"block_dim": nb}))
    if roles.sync_all and nb > soc.vector_cores:
        out.append(DslDiagnostic(rule="launch.sync_all", line=roles.sync_all[0].line,
                                 message=f"A.sync_all with block_dim {nb} > {soc.vector_cores} vector cores of "
                                         f"{soc.name}: the blocks that do not fit wait for the others forever",
                                 hint="with A.sync_all, launch at most hw.vector_cores blocks and loop inside",
                                 values={"block_dim": nb, "vector_cores": soc.vector_cores}))
    for b in buffers:
        if b.capacity < 0:
            out.append(DslDiagnostic(rule="decl.capacity", line=b.line,
                                     message=f"tile {b.name} has a negative capacity ({b.capacity})"))
    total = total_bytes(buffers)
    if total > soc.ub_bytes:
        per_elem = sum(b.depth * b.dtype.size for b in buffers if b.kind in ("in", "out", "calc"))
        fixed = sum(b.bytes for b in buffers if b.kind not in ("in", "out", "calc"))
        room = max(0, soc.ub_bytes - fixed - 32 * sum(b.depth for b in buffers))
        hint = (f"shrink the tiles: with these buffers a tile length of at most {room // per_elem if per_elem else 0} "
                "elements fits (count every queue slot: a tile in a stages=2 loop takes 2 slots, and the hidden "
                "scratch of reductions and Tanh/Sigmoid/Erf)")
        biggest = max((b for b in buffers if b.line), key=lambda b: b.bytes, default=None)
        out.append(DslDiagnostic(rule="ub.capacity", line=biggest.line if biggest else ret_line,
                                 message=f"the kernel needs {total} bytes of UB, more than the {soc.ub_bytes} of "
                                         f"{soc.name}. Ledger: {render(buffers)}",
                                 hint=hint, values={"total": total, "capacity": soc.ub_bytes,
                                                    "ledger": {b.name: b.bytes for b in buffers}}))
    return out
