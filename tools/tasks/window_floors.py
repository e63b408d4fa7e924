"""Worker side: the least length each dim a sliding window covers needs, recorded from one forward, the
size of the convolutions' unfolded inputs, and the group counts of the group norms.

A convolution or pooling window of dilated extent E with padding P needs an input dim of at least E - 2P, else
the reference itself fails ("Kernel size can't be greater than actual input size"), a pooling window at least its
kernel size K too; a transposed convolution needs (d - 1) * stride + E - 2P + output_padding >= 1. The shrinker
keeps such a dim at or above its floor (shrink.py). Floors are keyed by the dim's value, as the shrinker maps
dims: a window over an intermediate whose length is no task dim gives a floor nothing uses. The unfolded inputs
count in what a shrunk case may hold (referee/verify.py, _fit_held). A group norm's (channels, groups) pair lets
the shrinker shrink both alike, keeping the channels per group (shrink.py).
"""
from __future__ import annotations

import math
from typing import Any

from torch.utils._python_dispatch import TorchDispatchMode


def _per_dim(value: Any, n: int, default: int) -> list[int]:
    """An op's int-or-list window argument for n spatial dims ([] or None: `default`)."""
    if value is None or (isinstance(value, (list, tuple)) and not value):
        return [default] * n
    values = [int(v) for v in value] if isinstance(value, (list, tuple)) else [int(value)]
    return values * n if len(values) == 1 else values


def _conv_floors(args: tuple) -> list[tuple[int, int]]:
    x, w = args[0], args[1]
    stride, padding, dilation, transposed, output_padding = args[3:8]
    kernel = list(w.shape[2:])
    n = len(kernel)
    stride, padding = _per_dim(stride, n, 1), _per_dim(padding, n, 0)
    dilation, output_padding = _per_dim(dilation, n, 1), _per_dim(output_padding, n, 0)
    out = []
    for size, k, s, p, d, op in zip(x.shape[-n:], kernel, stride, padding, dilation, output_padding):
        extent = d * (k - 1) + 1
        least = 1 + math.ceil((2 * p - extent - op + 1) / s) if transposed else extent - 2 * p
        out.append((int(size), least))
    return out


def _pool_floors(name: str, args: tuple) -> list[tuple[int, int]]:
    kernel = args[1] if len(args) > 1 else None
    if kernel is None:
        return []
    kernel = [int(k) for k in kernel] if isinstance(kernel, (list, tuple)) else [int(kernel)]
    n = len(kernel) if len(kernel) > 1 else {"1d": 1, "2d": 2, "3d": 3}.get(name.split("_pool")[1][:2], 1)
    kernel = kernel * n if len(kernel) == 1 else kernel
    padding = _per_dim(args[3] if len(args) > 3 else 0, n, 0)
    dilation = _per_dim(args[4] if len(args) > 4 and name.startswith("max") else 1, n, 1)
    x = args[0]
    # torch's 3-d pools also refuse an input (unpadded) shorter than the kernel: "input image smaller than kernel size"
    return [(int(size), max(k, d * (k - 1) + 1 - 2 * p)) for size, k, p, d in zip(x.shape[-n:], kernel, padding, dilation)]


class WindowFloors(TorchDispatchMode):
    """While a forward runs (on fake tensors), note for every convolution and pooling window the least
    length of each input dim it slides over: `floors` maps a dim's length to that least length. `unfolded`:
    the elements of the convolutions' unfolded inputs (N x C_in x kernel x output positions: what an im2col
    moves, 36 times a stride-5 transposed conv's output). `groups`: each group norm's channel count -> its
    number of groups. `multiples`: a grouped convolution's channel counts -> its group count (a channel count
    shrinks to a multiple of it; one equal to the group count, depthwise, shrinks with it by value)."""

    def __init__(self) -> None:
        super().__init__()
        self.floors: dict[int, int] = {}
        self.unfolded = 0
        self.groups: dict[int, int] = {}
        self.multiples: dict[int, int] = {}

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        name = func.overloadpacket.__name__
        try:
            if name == "convolution":
                found = _conv_floors(tuple(args))
            elif name.startswith(("max_pool", "avg_pool")) and "backward" not in name:
                found = _pool_floors(name, tuple(args))
            else:
                found = []
            if name == "native_group_norm":       # (input, weight, bias, N, C, HxW, group, eps)
                self.groups[int(args[4])] = int(args[6])
        except (TypeError, ValueError, IndexError, AttributeError):
            found = []          # an op spelled differently: no floor, the shrinker's own rules only
        for size, least in found:
            if least > 2 and least <= size:
                self.floors[size] = max(self.floors.get(size, 0), least)
        out = func(*args, **(kwargs or {}))
        if name == "convolution" and out.dim() > 2 and out.shape[1]:
            self.unfolded += out.numel() // out.shape[1] * args[0].shape[1] * math.prod(args[1].shape[2:])
            groups = int(args[8]) if len(args) > 8 else 1
            for c in {int(args[0].shape[1]), int(out.shape[1])} - {groups} if groups > 1 else ():
                self.multiples[c] = math.lcm(self.multiples.get(c, 1), groups)
        return out
