"""Indexing in the UB: A.gather, A.scatter / A.scatter_add, A.where, and the bound of A.get. Every
index is checked against its bound (`index.range`, naming the element, its value and the bound);
integer paths are exact, float scatter-adds round to the tile's dtype after each add, in order."""
from __future__ import annotations

import numpy as np

from kernelwright.tools.dsl import ir
from kernelwright.tools.dsl.errors import DslError
from kernelwright.tools.dsl.interp.operands import check_overlap, operand, require_defined, values
from kernelwright.tools.dsl.primitives import prims

INDEX_HINT = ("indices must lie in [0, bound): check the index tensor and the bound (the length of the indexed axis); "
              "negative indices are not wrapped")


def _count(m, s, e: ir.Expr, what: str = "the element count") -> int:
    n = m.ev.index(e)
    if n < 0:
        raise DslError("count.range", f"{what} is negative ({n})", s.line)
    return n


def _dtype(prim: str, role: str, dt, s) -> None:
    allowed = prims()[prim].dtypes[role]
    if dt.name not in allowed:
        raise DslError("dtype.op", f"A.{prim}: the {'indices' if role == 'index' else role} are {dt.name}; it takes "
                                   f"{', '.join(allowed)}", s.line,
                       hint="A.Cast the indices to i32 first" if role == "index" else "A.Cast to a supported dtype first",
                       op=prim, dtype=dt.name)


def check_bound(idx: np.ndarray, bound: int, what: str, label: str, line: int) -> None:
    bad = (idx < 0) | (idx >= bound)
    if bad.any():
        j = int(np.argmax(bad))
        raise DslError("index.range", f"{what}: {label}[{j}] = {int(idx[j])} is outside [0, {bound})", line,
                       hint=INDEX_HINT, index=int(idx[j]), position=j, bound=bound)


def _indices(m, s, ref: ir.TileRef, n: int, prim: str) -> np.ndarray:
    op = operand(m, ref, n, "the indices")
    _dtype(prim, "index", op.dtype, s)
    require_defined(m, op, f"A.{prim}", s.line)
    return values(m, op).astype(np.int64)


def gather(m, s: ir.Gather) -> None:
    n, bound = _count(m, s, s.n), _count(m, s, s.bound, "the index bound")
    dst = operand(m, s.dst, n, "the destination")
    src = operand(m, s.src, bound, "the source")            # bound <= the elements src holds from its view
    _dtype("gather", "data", dst.dtype, s)
    if src.dtype.name != dst.dtype.name:
        raise DslError("dtype.mix", f"A.gather: destination is {dst.dtype.name}, source {src.dtype.name}", s.line)
    check_overlap(dst, src, "A.gather", s.line, allow_inplace=False)
    idx = _indices(m, s, s.idx, n, "gather")
    check_bound(idx, bound, "A.gather", s.idx.name, s.line)
    if n == 0:
        return
    data = values(m, src)
    valid = m.arena.valid[src.byte_off:src.byte_off + src.nbytes].reshape(bound, src.dtype.size).all(axis=1)
    if not valid[idx].all():
        j = int(np.argmin(valid[idx]))
        raise DslError("ub.uninit", f"A.gather reads {src.name}[{src.view + int(idx[j])}] (index {s.idx.name}[{j}]), "
                                    "which holds no data", s.line, hint="load or compute every element that an index "
                                                                        "can reach before gathering")
    m.arena.write(dst.byte_off, data[idx])


def scatter(m, s: ir.Scatter) -> None:
    prim = "scatter_add" if s.add else "scatter"
    n, bound = _count(m, s, s.n), _count(m, s, s.bound, "the index bound")
    dst = operand(m, s.dst, bound, "the destination")
    src = operand(m, s.src, n, "the source")
    _dtype(prim, "data", dst.dtype, s)
    if src.dtype.name != dst.dtype.name:
        raise DslError("dtype.mix", f"A.{prim}: destination is {dst.dtype.name}, source {src.dtype.name}", s.line)
    check_overlap(dst, src, f"A.{prim}", s.line, allow_inplace=False)
    idx = _indices(m, s, s.idx, n, prim)
    check_bound(idx, bound, f"A.{prim}", s.idx.name, s.line)
    require_defined(m, src, f"A.{prim}", s.line)
    if n == 0:
        return
    vals = values(m, src)
    out = m.arena.array(dst.byte_off, bound, dst.dtype)
    if s.add:
        touched = np.unique(idx)
        byte_ok = m.arena.valid[dst.byte_off:dst.byte_off + dst.nbytes].reshape(bound, dst.dtype.size).all(axis=1)
        if not byte_ok[touched].all():
            j = int(touched[np.argmin(byte_ok[touched])])
            raise DslError("ub.uninit", f"A.scatter_add adds into {dst.name}[{dst.view + j}], which holds no data",
                           s.line, hint="initialise the destination first (A.Duplicate(dst, 0, n) or a load)")
        with np.errstate(all="ignore"):
            np.add.at(out, idx, vals)              # in order: each add rounds to the dtype, as the scalar loop does
    else:
        last = len(idx) - 1 - np.unique(idx[::-1], return_index=True)[1]     # a repeated index keeps its last value
        out[idx[last]] = vals[last]
    m.arena.valid[dst.byte_off:dst.byte_off + dst.nbytes].reshape(bound, dst.dtype.size)[np.unique(idx)] = True


def where(m, s: ir.Where) -> None:
    n = _count(m, s, s.n)
    dst = operand(m, s.dst, n, "the destination")
    _dtype("where", "data", dst.dtype, s)
    cond = operand(m, s.cond, n, "the condition")
    _dtype("where", "cond", cond.dtype, s)
    require_defined(m, cond, "A.where", s.line)
    picks = []
    for ref, role in ((s.a, "a"), (s.b, "b")):
        if isinstance(ref, ir.TileRef):
            op = operand(m, ref, n, f"{role} of A.where")
            if op.dtype.name != dst.dtype.name:
                raise DslError("dtype.mix", f"A.where: {role} is {op.dtype.name} but the destination {dst.dtype.name}",
                               s.line, hint="operands of one instruction share a dtype; A.Cast first")
            check_overlap(dst, op, "A.where", s.line)
            require_defined(m, op, "A.where", s.line)
            picks.append(values(m, op))
        else:
            picks.append(np.full(n, m.ev.eval(ref)).astype(dst.dtype.np))
    c = values(m, cond).astype(bool)
    m.arena.write(dst.byte_off, np.where(c, picks[0], picks[1]).astype(dst.dtype.np))


def checked_index(m, s: ir.ScalarCall, position: int, value: int) -> int:
    bound = m.ev.index(s.bound)
    if not 0 <= value < bound:
        raise DslError("index.range", f"A.get: {s.src.name}[{position}] = {value} is outside [0, {bound})", s.line,
                       hint=INDEX_HINT, index=value, position=position, bound=bound)
    return value
