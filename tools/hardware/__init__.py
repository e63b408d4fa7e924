"""SoC hardware profiles as data (socs.json), shared by the emulation, the host stand-ins,
the DSL checker and the knowledge index."""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel

from kernelwright.errors import ConfigError

_DATA = Path(__file__).with_name("socs.json")


class SocProfile(BaseModel):
    name: str
    short_soc: str
    npu_arch: str
    cce_aicore: int
    split_arch: bool
    aic_cores: int
    aiv_cores: int
    ub_bytes: int
    l1_bytes: int
    l0a_bytes: int
    l0b_bytes: int
    l0c_bytes: int
    bt_bytes: int
    l2_bytes: int
    hbm_bytes: int
    ub_block_bytes: int
    ub_reserved_tail_bytes: int
    ddr_gbps: float
    l2_gbps: float
    compute_unit: str
    notes: str = ""

    @property
    def vector_cores(self) -> int:
        """Cores a pure-vector kernel runs on (AIV on split archs, AI Cores on coupled ones)."""
        return self.aiv_cores


class UnknownSoc(ConfigError):
    pass


@lru_cache(maxsize=1)
def _doc() -> dict:
    return json.loads(_DATA.read_text())


def soc_names() -> list[str]:
    return sorted(_doc()["socs"])


def default_soc() -> str:
    return _doc()["default"]


def load_soc(name: str | None = None) -> SocProfile:
    doc = _doc()
    key = name or doc["default"]
    key = doc["aliases"].get(key, key)
    if key not in doc["socs"]:
        raise UnknownSoc(f"unknown SoC '{name}'; known: {', '.join(soc_names())} "
                         f"(aliases: {', '.join(sorted(doc['aliases']))})")
    return SocProfile(**doc["socs"][key])
