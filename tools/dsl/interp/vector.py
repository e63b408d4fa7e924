"""Vector instructions and scalar reads/writes of the interpreter."""
from __future__ import annotations

import numpy as np

from kernelwright.tools.dsl import ir
from kernelwright.tools.dsl.errors import DslError
from kernelwright.tools.dsl.interp import numerics
from kernelwright.tools.dsl.interp.index import checked_index
from kernelwright.tools.dsl.interp.operands import check_overlap, operand, require_defined, scalar_for, values
from kernelwright.tools.dsl.interp.values import F32
from kernelwright.tools.dsl.optable import auto_mode, cast_modes, ops

NATIVE_COPY = ("f16", "f32", "i16", "i32")   # same-dtype copies lower to Muls(dst, src, 1, n): exact count


def count(m, s, e: ir.Expr) -> int:
    n = m.ev.index(e)
    if n < 0:
        raise DslError("count.range", f"the element count is negative ({n})", s.line,
                       hint="check the arithmetic of n (e.g. stop - off with off beyond stop)")
    return n


def check_dtype(info, dt, s) -> None:
    if not info.supports(dt.name):
        raise DslError("dtype.op", f"A.{info.name} has no {dt.name} form on this target "
                                   f"(it takes {', '.join(info.accepted())})", s.line,
                       hint=("bf16 has no arithmetic on A2/A3: A.Cast to f32 first, compute, and A.Cast back"
                             if dt.name == "bf16" else "A.Cast the operand to a supported dtype first"),
                       op=info.name, dtype=dt.name)


def resolve_cast(src, dst, mode: str, line: int) -> str:
    """The concrete mode (or "copy") a Cast runs with, or the rule it breaks."""
    if src.name == dst.name and mode in ("auto", "none"):
        return "copy"
    modes = cast_modes(src.name, dst.name)
    if modes is None:
        raise DslError("cast.pair", f"A.Cast from {src.name} to {dst.name} is not supported on this target", line,
                       hint="cast through f32 (e.g. f16 -> f32 -> bf16) or pick another dtype",
                       src=src.name, dst=dst.name)
    if mode == "auto":
        chosen = auto_mode(src.name, dst.name)
        if chosen is None:
            raise DslError("cast.mode", f"A.Cast {src.name} -> {dst.name} needs an explicit round mode", line,
                           hint=f"one of {', '.join(modes)} (rint = round half to even)")
        return chosen
    if mode not in modes:
        raise DslError("cast.mode", f"A.Cast {src.name} -> {dst.name} does not support round mode {mode!r}", line,
                       hint=f"supported: {', '.join(modes)}", src=src.name, dst=dst.name, mode=mode)
    return mode


def vec_op(m, s: ir.VecOp) -> None:
    info = ops()[s.op]
    n = count(m, s, s.n)
    if info.form == "reduce":
        src = operand(m, s.srcs[0], n, "the source")
        dst = operand(m, s.dst, 1, "the destination", align=src.dtype.size)
        check_dtype(info, src.dtype, s)
        same_dtype(s, dst, src)
        if n == 0:
            raise DslError("count.range", f"A.{s.op} over 0 elements has no result", s.line)
        require_defined(m, src, f"A.{s.op}", s.line)
        m.arena.write(dst.byte_off, np.array([numerics.reduce(s.op, values(m, src), src.dtype)], src.dtype.np))
        return
    dst = operand(m, s.dst, n, "the destination")
    srcs = [operand(m, r, n, f"source {i}" if len(s.srcs) > 1 else "the source") for i, r in enumerate(s.srcs)]
    if info.form == "cast" or info.form == "copy":
        src = srcs[0]
        mode = resolve_cast(src.dtype, dst.dtype, s.mode or "auto", s.line) if info.form == "cast" else "copy"
        if mode == "copy" and src.dtype.name != dst.dtype.name:
            raise DslError("dtype.mix", f"A.copy from {src.dtype.name} to {dst.dtype.name}: use A.Cast", s.line)
        check_overlap(dst, src, f"A.{s.op}", s.line, allow_inplace=src.dtype.size == dst.dtype.size)
        if mode == "copy" and dst.dtype.name not in NATIVE_COPY:
            return _block_copy(m, s, dst, src)
        require_defined(m, src, f"A.{s.op}", s.line)
        m.arena.write(dst.byte_off, numerics.cast(values(m, src), src.dtype, dst.dtype, mode))
        return
    check_dtype(info, dst.dtype, s)
    for src in srcs:
        same_dtype(s, dst, src)
        check_overlap(dst, src, f"A.{s.op}", s.line, allow_inplace=info.form != "advanced")
        require_defined(m, src, f"A.{s.op}", s.line)
    if info.form == "fill":
        result = np.full(n, scalar_for(m.ev.eval(s.scalar), dst.dtype, f"A.{s.op}", s.line)).astype(dst.dtype.np)
    elif info.form == "binary":
        result = numerics.binary(s.op, values(m, srcs[0]), values(m, srcs[1]), dst.dtype)
    elif info.form == "scalar":
        sv = scalar_for(m.ev.eval(s.scalar), dst.dtype, f"A.{s.op}", s.line)
        result = numerics.scalar_op(s.op, values(m, srcs[0]), sv, dst.dtype)
    else:
        result = numerics.unary(s.op, values(m, srcs[0]), dst.dtype)
    m.arena.write(dst.byte_off, result)


