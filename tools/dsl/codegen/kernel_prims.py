"""C++ of the cube and index primitives: A.matmul (the Matmul API object of its unit), A.gather
(byte offsets, then Gather on a source sized to the bound), A.scatter / A.scatter_add (a checked
scalar loop), A.where (condition -> bit mask -> Select) and A.get with a bound."""
from __future__ import annotations

from kernelwright.tools.cpp_text import comment_text
from kernelwright.tools.dsl import ir
from kernelwright.tools.dsl.codegen.cpp_expr import safe
from kernelwright.tools.dsl.dtypes import DTYPES
from kernelwright.tools.dsl.layout import SELECT_LANES
from kernelwright.tools.dsl.typecheck import dtype_in_column

INDEX_HELPER = """// An index read from data, checked against its bound: out of range, the core prints the value and the
// DSL line and stops (Trap), instead of reading or writing another element.
__aicore__ inline int64_t KwIndex(int64_t v, int64_t bound, int32_t line)
{
    if (v < 0 || v >= bound) {
        AscendC::printf("kernelwright: index %ld is outside [0, %ld) at DSL line %d\\n", v, bound, line);
        Trap();
    }
    return v;
}"""


def matmul(e, s: ir.Matmul, out: list[str], ind: str) -> None:
    """SetTensorA/B (+ SetBias), SetSingleShape, IterateAll into GM or the UB tile."""
    unit = e.p.cubes[s.unit]
    mm = safe(s.unit)
    if s.a.name in e.roles.gm_stored or s.b.name in e.roles.gm_stored:
        out.append(f"{ind}PipeBarrier<PIPE_ALL>();   // this block's stores reach GM before the cube reads them")
    out.append(f"{ind}{mm}.SetTensorA({e.gm(s.a.name, s.a.offset)}, {'true' if unit.trans_a else 'false'});")
    out.append(f"{ind}{mm}.SetTensorB({e.gm(s.b.name, s.b.offset)}, {'true' if unit.trans_b else 'false'});")
    if s.bias is not None:
        out.append(f"{ind}{mm}.SetBias({e.gm(s.bias.name, s.bias.offset)});")
    sizes = ", ".join(f"static_cast<int>({e.x.expr(v)})" for v in (s.m, s.n, s.k))
    out.append(f"{ind}{mm}.SetSingleShape({sizes});")
    if isinstance(s.out, ir.TileRef):
        out.append(f"{ind}{mm}.IterateAll({e.tile(s.out)});")
    else:
        atomic = ", 1" if s.atomic == "add" else ""
        out.append(f"{ind}{mm}.IterateAll({e.gm(s.out.name, s.out.offset)}{atomic});")


def gather(e, s: ir.Gather, out: list[str], ind: str) -> None:
    t = e.tt[s.src.name]
    n = e.x.expr(s.n)
    out.append(f"{ind}Muls(kwGatherIdx, {e.tile(s.idx)}, static_cast<int32_t>(sizeof({t})), {n});   // byte offsets")
    out.append(f"{ind}{{")
    out.append(f"{ind}    LocalTensor<{t}> kwSrc = {e.tile(s.src)};")
    out.append(f"{ind}    kwSrc.SetSize(static_cast<uint32_t>({e.x.expr(s.bound)}));   // an index past the bound faults")
    out.append(f"{ind}    Gather({e.tile(s.dst)}, kwSrc, kwGatherIdx.ReinterpretCast<uint32_t>(), 0, "
               f"static_cast<uint32_t>({n}));")
    out.append(f"{ind}}}")


