"""Vector-instruction numerics per dtype, as the device (and our emulation) computes them: every
instruction rounds its result to the operand dtype; reductions add pairwise inside a 256-byte repeat
and then repeat by repeat, rounding each add; transcendental functions are evaluated in fp32."""
from __future__ import annotations

import math

import numpy as np

from kernelwright.tools.dsl.dtypes import DType, DTYPES

F32 = np.float32
_erf = np.vectorize(math.erf, otypes=[np.float64])


def _f(a: np.ndarray) -> np.ndarray:
    return a.astype(np.float32)


def binary(op: str, a: np.ndarray, b: np.ndarray, dt: DType) -> np.ndarray:
    with np.errstate(all="ignore"):
        if not dt.is_float:
            ia, ib = a.astype(np.int64), b.astype(np.int64)
            r = {"Add": ia + ib, "Sub": ia - ib, "Mul": ia * ib, "Max": np.maximum(ia, ib), "Min": np.minimum(ia, ib)}[op]
            return r.astype(dt.np)               # wraps like the device's integer lanes
        fa, fb = _f(a), _f(b)
        r = {"Add": lambda: fa + fb, "Sub": lambda: fa - fb, "Mul": lambda: fa * fb, "Div": lambda: fa / fb,
             "Max": lambda: np.maximum(fa, fb), "Min": lambda: np.minimum(fa, fb)}[op]()
        return r.astype(dt.np)


def scalar_op(op: str, a: np.ndarray, s, dt: DType) -> np.ndarray:
    sv = np.asarray(s).astype(dt.np)             # the scalar operand is converted to T first (const T&)
    with np.errstate(all="ignore"):
        if not dt.is_float:
            ia, iv = a.astype(np.int64), int(sv)
            r = {"Adds": ia + iv, "Muls": ia * iv, "Maxs": np.maximum(ia, iv), "Mins": np.minimum(ia, iv)}[op]
            return r.astype(dt.np)
        fa, fs = _f(a), F32(sv)
        r = {"Adds": lambda: fa + fs, "Muls": lambda: fa * fs, "Maxs": lambda: np.maximum(fa, fs),
             "Mins": lambda: np.minimum(fa, fs), "LeakyRelu": lambda: np.where(fa >= 0, fa, fa * fs)}[op]()
        return r.astype(dt.np)


def unary(op: str, a: np.ndarray, dt: DType) -> np.ndarray:
    with np.errstate(all="ignore"):
        if not dt.is_float:
            return np.maximum(a, 0).astype(dt.np)  # Relu on int32
        fa = _f(a)
        r = {"Exp": lambda: np.exp(fa), "Ln": lambda: np.log(fa), "Abs": lambda: np.abs(fa),
             "Sqrt": lambda: np.sqrt(fa), "Rsqrt": lambda: F32(1) / np.sqrt(fa),
             "Reciprocal": lambda: F32(1) / fa, "Relu": lambda: np.where(fa > 0, fa, F32(0)),
             "Tanh": lambda: np.tanh(fa), "Sigmoid": lambda: F32(1) / (F32(1) + np.exp(-fa)),
             "Erf": lambda: _erf(fa).astype(np.float32)}[op]()
        return r.astype(dt.np)


def cast(a: np.ndarray, src: DType, dst: DType, mode: str) -> np.ndarray:
    if mode == "copy":
        return a.copy()
    if src.name == dst.name and src.is_float:
        return _round(_f(a), mode).astype(dst.np)
    if dst.is_float:
        x = a.astype(np.float64) if not src.is_float else _f(a)
        if src.is_float and dst.size == 4 and mode in ("floor", "ceil", "round", "trunc", "rint"):
            x = _round(x, mode)
        if dst.name == "f16" and mode in ("floor", "ceil", "trunc", "round"):
            return _directed_f16(_f(a), mode)
        return x.astype(np.float32).astype(dst.np) if src.is_float else x.astype(dst.np)
    if dst.name == "bool":           # the u8 cast's byte, read as a torch bool: nonzero is true
        return np.clip(_round(_f(a).astype(np.float64), "rint"), 0, 255) != 0
    info = np.iinfo(dst.np)
    x = _round(_f(a).astype(np.float64), "rint" if mode == "none" else mode) if src.is_float else a.astype(np.int64)
    return np.clip(x, info.min, info.max).astype(dst.np)


def _round(x: np.ndarray, mode: str) -> np.ndarray:
    if mode == "floor":
        return np.floor(x)
    if mode == "ceil":
        return np.ceil(x)
    if mode == "trunc":
        return np.trunc(x)
    if mode == "round":
        return np.sign(x) * np.floor(np.abs(x) + 0.5)
    return np.rint(x)


def _directed_f16(x: np.ndarray, mode: str) -> np.ndarray:
    """fp32 -> fp16 with a directed rounding: the nearest half on the chosen side."""
    near = x.astype(np.float16)
    back = near.astype(np.float32)
    up, down = np.nextafter(near, np.float16(np.inf)), np.nextafter(near, np.float16(-np.inf))
    if mode == "floor":
        return np.where(back > x, down, near)
    if mode == "ceil":
        return np.where(back < x, up, near)
    if mode == "trunc":
        return np.where(np.abs(back) > np.abs(x), np.where(x > 0, down, up), near)
    return near


def reduce(op: str, a: np.ndarray, dt: DType):
    """ReduceSum/Max/Min (count form) over `a` (already the first n elements), result in dt."""
    if a.size == 0:
        return dt.np.type(0)
    if op != "ReduceSum":
        fa = _f(a)
        return (np.max(fa) if op == "ReduceMax" else np.min(fa)).astype(dt.np)
    lanes = 256 // dt.size
    reps = -(-a.size // lanes)
    grid = np.zeros(reps * lanes, dt.np)
    grid[:a.size] = a
    grid = grid.reshape(reps, lanes)
    with np.errstate(all="ignore"):
        while grid.shape[1] > 1:                   # adjacent pairs inside a repeat, each add rounded to T
            grid = (_f(grid[:, 0::2]) + _f(grid[:, 1::2])).astype(dt.np)
        parts = grid[:, 0]
        return np.cumsum(parts, dtype=dt.np)[-1] if dt.name != "bf16" else parts.astype(np.float32).sum()


def product(a: np.ndarray) -> np.float32:
    """reduce_prod: a scalar loop over the elements, in fp32."""
    p = F32(1)
    with np.errstate(all="ignore"):
        for v in _f(a):
            p = F32(p * v)
    return p


def scalar_fn(fn: str, x) -> np.float32:
    """A.sqrt/exp/ln of a scalar: the generator runs them on the vector unit in fp32."""
    v = np.array([x], np.float32)
    return unary({"sqrt": "Sqrt", "exp": "Exp", "ln": "Ln"}[fn], v, DTYPES["f32"])[0]
