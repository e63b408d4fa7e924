"""The vector-instruction table (data/ops.json): call forms, accepted element types per
architecture and the Cast pairs with their round modes."""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from kernelwright.tools.dsl.dtypes import DTYPES

DEFAULT_ARCH = "dav-c220"
ROUND_MODES = ("none", "rint", "floor", "ceil", "round", "trunc", "odd")
FORMS = ("binary", "scalar", "unary", "advanced", "fill", "reduce", "cast", "copy")


@dataclass(frozen=True)
class OpInfo:
    name: str
    form: str
    dtypes: dict[str, tuple[str, ...]]

    def supports(self, dtype: str, arch: str = DEFAULT_ARCH) -> bool:
        return dtype in self.dtypes.get(arch, self.dtypes.get(DEFAULT_ARCH, ()))

    def accepted(self, arch: str = DEFAULT_ARCH) -> tuple[str, ...]:
        return self.dtypes.get(arch, self.dtypes.get(DEFAULT_ARCH, ()))


@lru_cache(maxsize=1)
def _doc() -> dict:
    return json.loads((Path(__file__).parent / "data" / "ops.json").read_text())


@lru_cache(maxsize=1)
def ops() -> dict[str, OpInfo]:
    return {name: OpInfo(name, spec["form"], {a: tuple(d) for a, d in spec["dtypes"].items()})
            for name, spec in _doc()["ops"].items()}


def cast_modes(src: str, dst: str, arch: str = DEFAULT_ARCH) -> tuple[str, ...] | None:
    """Round modes of a Cast pair, or None when the pair is not supported (same dtype: a copy)."""
    table = _doc()["casts"].get(arch) or _doc()["casts"][DEFAULT_ARCH]
    modes = table.get(f"{src}>{dst}")
    return tuple(modes) if modes is not None else None


def cast_pairs(arch: str = DEFAULT_ARCH) -> list[str]:
    table = _doc()["casts"].get(arch) or _doc()["casts"][DEFAULT_ARCH]
    return sorted(k for k in table if not k.startswith("_"))


def auto_mode(src: str, dst: str, arch: str = DEFAULT_ARCH) -> str | None:
    """The mode `A.Cast(..., "auto", n)` picks: widening and integer -> float use `none` (exact, or
    round-to-nearest where precision is lost); float narrowing uses `rint`. None when the pair needs
    an explicit choice (float -> integer) or is not supported."""
    modes = cast_modes(src, dst, arch)
    if modes is None:
        return None
    s, d = DTYPES[src], DTYPES[dst]
    if not d.is_float:
        return "none" if not s.is_float and "none" in modes else None
    if s.is_float and d.size < s.size:
        return "rint" if "rint" in modes else None
    return "none" if "none" in modes else ("rint" if "rint" in modes else None)
