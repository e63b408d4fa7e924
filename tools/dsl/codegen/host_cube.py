"""Host tiling of a cube unit: its TCubeTiling filled by matmul_tiling::MatmulApiTiling from the unit's
operand types, transposes, bias, largest block (SetShape) and whole matrices (SetOrgShape), after
the DSL's own fields are known. GetTiling sizes the base blocks to the SoC's L0A/L0B/L0C and L1; a
unit it cannot fit fails the tiling (GRAPH_FAILED), as the NPU's host would."""
from __future__ import annotations

from typing import Callable

from kernelwright.tools.cpp_text import comment_text
from kernelwright.tools.dsl import ir
from kernelwright.tools.dsl.dtypes import DTYPES, DType


def ge_dtype(program: ir.Program, name: str) -> str:
    """The ge::DataType of a tensor, workspace or tile, as host C++."""
    ins = [t.name for t in program.sig.inputs]
    outs = [t.name for t in program.sig.outputs]
    if name in ins:
        return f"context->GetInputDesc({ins.index(name)})->GetDataType()"
    if name in outs:
        return f"context->GetOutputDesc({outs.index(name)})->GetDataType()"
    decl = program.workspaces.get(name) or program.tiles[name]
    return _dtype_expr(program, decl.dtype)


def _dtype_expr(program: ir.Program, e: ir.Expr) -> str:
    if isinstance(e, ir.DTypeConst):
        return f"ge::{DTYPES[e.dtype].ge}"
    if isinstance(e, ir.Name) and isinstance(program.constants.get(e.id), DType):
        return f"ge::{program.constants[e.id].ge}"
    return ge_dtype(program, e.obj.id)         # x.dtype


def cube_tiling(program: ir.Program, unit: ir.CubeDecl, field: str, init_expr: Callable[[ir.Expr], str]) -> list[str]:
    pos = "VECIN" if unit.c in program.tiles else "GM"
    mt = "matmul_tiling"

    def typ(name: str) -> str:      # ge::DataType and matmul_tiling::DataType share their numbering
        return f"static_cast<{mt}::DataType>(static_cast<int32_t>({ge_dtype(program, name)}))"
    tile = ", ".join(f"static_cast<int32_t>({init_expr(e)})" for e in unit.tile)
    shape = ", ".join(f"static_cast<int32_t>({init_expr(e)})" for e in unit.shape)
    flag = {True: "true", False: "false"}
    lines = [f"    {{   // line {unit.line}: the cube unit `{comment_text(unit.name)}`",
             f"        {mt}::MatmulApiTiling cube(platform);",
             f"        cube.SetAType({mt}::TPosition::GM, {mt}::CubeFormat::ND, {typ(unit.a)}, {flag[unit.trans_a]});",
             f"        cube.SetBType({mt}::TPosition::GM, {mt}::CubeFormat::ND, {typ(unit.b)}, {flag[unit.trans_b]});",
             f"        cube.SetCType({mt}::TPosition::{pos}, {mt}::CubeFormat::ND, {typ(unit.c)});"]
    if unit.bias is not None:
        lines += [f"        cube.SetBiasType({mt}::TPosition::GM, {mt}::CubeFormat::ND, {typ(unit.bias)});",
                  "        cube.SetBias(true);"]
    lines += [f"        cube.SetShape({tile});   // the largest block of one A.matmul",
              f"        cube.SetOrgShape({shape});   // the whole matrices: row strides",
              "        cube.SetBufferSpace(-1, -1, -1);",
              f"        if (cube.GetTiling(tiling.{field}) == -1) {{",
              "            return ge::GRAPH_FAILED;   // no base block of this unit fits the SoC's L0/L1",
              "        }", "    }"]
    return lines
