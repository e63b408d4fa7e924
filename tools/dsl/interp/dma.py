"""A.load / A.store / A.move: DataCopyPad semantics (byte-exact GM side, 32-byte padded UB rows, padding
lanes defined only with pad=), GM bounds, and the cross-block race and coverage shadows."""
from __future__ import annotations

import numpy as np

from kernelwright.tools.dsl import ir
from kernelwright.tools.dsl.errors import DslError
from kernelwright.tools.dsl.interp.memory import ATOMIC, MANY, NONE, GmTensor
from kernelwright.tools.dsl.interp.operands import lifetime_error, require_defined, scalar_for, Operand

MAX_ROWS = 4095            # DataCopyExtParams.blockCount
MAX_ROW_BYTES = 2097151    # DataCopyExtParams.blockLen limit of DataCopyPad


def _geometry(m, s, tile_ref: ir.TileRef, gm: GmTensor, ub_default_is_dst: bool):
    n = m.ev.index(s.n)
    rows = m.ev.index(s.rows) if s.rows is not None else 1
    if n < 0 or rows < 0:
        raise DslError("count.range", f"negative copy size (n={n}, rows={rows})", s.line)
    ts = m.tiles[tile_ref.name]
    dt = ts.buf.dtype
    if dt.name != gm.dtype.name:
        raise DslError("dtype.mix", f"tile {tile_ref.name} is {dt.name} but GM tensor {gm.name} is {gm.dtype.name}",
                       s.line, hint="copies move bytes unchanged: declare the tile with the tensor's dtype "
                                    f"(A.ub({gm.name}.dtype, ...)) and A.Cast after loading")
    epb = dt.per_block
    nal = -(-n // epb) * epb
    ub_e, gm_e = (s.dst_stride, s.src_stride) if ub_default_is_dst else (s.src_stride, s.dst_stride)
    ub_stride = m.ev.index(ub_e) if ub_e is not None else nal
    gm_stride = m.ev.index(gm_e) if gm_e is not None else n
    if rows > MAX_ROWS or n * dt.size > MAX_ROW_BYTES:
        raise DslError("dma.range", f"one copy moves at most {MAX_ROWS} rows of {MAX_ROW_BYTES} bytes "
                                    f"(got {rows} rows of {n * dt.size} bytes)", s.line,
                       hint="split the copy (fewer rows per call, or a smaller tile)")
    if rows > 1:
        if ub_stride % epb:
            raise DslError("ub.align", f"the UB row stride {ub_stride} is not a multiple of {epb} {dt.name} elements "
                                       "(32 bytes)", s.line, hint=f"use A.align_up(cols, {epb}) as the UB row stride")
        if ub_stride < nal:
            raise DslError("dma.stride", f"UB rows of {n} elements take {nal} lanes with their padding, more than the "
                                         f"UB row stride {ub_stride}", s.line,
                           hint="the UB row stride must be at least A.align_up(n, elems_per_block)")
        if gm_stride < n:
            raise DslError("dma.stride", f"the GM row stride {gm_stride} is shorter than a row ({n} elements)", s.line)
    k = m.ev.index(tile_ref.offset) if tile_ref.offset is not None else 0
    if (k * dt.size) % 32:
        raise DslError("ub.align", f"the UB side {tile_ref.name}[{k}:] starts at byte {k * dt.size}, not on a 32-byte "
                                   "boundary", s.line, hint=f"copy to/from views at multiples of {epb} elements")
    extent = k + (rows - 1) * ub_stride + n if rows else k
    if k < 0 or extent > ts.buf.capacity:
        raise DslError("ub.bounds", f"the copy touches {tile_ref.name}[{k}:{extent}], beyond the tile's "
                                    f"{ts.buf.capacity} elements", s.line,
                       hint="grow the tile in the tiling function or copy fewer elements/rows",
                       capacity=ts.buf.capacity, extent=extent)
    off = m.ev.index(s.offset)
    gm_end = off + (rows - 1) * gm_stride + n if rows and n else off
    if rows and n and (off < 0 or gm_end > gm.size):
        raise DslError("gm.bounds", f"{gm.name}[{off}:{gm_end}] is outside the tensor ({gm.size} elements)", s.line,
                       hint="clamp the last tile: n = min(tile, stop - off), and check the offsets of this block",
                       tensor=gm.name, start=off, end=gm_end, size=gm.size)
    ub_rows = [ts.base() + (k + r * ub_stride) * dt.size for r in range(rows)]
    gm_idx = (off + np.arange(rows, dtype=np.int64)[:, None] * gm_stride + np.arange(n, dtype=np.int64)[None, :]).reshape(-1)
    return ts, dt, n, nal, ub_rows, gm_idx


def load(m, s: ir.Load) -> None:
    gm = m.gm[s.src]
    m.fill(s.dst.name, s.line)
    ts, dt, n, nal, ub_rows, gm_idx = _geometry(m, s, s.dst, gm, True)
    _check_read(m, gm, gm_idx, s)
    data = gm.data[gm_idx].reshape(len(ub_rows), n)
    pad = None
    if s.pad is not None:
        pad = np.array([scalar_for(m.ev.eval(s.pad), dt, "A.load pad=", s.line)]).astype(dt.np)
    for r, base in enumerate(ub_rows):
        m.arena.write(base, data[r])
        if nal > n:
            if pad is None:
                m.arena.garbage(base + n * dt.size, (nal - n) * dt.size)
            else:
                m.arena.write(base + n * dt.size, np.repeat(pad, nal - n))


def store(m, s: ir.Store) -> None:
    gm = m.gm[s.dst]
    ts = m.tiles[s.src.name]
    if ts.queue and not ts.live:
        raise lifetime_error(ts, s.src, "the source")
    ts, dt, n, nal, ub_rows, gm_idx = _geometry(m, s, s.src, gm, False)
    k = m.ev.index(s.src.offset) if s.src.offset is not None else 0
    rows = []
    for base in ub_rows:
        op = Operand(s.src.name, dt, base, k + (base - ub_rows[0]) // dt.size, n, ts.buf.capacity)
        require_defined(m, op, "A.store", s.line)
        rows.append(m.arena.array(base, n, dt).copy())
    data = np.concatenate(rows) if rows else np.zeros(0, dt.np)
    write_gm(m, gm, gm_idx, data, s)
    if id(s) in m.roles.last_store:
        m.free(s.src.name, s.line)


def move(m, s: ir.Move) -> None:
    """A.move: the load's GM reads and UB geometry, then the store's GM writes; the rows pass through `via`,
    which holds nothing defined afterwards (only the copy engines use it)."""
    src, dst = m.gm[s.load.src], m.gm[s.store.dst]
    ts, dt, n, nal, ub_rows, gm_idx = _geometry(m, s.load, s.load.dst, src, True)
    _check_read(m, src, gm_idx, s.load)
    data = src.data[gm_idx].copy()
    *_, out_idx = _geometry(m, s.store, s.store.src, dst, False)
    write_gm(m, dst, out_idx, data, s.store)
    for base in ub_rows:
        m.arena.garbage(base, nal * dt.size)


def write_gm(m, gm: GmTensor, idx: np.ndarray, data: np.ndarray, s) -> None:
    """GM elements `idx` <- data (added in fp32, or exactly for integers, with s.atomic == "add"), after the race
    checks; the coverage and writer shadows follow."""
    _check_write(m, gm, idx, s)
    if s.atomic == "add":
        if not gm.defined[idx].all():
            bad = int(idx[np.argmin(gm.defined[idx])])
            raise DslError("gm.uninit", f"atomic add onto {gm.name}{list(gm.index_of(bad))}, which nobody initialised",
                           s.line, hint="write zeros to the output first (one block, then A.sync_all), then add")
        wide = np.float32 if gm.dtype.is_float else np.int64
        with np.errstate(all="ignore"):
            gm.data[idx] = (gm.data[idx].astype(wide) + data.astype(wide)).astype(gm.dtype.np)
    else:
        gm.data[idx] = data
    gm.defined[idx] = True
    gm.written[idx] = True
    gm.writer[idx] = ATOMIC if s.atomic else m.block


def _check_read(m, gm: GmTensor, idx: np.ndarray, s) -> None:
    if idx.size == 0:
        return
    w = gm.writer[idx]
    bad = (w != NONE) & (w != m.block)
    if bad.any():
        i = int(idx[np.argmax(bad)])
        other = int(gm.writer[i])
        who = "an atomic add of another block" if other == ATOMIC else f"block {other}"
        raise DslError("gm.race", f"block {m.block} reads {gm.name}{list(gm.index_of(i))}, which {who} writes in the "
                                  "same phase (no A.sync_all between the write and this read)", s.line,
                       hint="the order of blocks is not defined: put A.sync_all() between writing partial results "
                            "and reading them in another block", tensor=gm.name, element=list(gm.index_of(i)))
    undefined = ~gm.defined[idx]
    if undefined.any():
        i = int(idx[np.argmax(undefined)])
        raise DslError("gm.uninit", f"block {m.block} reads {gm.name}{list(gm.index_of(i))}, which nothing wrote yet",
                       s.line, hint="outputs and workspaces start undefined: write before reading (and A.sync_all "
                                    "when another block writes it)", tensor=gm.name)
    r = gm.reader[idx]
    gm.reader[idx] = np.where(r == NONE, m.block, np.where(r == m.block, r, MANY))


def _check_write(m, gm: GmTensor, idx: np.ndarray, s) -> None:
    if idx.size == 0:
        return
    if np.unique(idx).size != idx.size:
        raise DslError("gm.overlap", f"one A.store writes some elements of {gm.name} twice (rows overlap)", s.line,
                       hint="the GM row stride must be at least the row length")
    w = gm.writer[idx]
    atomic = s.atomic == "add"
    bad = (w != NONE) & (w != m.block) & ~(atomic & (w == ATOMIC))
    if bad.any():
        i = int(idx[np.argmax(bad)])
        other = int(gm.writer[i])
        who = "an atomic add" if other == ATOMIC else f"block {other}"
        raise DslError("gm.race", f"block {m.block} writes {gm.name}{list(gm.index_of(i))}, which {who} also writes "
                                  "in the same phase", s.line,
                       hint="give every block its own output range (A.block_span), or combine partial results in "
                            "one block after A.sync_all", tensor=gm.name, element=list(gm.index_of(i)))
    r = gm.reader[idx]
    bad = (r != NONE) & (r != m.block)
    if bad.any():
        i = int(idx[np.argmax(bad)])
        raise DslError("gm.race", f"block {m.block} overwrites {gm.name}{list(gm.index_of(i))}, which another block "
                                  "reads in the same phase", s.line,
                       hint="a block may update in place only the elements it alone reads; otherwise A.sync_all "
                            "first", tensor=gm.name)