def scatter(e, s: ir.Scatter, out: list[str], ind: str) -> None:
    e.helpers.add("index")
    t = e.tt[s.dst.name]
    dst, idx, src = e.tile(s.dst), e.tile(s.idx), e.tile(s.src)
    e.sync("V_S", out, ind)
    out.append(f"{ind}for (int64_t kwI = 0; kwI < {e.x.expr(s.n)}; ++kwI) {{")
    out.append(f"{ind}    const int64_t kwAt = KwIndex(static_cast<int64_t>({idx}.GetValue(kwI)), {e.x.expr(s.bound)}, "
               f"{s.line});")
    if not s.add:
        out.append(f"{ind}    {dst}.SetValue(kwAt, {src}.GetValue(kwI));")
    elif _float_everywhere(e, s.dst.name):
        out.append(f"{ind}    {dst}.SetValue(kwAt, static_cast<{t}>(static_cast<float>({dst}.GetValue(kwAt)) + "
                   f"static_cast<float>({src}.GetValue(kwI))));")
    else:
        out.append(f"{ind}    {dst}.SetValue(kwAt, static_cast<{t}>({dst}.GetValue(kwAt) + {src}.GetValue(kwI)));")
    out.append(f"{ind}}}")
    e.sync("S_V", out, ind)


def _float_everywhere(e, tile: str) -> bool:
    decl = e.p.tiles[tile]
    return all(DTYPES[dtype_in_column(e.p, decl.dtype, c)].is_float for c in range(e.p.sig.columns))


def where(e, s: ir.Where, out: list[str], ind: str) -> None:
    """cond (bool bytes) -> half -> CompareScalar bit mask -> Select; a number on one side uses the scalar mode."""
    t = e.tt[s.dst.name]
    n = e.x.expr(s.n)
    e.x.helpers.add("int")
    lanes = f"KwAlignUp({n}, {SELECT_LANES})"
    cond = e.tile(s.cond)
    out.append(f"{ind}Cast(kwSelHalf, {cond}.ReinterpretCast<uint8_t>(), RoundMode::CAST_NONE, {n});")
    scalar_a = not isinstance(s.a, ir.TileRef)
    mode = "CMPMODE::EQ" if scalar_a else "CMPMODE::NE"       # scalar on the true side: select where cond == 0
    out.append(f"{ind}CompareScalar(kwSelMask, kwSelHalf, static_cast<half>(0), {mode}, "
               f"static_cast<uint32_t>({lanes}));")
    dst = e.tile(s.dst)
    if isinstance(s.a, ir.TileRef) and isinstance(s.b, ir.TileRef):
        out.append(f"{ind}Select({dst}, kwSelMask, {e.tile(s.a)}, {e.tile(s.b)}, SELMODE::VSEL_TENSOR_TENSOR_MODE, "
                   f"static_cast<uint32_t>({n}));")
        return
    tensor, number = (s.b, s.a) if scalar_a else (s.a, s.b)
    out.append(f"{ind}Select({dst}, kwSelMask, {e.tile(tensor)}, static_cast<{t}>({e.x.expr(number)}), "
               f"SELMODE::VSEL_TENSOR_SCALAR_MODE, static_cast<uint32_t>({n}));")


def checked_get(e, s: ir.ScalarCall, out: list[str], ind: str) -> None:
    e.helpers.add("index")
    e.sync("V_S", out, ind)
    out.append(f"{ind}{safe(s.target)} = KwIndex(static_cast<int64_t>({e.tile(s.src)}.GetValue({e.x.expr(s.args[0])})), "
               f"{e.x.expr(s.bound)}, {s.line});")


def matmul_member(e, unit: ir.CubeDecl) -> str:
    """The Matmul object of a unit: A and B from GM (ND, transposes fixed at compile time), C to GM or UB."""
    gm_type = e.gm_ctype
    c_pos = "TPosition::VECIN" if unit.c in e.p.tiles else "TPosition::GM"
    c_type = e.tt[unit.c] if unit.c in e.p.tiles else gm_type(unit.c)
    types = [f"MatmulType<TPosition::GM, CubeFormat::ND, {gm_type(unit.a)}, {'true' if unit.trans_a else 'false'}>",
             f"MatmulType<TPosition::GM, CubeFormat::ND, {gm_type(unit.b)}, {'true' if unit.trans_b else 'false'}>",
             f"MatmulType<{c_pos}, CubeFormat::ND, {c_type}>"]
    if unit.bias is not None:
        types.append(f"MatmulType<TPosition::GM, CubeFormat::ND, {gm_type(unit.bias)}>")
    return (f"    Matmul<{', '.join(types)}> {safe(unit.name)};   // line {unit.line}: the cube unit "
            f"`{comment_text(unit.name)}`")
