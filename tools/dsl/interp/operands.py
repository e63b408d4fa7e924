"""Operand checks shared by vector instructions and copies: queue tensors alive, views in bounds
and 32-byte aligned, sources defined on every lane read, no partial overlap of dst and src."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from kernelwright.tools.dsl import ir
from kernelwright.tools.dsl.dtypes import DType
from kernelwright.tools.dsl.errors import DslError


@dataclass
class Operand:
    name: str
    dtype: DType
    byte_off: int          # absolute UB byte offset of element 0 of the view
    view: int              # view offset in elements
    count: int             # elements accessed
    capacity: int

    @property
    def nbytes(self) -> int:
        return self.count * self.dtype.size

    def label(self) -> str:
        return f"{self.name}[{self.view}:]" if self.view else self.name


def operand(m, ref: ir.TileRef, count: int, role: str, align: int = 32, write: bool = False) -> Operand:
    ts = m.tiles[ref.name]
    if ts.queue and not ts.live:
        raise lifetime_error(ts, ref, role)
    k = m.ev.index(ref.offset) if ref.offset is not None else 0
    dt = ts.buf.dtype
    if k < 0 or count < 0 or k + count > ts.buf.capacity:
        raise DslError("ub.bounds", f"{role} {ref.name}[{k}:{k + count}] is outside the tile ({ts.buf.capacity} "
                                    f"elements)", ref.line,
                       hint="make the count fit the tile: the tile is declared with capacity "
                            f"{ts.buf.capacity} for this case; check the view offset and n",
                       tile=ref.name, offset=k, count=count, capacity=ts.buf.capacity)
    if (k * dt.size) % align:
        raise DslError("ub.align", f"{role} {ref.name}[{k}:] starts at byte {k * dt.size} of the tile, which is not "
                                   f"{align}-byte aligned", ref.line,
                       hint=f"vector and copy operands start on 32-byte boundaries: view offsets must be multiples "
                            f"of {32 // dt.size} {dt.name} elements (A.align_up the offset, or copy the data to an "
                            "aligned tile)", tile=ref.name, offset=k, bytes=k * dt.size)
    return Operand(ref.name, dt, ts.base() + k * dt.size, k, count, ts.buf.capacity)


def lifetime_error(ts, ref: ir.TileRef, role: str) -> DslError:
    name = ref.name
    if ts.loads == 0:
        what = "is used before anything was loaded into it" if ts.buf.kind == "in" else \
            "is used outside the block that stores it"
    elif ts.buf.kind == "in":
        what = (f"is read after its queue slot was released (it was last loaded in a block that ended at line "
                f"{ts.last_line}; with a depth-{ts.buf.depth} queue the next load fills "
                f"{'the other slot' if ts.buf.depth > 1 else 'the same slot'})")
    else:
        what = "is used after its A.store released it"
    return DslError("queue.lifetime", f"{role} `{name}` {what}", ref.line,
                    hint="a loaded tile lives until the end of the block (loop body or if-branch) that loads it, and "
                         "an output tile from the start of the block that stores it until the store; keep the uses "
                         "inside, or copy the data to a scratch tile (A.copy) to keep it longer", tile=name)


def require_defined(m, op: Operand, what: str, line: int) -> None:
    bad = m.arena.first_invalid(op.byte_off, op.nbytes)
    if bad is None:
        return
    elem = op.view + bad // op.dtype.size
    raise DslError("ub.uninit", f"{what} reads {op.name}[{elem}], which holds no data (lanes "
                                f"[{op.view}, {op.view + op.count}) are read)", line,
                   hint=uninit_hint(m, op), tile=op.name, element=elem)


def uninit_hint(m, op: Operand) -> str:
    ts = m.tiles.get(op.name)
    if ts is not None and ts.buf.kind == "in":
        return ("a load defines only its n elements (plus the lanes up to the next 32-byte boundary when it has "
                "pad=); read at most n lanes, or fill the rest with A.Duplicate first")
    return ("initialise the tile (A.Duplicate(t, 0.0, n) for an accumulator) or write all the lanes you read before "
            "reading them")


def check_overlap(dst: Operand, src: Operand, op: str, line: int, allow_inplace: bool = True) -> None:
    a0, a1 = dst.byte_off, dst.byte_off + dst.nbytes
    b0, b1 = src.byte_off, src.byte_off + src.nbytes
    if a0 >= b1 or b0 >= a1 or dst.nbytes == 0 or src.nbytes == 0:
        return
    if allow_inplace and a0 == b0 and a1 == b1:
        return
    raise DslError("ub.overlap", f"{op}: destination {dst.label()} and source {src.label()} overlap "
                                 + ("" if allow_inplace else "(this instruction cannot run in place) ")
                                 + f"(bytes [{a0}, {a1}) and [{b0}, {b1}))", line,
                   hint="operands either coincide exactly (in place) or do not overlap; use a separate tile"
                   if allow_inplace else "write the result to a separate tile")


def values(m, op: Operand) -> np.ndarray:
    return m.arena.array(op.byte_off, op.count, op.dtype).copy()


def scalar_for(v, dt: DType, what: str, line: int):
    """A scalar operand converted as the kernel's `(T)value` would be: an integer dtype takes int(v) (C++
    truncation), and a value it cannot hold is a `value.range` finding (the kernel would wrap it or be
    undefined)."""
    if dt.is_float:
        return v
    info = np.iinfo(dt.np)
    if not (math.isfinite(v) and info.min <= int(v) <= info.max):
        raise DslError("value.range", f"{what}: {v} does not fit {dt.name} ([{info.min}, {info.max}])", line,
                       hint="the kernel would store a wrapped or undefined value: check the arithmetic that makes it")
    return int(v)
