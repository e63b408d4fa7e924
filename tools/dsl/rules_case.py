"""Rules that need a case's tiling: launch limits and the UB budget (the whole ledger, hidden
scratch included, for this case's shapes)."""
from __future__ import annotations

from kernelwright.tools.dsl import ir
from kernelwright.tools.dsl.errors import DslDiagnostic
from kernelwright.tools.dsl.host_eval import TilingResult
from kernelwright.tools.dsl.layout import Buffer, render, total_bytes
from kernelwright.tools.dsl.roles import Roles, kernel_kind, launch_blocks
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
    kind = kernel_kind(program)
    cube_blocks = nb if kind == "cube" else (nb + 1) // 2
    if kind != "vector" and cube_blocks > soc.aic_cores:
        out.append(DslDiagnostic(rule="launch.cube_cores", line=ret_line,
                                 message=f"block_dim {nb} needs {cube_blocks} cube cores; {soc.name} has "
                                         f"{soc.aic_cores}" + (" (a MIX kernel pairs two vector blocks with one cube "
                                                               "core)" if kind == "mix" else ""),
                                 hint="clamp it: min(hw.cube_cores, units) for a cube-only kernel, "
                                      "min(hw.vector_cores, units) with vector work", values={"block_dim": nb}))
    nb = launch_blocks(program, nb)
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


def cube_rules(program: ir.Program, ev) -> list[DslDiagnostic]:
    """The host tiling of every cube unit: a positive tile no larger than the whole matrices (GetTiling
    refuses the unit otherwise, and the case fails on the host)."""
    out = []
    for unit in program.cubes.values():
        tile = [ev.index(e) for e in unit.tile]
        shape = [ev.index(e) for e in unit.shape]
        if min(tile + shape) <= 0 or any(t > s for t, s in zip(tile, shape)) or max(shape) >= 1 << 31:
            out.append(DslDiagnostic(
                rule="cube.tiling", line=unit.line,
                message=f"cube unit `{unit.name}`: tile {tuple(tile)} must be positive and at most the whole matrices "
                        f"{tuple(shape)} (M, N, K below 2**31): the host's matmul tiling refuses it",
                hint="clamp the tile in the tiling function: bm = min(128, M), bn = min(256, N), bk = K",
                values={"tile": tile, "shape": shape}))
    return out
