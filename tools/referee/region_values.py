"""Input values made from a seed and the element offset alone, for inputs too big to hold (sampled judging past
SAMPLED_BUDGET): the emulator makes them on first touch (sim/runtime/generated.cpp), and the reference's input
slice is made here, bit for bit the same, from the same offsets. float32, uniform in [0, 1) with 24 random bits
(torch.rand's distribution, not its values)."""
from __future__ import annotations

import itertools

import numpy as np

_GOLDEN, _M1, _M2 = np.uint64(0x9E3779B97F4A7C15), np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)


def _mix(z: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser, as generated.cpp `mix` (wrapping uint64 arithmetic)."""
    with np.errstate(over="ignore"):
        z = z + _GOLDEN
        z = (z ^ (z >> np.uint64(30))) * _M1
        z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


def values_at(seed: int, offsets: np.ndarray) -> np.ndarray:
    """The float32 values at these flat element offsets of a generated input."""
    key = _mix(np.array([seed], dtype=np.uint64))[0]
    bits = _mix(np.asarray(offsets, dtype=np.uint64) ^ key) >> np.uint64(40)
    return (bits.astype(np.float32) * np.float32(1.0 / 16777216.0)).astype(np.float32)


def region(seed: int, shape: tuple[int, ...], box: tuple[slice, ...], slab: int = 1 << 20) -> np.ndarray:
    """The generated input of `shape` restricted to `box` (one slice per dimension), as an array; made a slab of at
    most `slab` elements at a time (the offsets and hashes are 8-byte temporaries)."""
    axes = [np.arange(*s.indices(n)) for s, n in zip(box, shape)]
    out = np.empty([len(a) for a in axes], dtype=np.float32)
    k = len(axes)
    while k > 0 and int(np.prod([len(a) for a in axes[k - 1:]])) <= slab:
        k -= 1
    strides = np.array([int(np.prod(shape[d + 1:])) for d in range(len(shape))], dtype=np.uint64)
    inner = sum(a.astype(np.uint64).reshape([-1 if d == j else 1 for j in range(k, len(axes))]) * strides[d]
                for d, a in enumerate(axes[k:], start=k)) if k < len(axes) else np.uint64(0)
    for outer in itertools.product(*[range(len(a)) for a in axes[:k]]):
        base = sum(int(axes[d][i]) * int(strides[d]) for d, i in enumerate(outer))
        out[outer] = values_at(seed, np.uint64(base) + inner)
    return out


def placeholder(shape: tuple[int, ...], dtype: str = "float32") -> np.ndarray:
    """A zero-stride stand-in for a generated input: its shape and dtype, no memory (Case.generated)."""
    return np.lib.stride_tricks.as_strided(np.zeros(1, dtype=dtype), shape=tuple(shape), strides=(0,) * len(shape))