def _block_copy(m, s, dst, src) -> None:
    """Same-dtype copy of a dtype without vector arithmetic (bf16, int8, ...): a UB->UB DataCopy of
    whole 32-byte blocks, so lanes up to the next block boundary are copied too (with their validity)."""
    epb = dst.dtype.per_block
    lanes = -(-dst.count // epb) * epb
    ts_d, ts_s = m.tiles[dst.name], m.tiles[src.name]
    if dst.view + lanes > _slot_elems(ts_d) or src.view + lanes > _slot_elems(ts_s):
        raise DslError("ub.bounds", f"A.{s.op} of {dst.dtype.name} copies whole 32-byte blocks ({lanes} elements), "
                                    "past the end of a tile", s.line, hint="round the tile capacity up to a multiple of "
                                                                           f"{epb}")
    nbytes = lanes * dst.dtype.size
    first = m.arena.first_invalid(src.byte_off, dst.count * dst.dtype.size)
    if first is not None:
        require_defined(m, src, f"A.{s.op}", s.line)
    raw = m.arena.mem[src.byte_off:src.byte_off + nbytes].copy()
    valid = m.arena.valid[src.byte_off:src.byte_off + nbytes].copy()
    m.arena.mem[dst.byte_off:dst.byte_off + nbytes] = raw
    m.arena.valid[dst.byte_off:dst.byte_off + nbytes] = valid


def _slot_elems(ts) -> int:
    return ts.buf.slot_bytes // ts.buf.dtype.size


def same_dtype(s, dst, src) -> None:
    if dst.dtype.name != src.dtype.name:
        raise DslError("dtype.mix", f"A.{s.op}: destination {dst.name} is {dst.dtype.name} but source {src.name} is "
                                    f"{src.dtype.name}", s.line, hint="operands of one instruction share a dtype; "
                                                                      "A.Cast one of them first")


def scalar_call(m, s: ir.ScalarCall):
    if s.fn in ("sqrt", "exp", "ln"):
        return numerics.scalar_fn(s.fn, m.ev.eval(s.args[0]))
    if s.fn == "get":
        i = m.ev.index(s.args[0])
        op = operand(m, _shifted(s.src, i, m), 1, "the element", align=1)
        require_defined(m, op, "A.get", s.line)
        v = values(m, op)[0]
        if s.bound is not None:
            return checked_index(m, s, i, int(v))
        return F32(v) if op.dtype.is_float else int(v)
    n = count(m, s, s.args[0])
    src = operand(m, s.src, n, "the source")
    if n == 0:
        raise DslError("count.range", f"A.{s.fn} over 0 elements has no result", s.line)
    require_defined(m, src, f"A.{s.fn}", s.line)
    if s.fn == "reduce_prod":
        return numerics.product(values(m, src))
    info = ops()[{"reduce_sum": "ReduceSum", "reduce_max": "ReduceMax", "reduce_min": "ReduceMin"}[s.fn]]
    check_dtype(info, src.dtype, s)
    return F32(numerics.reduce(info.name, values(m, src), src.dtype))


def _shifted(ref: ir.TileRef, i: int, m) -> ir.TileRef:
    base = m.ev.index(ref.offset) if ref.offset is not None else 0
    if i < 0:
        raise DslError("ub.bounds", f"element index {i} is negative", ref.line)
    return ir.TileRef(ref.name, ir.Const(ref.line, base + i), ref.line)


def set_value(m, s: ir.SetValue) -> None:
    i = m.ev.index(s.index)
    op = operand(m, _shifted(s.tile, i, m), 1, "the element", align=1)
    v = scalar_for(m.ev.eval(s.value), op.dtype, f"A.set into the tile {s.tile.name}", s.line)
    arr = np.array([v]).astype(op.dtype.np)
    m.arena.write(op.byte_off, arr)
