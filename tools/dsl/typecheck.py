"""Static types of a parsed program (host: types_host.py, kernel: types_kernel.py) and the dtype a
dtype expression takes in each dtype column of the signature."""
from __future__ import annotations

from kernelwright.tools.dsl import ir
from kernelwright.tools.dsl.dtypes import DTYPES, DType
from kernelwright.tools.dsl.errors import DslError

NUM = ("int", "float", "bool")


def unify(a: str, b: str, line: int, what: str) -> str:
    if a == b:
        return a
    if a in NUM and b in NUM:
        return "float" if "float" in (a, b) else "int"
    if {a, b} <= {"index", "scalar", "bool"}:
        return "scalar" if "scalar" in (a, b) else "index"
    raise DslError("type.mismatch", f"{what} mixes a {a} and a {b}", line)


def dtype_options(program: ir.Program, e: ir.Expr) -> list[DType]:
    """Every dtype a dtype expression takes over the signature's columns."""
    if isinstance(e, ir.DTypeConst):
        return [DTYPES[e.dtype]]
    if isinstance(e, ir.Name):
        return [program.constants[e.id]]
    sig = program.sig.tensor(e.obj.id) if isinstance(e, ir.Attr) and isinstance(e.obj, ir.Name) else None
    if sig is None:
        ws = program.workspaces.get(e.obj.id) if isinstance(e, ir.Attr) and isinstance(e.obj, ir.Name) else None
        if ws is not None:
            return dtype_options(program, ws.dtype)
        raise DslError("type.mismatch", "a dtype must be A.<dtype> or x.dtype of a GM tensor", e.line)
    return [DTYPES[d] for d in sig.dtypes]


def check_types(program: ir.Program) -> None:
    # the checkers import this module's unification rules, so they are imported here
    from kernelwright.tools.dsl.types_host import HostTypes
    from kernelwright.tools.dsl.types_kernel import KernelTypes
    host = HostTypes(program, program.tiling).run()
    ret = program.tiling.body[-1].value
    ht = HostTypes(program, program.tiling)
    ht.env = host
    program.field_types = {name: ("float" if ht.expr(e) == "float" else "int") for name, e in ret.fields.items()}
    program.host_types = {"tiling": host}
    if program.shapes is not None:
        program.host_types["shapes"] = HostTypes(program, program.shapes).run()
    KernelTypes(program).run()


def dtype_in_column(program: ir.Program, e: ir.Expr, col: int) -> str:
    opts = dtype_options(program, e)
    return opts[min(col, len(opts) - 1)].name


def tile_dtypes(program: ir.Program, col: int) -> dict[str, str]:
    return {name: dtype_in_column(program, decl.dtype, col) for name, decl in program.tiles.items()}


def dtype_of_gm(program: ir.Program, name: str, col: int) -> str:
    sig = program.sig.tensor(name)
    if sig is not None:
        return sig.dtypes[min(col, len(sig.dtypes) - 1)]
    return dtype_in_column(program, program.workspaces[name].dtype, col)
