"""Interpret a program on one case: pick the dtype column, run the tiling, check the per-case
rules (launch limits, UB budget), run every block (lined up at each A.sync_all), then check that
every output element was written. Findings come back as diagnostics, never as exceptions."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from kernelwright.tools.dsl import ir
from kernelwright.tools.dsl.dtypes import DTYPES, DType, dtype_of_array
from kernelwright.tools.dsl.errors import DslDiagnostic, DslError
from kernelwright.tools.dsl.externs import resolve
from kernelwright.tools.dsl.host_eval import TensorSpec, TilingResult, run_shapes, run_tiling
from kernelwright.tools.dsl.interp.machine import MAX_STEPS, MAX_TOTAL_STEPS, Block
from kernelwright.tools.dsl.interp.memory import GmTensor
from kernelwright.tools.dsl.interp.values import KernelExprEval
from kernelwright.tools.dsl.layout import Buffer, align32, ledger
from kernelwright.tools.dsl.roles import Roles, analyse, launch_blocks
from kernelwright.tools.dsl.rules_case import case_rules, cube_rules
from kernelwright.tools.hardware import SocProfile, load_soc

# GM bytes (outputs and workspaces) one interpreted case may hold: the interpreter keeps 14 host bytes per fp32
# element (data, defined/written masks, last writer and reader), and a transposed conv's im2col workspace at a
# task's own shapes asked for 12 GB of GM (the process was killed by the kernel's OOM killer)
HOST_GM_BYTES = 1 << 30


@dataclass
class InterpResult:
    ok: bool
    outputs: dict[str, np.ndarray] = field(default_factory=dict)     # outputs, then every input's final contents
    diagnostics: list[DslDiagnostic] = field(default_factory=list)
    tiling: TilingResult | None = None
    buffers: list[Buffer] = field(default_factory=list)
    column: int | None = None
    block_dim: int = 0

    def errors(self) -> list[DslDiagnostic]:
        return [d for d in self.diagnostics if d.severity == "error"]


def pick_column(program: ir.Program, inputs: dict[str, np.ndarray]) -> int:
    got = {k: dtype_of_array(np.asarray(v)) for k, v in inputs.items()}
    for col in range(program.sig.columns):
        if all(got.get(t.name) is not None and got[t.name].name == t.dtypes[min(col, len(t.dtypes) - 1)]
               for t in program.sig.inputs):
            return col
    have = ", ".join(f"{k}: {v.name if v else np.asarray(inputs[k]).dtype}" for k, v in got.items())
    cols = "; ".join(", ".join(f"{t.name}: {t.dtypes[min(c, len(t.dtypes) - 1)]}" for t in program.sig.inputs)
                     for c in range(program.sig.columns))
    raise DslError("case.dtype", f"no dtype column of the kernel takes these inputs ({have})", program.kernel.line,
                   hint=f"@A.kernel(inputs=...) declares the columns: {cols}")


def column_dtypes(program: ir.Program, col: int) -> dict[str, DType]:
    return {t.name: DTYPES[t.dtypes[min(col, len(t.dtypes) - 1)]] for t in program.sig.inputs + program.sig.outputs}


def workspace_layout(program: ir.Program, ev: KernelExprEval) -> dict[str, tuple[int, int, DType]]:
    """name -> (byte offset, elements, dtype) in the user workspace, each 32-byte aligned."""
    out, off = {}, 0
    for name, decl in program.workspaces.items():
        dt, n = ev.dtype(decl.dtype), ev.index(decl.size)
        out[name] = (off, n, dt)
        off += align32(max(n, 0) * dt.size)
    return out


def interpret(program: ir.Program, inputs: dict[str, np.ndarray], attrs: dict[str, Any] | None = None,
              soc: SocProfile | None = None, externs: dict[str, Callable] | None = None,
              label: str = "") -> InterpResult:
    soc = soc or load_soc(None)
    res = InterpResult(ok=False)
    try:
        _run(program, inputs, attrs or {}, soc, resolve(externs), res)
    except DslError as e:
        e.diag.case = e.diag.case or label or None
        res.diagnostics.append(e.diag)
    for d in res.diagnostics:
        d.case = d.case or label or None
    res.ok = not res.errors()
    return res


def _unwritten(n: int, np_dtype) -> np.ndarray:
    """An output before the kernel runs: NaN for floating dtypes, all-ones bytes (as the emulation fills
    outputs) for integer ones, which have no NaN."""
    dt = np.dtype(np_dtype)
    if dt.kind in "iub":
        return np.frombuffer(b"\xff" * (n * dt.itemsize), dtype=dt).copy()
    return np.full(n, np.nan).astype(dt)


def _run(program, inputs, attrs, soc, externs, res: InterpResult) -> None:
    inputs = {**inputs, **{t.name: inputs[t.name[:-1]] for t in program.sig.inputs
                           if t.name not in inputs and t.name.endswith("_") and t.name[:-1] in inputs}}  # `A_` for `A`
    missing = [t.name for t in program.sig.inputs if t.name not in inputs]
    if missing:
        raise DslError("case.inputs", f"the case has no value for input(s) {', '.join(missing)}", program.kernel.line)
    col = res.column = pick_column(program, inputs)
    dts = column_dtypes(program, col)
    specs = {t.name: TensorSpec(tuple(np.asarray(inputs[t.name]).shape), dts[t.name]) for t in program.sig.inputs}
    res.tiling = tiling = run_tiling(program, specs, attrs, soc)
    roles = analyse(program)
    ev0 = KernelExprEval(program, tiling.fields, lambda g: dts[g])
    res.buffers = buffers = ledger(program, roles, ev0)
    ws = workspace_layout(program, ev0)
    tiling.workspace_bytes = sum(align32(n * dt.size) for _, n, dt in ws.values())
    findings = case_rules(program, roles, tiling, buffers, soc) + cube_rules(program, ev0)
    res.diagnostics += findings
    if any(d.severity == "error" for d in findings):
        return
    res.block_dim = launch_blocks(program, tiling.block_dim)
    shapes = run_shapes(program, specs, attrs)
    held = tiling.workspace_bytes + sum(int(np.prod(shapes[t.name], dtype=np.int64)) * dts[t.name].size
                                        for t in program.sig.outputs)
    if held > HOST_GM_BYTES:     # the interpreter keeps GM in host memory (and a written mask per element)
        raise DslError("case.memory", f"this case's outputs and workspaces take {held} bytes of GM: more than the "
                       f"interpreter holds ({HOST_GM_BYTES} bytes)", program.kernel.line,
                       hint="run a smaller case (the referee shrinks cases it can), or size the workspaces by a tile "
                            "of the work rather than by all of it", bytes=held)
    gm: dict[str, GmTensor] = {}
    for t in program.sig.inputs:
        gm[t.name] = GmTensor(t.name, np.asarray(inputs[t.name]).astype(dts[t.name].np), dts[t.name],
                              specs[t.name].shape, "input")
    for t in program.sig.outputs:
        shape = shapes[t.name]
        gm[t.name] = GmTensor(t.name, _unwritten(int(np.prod(shape, dtype=np.int64)), dts[t.name].np),
                              dts[t.name], shape, "output")
    for name, (_, n, dt) in ws.items():
        gm[name] = GmTensor(name, np.zeros(max(n, 0), dt.np), dt, (max(n, 0),), "workspace")
    _run_blocks(program, roles, buffers, gm, tiling, dts, soc, externs, res)
    for t in program.sig.outputs:
        g = gm[t.name]
        missing = ~g.written
        if missing.any():
            first = int(np.argmax(missing))
            res.diagnostics.append(DslDiagnostic(
                rule="gm.unwritten", line=program.kernel.line,
                message=f"{int(missing.sum())} of {g.size} elements of output {t.name} were never written "
                        f"(first: {t.name}{list(g.index_of(first))})",
                hint="a tail was lost or a block's share is empty: check the split (A.block_span), the loop bounds "
                     "and the last, shorter tile", values={"output": t.name, "unwritten": int(missing.sum())}))
    res.outputs = {t.name: gm[t.name].data.reshape(gm[t.name].shape) for t in program.sig.outputs}
    for t in program.sig.inputs:
        res.outputs.setdefault(t.name, gm[t.name].data.reshape(gm[t.name].shape))


def _run_blocks(program, roles: Roles, buffers, gm, tiling, dts, soc, externs, res: InterpResult) -> None:
    nb = launch_blocks(program, tiling.block_dim)
    warnings: list[DslDiagnostic] = []
    blocks, gens = [], []
    for b in range(nb):
        ev = KernelExprEval(program, tiling.fields, lambda g: dts[g], block=b, nblocks=nb)
        blk = Block(program, roles, buffers, gm, ev, b, soc.ub_bytes, externs, "dav-c220", warnings)
        blocks.append(blk)
        gens.append(blk.run())
    active = list(range(nb))
    total = 0
    while active:
        waiting, done = [], []
        for b in active:
            before = blocks[b].steps
            blocks[b].max_steps = min(MAX_STEPS, before + MAX_TOTAL_STEPS - total)
            try:
                line = next(gens[b])
                waiting.append((b, line))
            except DslError as e:
                e.diag.block = b
                raise
            except StopIteration:
                done.append(b)
            total += blocks[b].steps - before
        if waiting and done:
            b, line = waiting[0]
            raise DslError("sync_all.mismatch", f"block {b} waits in A.sync_all #{blocks[b].sync_count} but block "
                                                f"{done[0]} finished without reaching it: the NPU hangs here", line,
                           hint="every block must call A.sync_all the same number of times: do not put it inside a "
                                "branch or loop whose trip count depends on the block")
        for t in gm.values():
            t.new_phase()
        active = [b for b, _ in waiting]
    res.diagnostics += warnings
