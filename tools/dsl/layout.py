"""The UB ledger: every buffer the generated Init reserves, in InitBuffer order, with its
32-byte-aligned slot size and offset, including the hidden scratch the DSL adds (reduce work,
the scalar scratch, advanced-API temporaries). The interpreter places tiles at these offsets, the
UB-budget rule sums them, and hole specs quote them."""
from __future__ import annotations

from dataclasses import dataclass

from kernelwright.tools.dsl import ir
from kernelwright.tools.dsl.dtypes import DType, DTYPES
from kernelwright.tools.dsl.interp.values import KernelExprEval
from kernelwright.tools.dsl.roles import Roles

SCALAR_BYTES = 32
API_TMP_MIN = 256
SELECT_RESERVE = 8192    # Select's scalar mode stages the scalar in the last 8 KiB of UB
SELECT_LANES = 128       # CompareScalar on half runs whole 256-byte repeats


def align32(n: int) -> int:
    return (n + 31) // 32 * 32


@dataclass
class Buffer:
    name: str
    kind: str              # in | out | calc | work | scalar | apitmp
    dtype: DType
    capacity: int          # elements (hidden buffers: bytes / dtype size)
    depth: int
    slot_bytes: int
    offset: int
    line: int | None

    @property
    def bytes(self) -> int:
        return self.depth * self.slot_bytes

    def describe(self) -> str:
        slots = f"{self.depth}x" if self.depth > 1 else ""
        return f"{self.name} {slots}{self.slot_bytes}"


def reduce_work_bytes(capacity: int, dtype: DType) -> int:
    """Work elements of ReduceSum/Max/Min (count form, no index), rounded to 32 bytes: the
    per-repeat partials of the first round (x2 for value+index), as the API documents."""
    first = max(1, capacity // dtype.per_repeat)
    elems = -(-2 * first // dtype.per_block) * dtype.per_block
    return align32(elems * dtype.size)


def api_tmp_bytes(capacity: int, dtype: DType) -> int:
    """Temporary of Tanh/Sigmoid/Erf: two tiles' worth (at least 256 B), a conservative bound on the
    API's minimum (GetXxxMaxMinTmpSize) that holds for every count up to the tile's capacity."""
    return max(API_TMP_MIN, 2 * align32(capacity * dtype.size))


def select_lanes(capacity: int) -> int:
    return -(-max(capacity, 1) // SELECT_LANES) * SELECT_LANES


def ledger(program: ir.Program, roles: Roles, ev: KernelExprEval) -> list[Buffer]:
    out: list[Buffer] = []
    off = 0
    caps: dict[str, tuple[int, DType]] = {}
    for name, decl in program.tiles.items():
        dtype = ev.dtype(decl.dtype)
        cap = ev.index(decl.capacity)
        caps[name] = (cap, dtype)
        depth = roles.depth.get(name, 1)
        slot = align32(max(cap, 0) * dtype.size)
        out.append(Buffer(name, roles.role[name], dtype, cap, depth, slot, off, decl.line))
        off += depth * slot
    if roles.uses_reduce:
        work = max(reduce_work_bytes(*caps[_src(s).name]) for s in roles.uses_reduce)
        out.append(Buffer("kwWork", "work", DTYPES["u8"], work, 1, work, off, None))
        off += work
    if roles.uses_scalar:
        out.append(Buffer("kwScalar", "scalar", DTYPES["u8"], SCALAR_BYTES, 1, SCALAR_BYTES, off, None))
        off += SCALAR_BYTES
    if roles.uses_api_tmp:
        tmp = max(api_tmp_bytes(*caps[s.dst.name]) for s in roles.uses_api_tmp)
        out.append(Buffer("kwApiTmp", "apitmp", DTYPES["u8"], tmp, 1, tmp, off, None))
        off += tmp
    hidden = []
    if roles.uses_gather:
        hidden.append(("kwGatherIdx", "gather", align32(4 * max(caps[s.idx.name][0] for s in roles.uses_gather))))
    if roles.uses_select:
        lanes = max(select_lanes(caps[s.cond.name][0]) for s in roles.uses_select)
        hidden += [("kwSelHalf", "select", 2 * lanes), ("kwSelMask", "select", align32(lanes // 8))]
    if roles.select_scalar:
        hidden.append(("kwSelectReserve", "reserve", SELECT_RESERVE))
    for name, kind, nbytes in hidden:
        out.append(Buffer(name, kind, DTYPES["u8"], nbytes, 1, nbytes, off, None))
        off += nbytes
    return out


def _src(s: ir.Stmt) -> ir.TileRef:
    return s.srcs[0] if isinstance(s, ir.VecOp) else s.src


def total_bytes(buffers: list[Buffer]) -> int:
    return sum(b.bytes for b in buffers)


def render(buffers: list[Buffer]) -> str:
    return " | ".join(b.describe() for b in buffers) + f" | total {total_bytes(buffers)}"
