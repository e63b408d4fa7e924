"""NumPy semantics of `A.extern` holes, by name: what the interpreter runs in place of a hole the
generator cannot emit (the lowering pass that fills the hole is checked against the same callback).

A callback receives the hole's `reads` and `writes` as arrays (a tile from its view offset to the end
of its capacity; a GM tensor whole) and its parameters as keywords, and fills `writes` in place."""
from __future__ import annotations

from typing import Callable

import numpy as np

Semantics = Callable[..., None]
EXTERNS: dict[str, Semantics] = {}


def register(name: str) -> Callable[[Semantics], Semantics]:
    def wrap(fn: Semantics) -> Semantics:
        EXTERNS[name] = fn
        return fn
    return wrap


@register("sort_ascending")
def sort_ascending(reads: list[np.ndarray], writes: list[np.ndarray], n: int) -> None:
    """writes[0][:n] = the first n elements of reads[0], ascending."""
    writes[0][:n] = np.sort(reads[0][:n].astype(np.float32), kind="stable").astype(writes[0].dtype)


@register("sort_descending")
def sort_descending(reads: list[np.ndarray], writes: list[np.ndarray], n: int) -> None:
    """writes[0][:n] = the first n elements of reads[0], descending."""
    writes[0][:n] = (-np.sort(-reads[0][:n].astype(np.float32), kind="stable")).astype(writes[0].dtype)


@register("reverse")
def reverse(reads: list[np.ndarray], writes: list[np.ndarray], n: int) -> None:
    """writes[0][:n] = reads[0][n-1::-1]."""
    writes[0][:n] = reads[0][:n][::-1].astype(writes[0].dtype)


@register("gather")
def gather(reads: list[np.ndarray], writes: list[np.ndarray], n: int) -> None:
    """writes[0][i] = reads[0][reads[1][i]] for i < n (element indices)."""
    writes[0][:n] = reads[0][reads[1][:n].astype(np.int64)].astype(writes[0].dtype)


class Registry:
    """The caller's callbacks (any mapping with .get, e.g. one resolving names on the fly), then ours."""

    def __init__(self, extra=None):
        self.extra = extra

    def get(self, name: str) -> Semantics | None:
        fn = self.extra.get(name) if self.extra is not None else None
        return fn if fn is not None else EXTERNS.get(name)

    def names(self) -> list[str]:
        return sorted(set(EXTERNS) | set(self.extra or {}))


def resolve(extra=None) -> Registry:
    return Registry(extra)
