"""Holes: what the generator cannot emit (`A.extern`). The generated kernel calls
`Hole_<name>(...)`, whose empty body sits between `KW-HOLE <name> BEGIN/END` markers; the project
records each hole's spec (in `KernelProject.meta["holes"]`) so a lowering pass can fill it and be
checked against the interpreter, which runs the hole's NumPy semantics."""
from __future__ import annotations

from pydantic import BaseModel, Field

from kernelwright.tools.dsl import ir
from kernelwright.tools.dsl.codegen.cpp_expr import KernelExpr, safe


class HoleBuffer(BaseModel):
    name: str                     # DSL name
    cpp: str                      # the C++ parameter: `const LocalTensor<float>& acc` / `GlobalTensor<half>& xGm`
    kind: str                     # tile | gm
    access: str                   # read | write
    dtype: str                    # C++ element type (DTYPE_X for the op's dtype columns)
    capacity: str | None = None   # tiles: capacity expression in elements (over the tiling struct `t`)
    queue: str | None = None      # VECIN | VECOUT | VECCALC
    ub_offsets: dict[str, int] = Field(default_factory=dict)   # case label -> UB byte offset (from the ledger)


class Hole(BaseModel):
    name: str
    spec: str                     # what the code must do, in words (from the DSL)
    line: int                     # DSL line of the A.extern
    numpy: str                    # interpreter semantics callback
    buffers: list[HoleBuffer]
    params: dict[str, str]        # scalar parameter -> C++ type (int64_t | float)
    function: str                 # the C++ function to fill: `Hole_<name>`
    file: str                     # project path of the kernel source
    begin_marker: str
    end_marker: str


def hole_signature(program: ir.Program, h: ir.Extern, tile_types: dict[str, str],
                   x: KernelExpr) -> tuple[str, list[str]]:
    params, doc = [], []
    for access, refs in (("reads", h.reads), ("writes", h.writes)):
        for r in refs:
            if isinstance(r, ir.TileRef):
                t = tile_types[r.name]
                params.append(f"const LocalTensor<{t}>& {safe(r.name)}")
                cap = x.expr(program.tiles[r.name].capacity)
                doc.append(f"{access} tile {r.name}: LocalTensor<{t}>, capacity {cap} elements")
            else:
                t = x.dtype(program.workspaces[r].dtype) if r in program.workspaces else f"DTYPE_{r.upper()}"
                params.append(f"const GlobalTensor<{t}>& {safe(r)}Gm")
                doc.append(f"{access} GM tensor {r}: GlobalTensor<{t}>")
    for k, v in h.params.items():
        kind = "float" if x.type_of(v) == "scalar" else "int64_t"
        params.append(f"{kind} {safe(k)}")
        doc.append(f"parameter {k}: {kind}")
    doc.append(f"NumPy semantics for the interpreter: `{h.numpy}`")
    return ", ".join(params), doc


def describe_holes(program: ir.Program, externs: list[ir.Extern], tile_types: dict[str, str], roles, x: KernelExpr,
                   kernel_file: str, offsets: dict[str, dict[str, int]] | None = None) -> list[Hole]:
    out = []
    for h in externs:
        bufs = []
        for access, refs in (("read", h.reads), ("write", h.writes)):
            for r in refs:
                if isinstance(r, ir.TileRef):
                    role = roles.role[r.name]
                    bufs.append(HoleBuffer(name=r.name, cpp=f"const LocalTensor<{tile_types[r.name]}>& {safe(r.name)}",
                                           kind="tile", access=access, dtype=tile_types[r.name],
                                           capacity=x.expr(program.tiles[r.name].capacity),
                                           queue={"in": "VECIN", "out": "VECOUT"}.get(role, "VECCALC"),
                                           ub_offsets=(offsets or {}).get(r.name, {})))
                else:
                    t = x.dtype(program.workspaces[r].dtype) if r in program.workspaces else f"DTYPE_{r.upper()}"
                    bufs.append(HoleBuffer(name=r, cpp=f"const GlobalTensor<{t}>& {safe(r)}Gm", kind="gm",
                                           access=access, dtype=t))
        params = {k: ("float" if x.type_of(v) == "scalar" else "int64_t") for k, v in h.params.items()}
        out.append(Hole(name=h.name, spec=h.spec, line=h.line, numpy=h.numpy, buffers=bufs, params=params,
                        function=f"Hole_{h.name}", file=kernel_file, begin_marker=f"// KW-HOLE {h.name} BEGIN",
                        end_marker=f"// KW-HOLE {h.name} END"))
    return out
