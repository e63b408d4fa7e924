"""IR -> KernelProject(kind="msopgen"), deterministically: the same program gives byte-identical
files. Holes (A.extern) are recorded in `project.meta["holes"]`."""
from __future__ import annotations

from kernelwright.tools.dsl import ir
from kernelwright.tools.dsl.codegen.cpp_expr import KernelExpr
from kernelwright.tools.dsl.codegen.host import host_source, tiling_header
from kernelwright.tools.dsl.codegen.kernel import KernelGen
from kernelwright.tools.dsl.dtypes import DTYPES
from kernelwright.tools.dsl.holes import describe_holes
from kernelwright.tools.dsl.roles import analyse
from kernelwright.tools.opspec import OpAttr, OpParam, OpSpec
from kernelwright.tools.project import KernelProject, is_op_type_name, snake_case


class LowerError(ValueError):
    """The program cannot be lowered (it failed its checks, or the name is not an op type)."""


def op_spec(program: ir.Program) -> OpSpec:
    cols = program.sig.columns

    def param(t: ir.TensorSig) -> OpParam:
        return OpParam(name=t.name, dtypes=[DTYPES[t.dtypes[min(c, len(t.dtypes) - 1)]].np_name for c in range(cols)],
                       formats=["ND"] * cols)
    return OpSpec(inputs=[param(t) for t in program.sig.inputs], outputs=[param(t) for t in program.sig.outputs],
                  attrs=[OpAttr(name=a.name, type=a.kind, default=a.default) for a in program.sig.attrs])


def lower(program: ir.Program, name: str | None = None) -> KernelProject:
    op = name or program.op_name
    if not is_op_type_name(op):
        raise LowerError(f"`{op}` is not an operator type name (CamelCase letters and digits)")
    roles = analyse(program)
    x = KernelExpr(program, program.kernel.tiling_param, {})
    tile_types = {n: x.dtype(d.dtype) for n, d in program.tiles.items()}
    kernel_src, externs = KernelGen(program, roles, op, tile_types).generate()
    snake = snake_case(op)
    files = {f"op_host/{snake}_tiling.h": tiling_header(program, op),
             f"op_host/{snake}.cpp": host_source(program, op, roles),
             f"op_kernel/{snake}.cpp": kernel_src}
    project = KernelProject(name=op, kind="msopgen", files=files, origin=program.filename, op=op_spec(program))
    project.meta["dsl"] = {"program": program.filename, "kernel": program.kernel.name}
    if externs:
        holes = describe_holes(program, externs, tile_types, roles, x, f"op_kernel/{snake}.cpp")
        project.meta["holes"] = [h.model_dump() for h in holes]
    return project
