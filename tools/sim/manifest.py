"""Writers of the tab-separated manifests the C++ runners read (see runtime/runner_main.cpp and
host/host_main.cpp)."""
from __future__ import annotations

from kernelwright.tools.hardware import SocProfile

FORMAT_ND = 2


def _clean(value: object) -> str:
    text = str(value)
    if "\t" in text or "\n" in text:
        raise ValueError(f"manifest field may not contain tabs or newlines: {text!r}")
    return text


def line(*fields: object) -> str:
    return "\t".join(_clean(f) for f in fields)


def soc_line(soc: SocProfile) -> str:
    return line("soc", soc.name, soc.cce_aicore, int(soc.split_arch), soc.aic_cores, soc.aiv_cores, soc.ub_bytes,
                soc.l1_bytes, soc.l0a_bytes, soc.l0b_bytes, soc.l0c_bytes, soc.bt_bytes, 2048)


def platform_line(soc: SocProfile) -> str:
    m200_vector = 7 if soc.cce_aicore == 200 else 0
    return line("platform", soc.name, soc.short_soc, soc.cce_aicore, int(soc.split_arch), soc.aic_cores, soc.aiv_cores,
                m200_vector, soc.ub_bytes, soc.l1_bytes, soc.l0a_bytes, soc.l0b_bytes, soc.l0c_bytes, soc.l2_bytes,
                soc.hbm_bytes)


def dims(shape: tuple[int, ...] | list[int]) -> str:
    return ",".join(str(int(d)) for d in shape)


def list_line_fields(name: str, keys: list[str], shapes: list[tuple[int, ...]]) -> list[str]:
    """Fields of the runner's `list NAME MEMBERS DIMS` directive."""
    return ["list", name, ",".join(keys), ";".join(",".join(str(int(d)) for d in s) for s in shapes)]
