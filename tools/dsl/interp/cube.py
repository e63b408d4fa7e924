"""A.matmul: C = A @ B (+ bias) as the Matmul API computes it on the emulation and, up to the order
of its adds, on the cube unit: products of fp16/bf16/fp32 inputs in fp32 (int8 in int32), summed
over k in increasing order from zero, the bias added last, then one rounding to C's dtype. GM
operands go through the same bounds, race and coverage shadows as copies."""
from __future__ import annotations

import numpy as np

from kernelwright.tools.dsl import ir
from kernelwright.tools.dsl.errors import DslError
from kernelwright.tools.dsl.interp import dma
from kernelwright.tools.dsl.interp.memory import GmTensor
from kernelwright.tools.dsl.interp.operands import operand

FLOAT_INPUTS = ("f16", "bf16", "f32")
OUTPUTS = {"float": ("f32", "f16", "bf16"), "int": ("i32",)}
PRODUCT_BLOCK = 1 << 18            # elements of one (m, k-chunk, n) block of products
WIDE_BLOCK = 2048                  # from this many outputs on, products are summed one k at a time


def sequential_matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """fp32 a (m x k) @ b (k x n), each output summing its products in increasing k from zero."""
    m, k = a.shape
    n = b.shape[1]
    acc = np.zeros((m, n), np.float32)
    with np.errstate(all="ignore"):
        if m * n >= WIDE_BLOCK:                # one k at a time: two in-place ufunc calls per k
            tmp = np.empty((m, n), np.float32)
            for kk in range(k):
                np.multiply(a[:, kk:kk + 1], b[kk:kk + 1, :], out=tmp)
                np.add(acc, tmp, out=acc)
            return acc
        step = max(1, PRODUCT_BLOCK // max(1, m * n))     # small blocks: many k per call, summed in order
        for k0 in range(0, k, step):
            p = a[:, k0:k0 + step, None] * b[None, k0:k0 + step, :]
            p[:, 0, :] += acc
            acc = np.add.accumulate(p, axis=1)[:, -1, :]
    return acc


def _dtypes(m, s: ir.Matmul, unit: ir.CubeDecl, out_dt) -> str:
    a, b = m.gm[unit.a].dtype.name, m.gm[unit.b].dtype.name
    if a == b and a in FLOAT_INPUTS:
        kind = "float"
    elif a == b == "i8":
        kind = "int"
    else:
        raise DslError("cube.dtype", f"A.matmul of {a} by {b}: the cube multiplies f16, bf16 or f32 pairs (fp32 "
                                     "accumulation) or i8 pairs (int32)", s.line,
                       hint="A.Cast one operand into a workspace of the other's dtype first", a=a, b=b)
    if out_dt.name not in OUTPUTS[kind]:
        raise DslError("cube.dtype", f"A.matmul writes its {'fp32' if kind == 'float' else 'int32'} accumulator as "
                                     f"{', '.join(OUTPUTS[kind])}, not {out_dt.name}", s.line,
                       hint="declare the result tile or tensor with one of these dtypes and A.Cast afterwards")
    return kind


def _operand(m, view: ir.GmView, rows: int, cols: int, ld: int, trans: bool, s, role: str) -> tuple[GmTensor, np.ndarray]:
    """Element indices of the logical rows x cols block of a stored row-major matrix (the transpose of it with trans)."""
    gm = m.gm[view.name]
    off = m.ev.index(view.offset)
    r, c = np.arange(rows, dtype=np.int64)[:, None], np.arange(cols, dtype=np.int64)[None, :]
    idx = off + (c * ld + r if trans else r * ld + c)
    if idx.size and (idx.min() < 0 or idx.max() >= gm.size):
        raise DslError("gm.bounds", f"A.matmul's {role} block reaches {gm.name}[{int(idx.max())}] (offset {off}, "
                                    f"{rows} x {cols}, row stride {ld}{', transposed' if trans else ''}), outside the "
                                    f"tensor ({gm.size} elements)", s.line,
                       hint="check the block offsets and the unit's shape=(M, N, K): it fixes the row strides",
                       tensor=gm.name, size=gm.size)
    dma._check_read(m, gm, idx.reshape(-1), s)
    return gm, idx


def matmul(m, s: ir.Matmul) -> None:
    unit = m.p.cubes[s.unit]
    mm, nn, kk = (m.ev.index(e) for e in (s.m, s.n, s.k))
    tile = [m.ev.index(e) for e in unit.tile]
    M, N, K = (m.ev.index(e) for e in unit.shape)
    if min(mm, nn, kk) <= 0 or mm > min(tile[0], M) or nn > min(tile[1], N) or kk > min(tile[2], K):
        raise DslError("cube.shape", f"A.matmul of {mm} x {nn} x {kk} outside the unit `{s.unit}` (tile {tile[0]} x "
                                     f"{tile[1]} x {tile[2]}, whole matrices {M} x {N} x {K})", s.line,
                       hint="every size must be positive and at most the unit's tile and shape: skip empty blocks, and "
                            "size tile=(...) for the largest block", m=mm, n=nn, k=kk)
    if (unit.bias is None) != (s.bias is None):
        raise DslError("cube.bias", f"unit `{s.unit}` {'has' if unit.bias else 'has no'} bias; this A.matmul "
                                    f"{'passes none' if unit.bias else 'passes bias='}", s.line,
                       hint="declare bias= in A.cube and pass bias=bias[off:] to every A.matmul of it, or neither")
    out_dt = m.gm[s.out.name].dtype if isinstance(s.out, ir.GmView) else m.tiles[s.out.name].buf.dtype
    kind = _dtypes(m, s, unit, out_dt)
    ga, ia = _operand(m, s.a, mm, kk, M if unit.trans_a else K, unit.trans_a, s, "A")
    gb, ib = _operand(m, s.b, kk, nn, K if unit.trans_b else N, unit.trans_b, s, "B")
    if kind == "float":
        acc = sequential_matmul(ga.data[ia].astype(np.float32), gb.data[ib].astype(np.float32))
    else:
        acc = (ga.data[ia].astype(np.int64) @ gb.data[ib].astype(np.int64)).astype(np.int32)
    if s.bias is not None:
        gbias, ibias = _operand(m, s.bias, 1, nn, nn, False, s, "bias")
        with np.errstate(all="ignore"):
            acc = acc + gbias.data[ibias].astype(acc.dtype)
    with np.errstate(all="ignore"):
        result = acc.astype(out_dt.np)
    if isinstance(s.out, ir.GmView):
        _store_gm(m, s, m.gm[s.out.name], result, N)
    else:
        _store_ub(m, s, result)


def _store_gm(m, s: ir.Matmul, gm: GmTensor, result: np.ndarray, ldc: int) -> None:
    rows, cols = result.shape
    off = m.ev.index(s.out.offset)
    idx = (off + np.arange(rows, dtype=np.int64)[:, None] * ldc + np.arange(cols, dtype=np.int64)[None, :]).reshape(-1)
    if idx.size and (idx.min() < 0 or idx.max() >= gm.size):
        raise DslError("gm.bounds", f"A.matmul writes {gm.name}[{int(idx.min())}..{int(idx.max())}], outside the tensor "
                                    f"({gm.size} elements)", s.line, hint="check the result offset and N of shape=(...)",
                       tensor=gm.name, size=gm.size)
    dma.write_gm(m, gm, idx, result.reshape(-1), s)


def _store_ub(m, s: ir.Matmul, result: np.ndarray) -> None:
    """m rows of align_up(n, 32 bytes) elements; the padding lanes of each row are left as they were."""
    if s.atomic:
        raise DslError("call.args", "atomic= applies to a GM result, not to a UB tile", s.line)
    rows, cols = result.shape
    dt = m.tiles[s.out.name].buf.dtype
    ld = -(-cols // dt.per_block) * dt.per_block
    op = operand(m, s.out, (rows - 1) * ld + cols, "the result")
    for r in range(rows):
        m.arena.write(op.byte_off + r * ld * dt.size, result[r])
