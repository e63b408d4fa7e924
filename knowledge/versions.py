"""Which CANN version the knowledge base answers for, and the line that tells a reader of a card
where it holds (CANN versions, SoC families), rendered from the card's front matter."""
from __future__ import annotations

from kernelwright.errors import ConfigError
from kernelwright.knowledge.models import CANN_VERSIONS, ApiCard
from kernelwright.tools.cann.detect import detect_cann
from kernelwright.tools.hardware import load_soc, soc_names

DEFAULT_CANN = "8.x"  # what most kernels, benchmarks and model training data target


def target_cann(configured: str | None = None) -> str:
    """The configured version, else the major version of the CANN install found on this machine,
    else 8.x."""
    if configured:
        if configured not in CANN_VERSIONS:
            raise ConfigError(f"CANN version '{configured}' is not one of {', '.join(CANN_VERSIONS)} "
                              "(toolchain.cann / KERNELWRIGHT_CANN / --cann)")
        return configured
    install = detect_cann()
    major = install.major if install else None
    return f"{major}.x" if major and f"{major}.x" in CANN_VERSIONS else DEFAULT_CANN


def soc_families(archs: list[str]) -> list[str]:
    """`[dav-c220]` -> `[Ascend910B, Ascend910_93]`; every family when `archs` is empty."""
    families = [load_soc(n).short_soc for n in soc_names() if not archs or load_soc(n).npu_arch in archs]
    return list(dict.fromkeys(families))


def availability_line(card: ApiCard) -> str:
    """`Holds for: CANN 8.x; CANN 9.x deprecated (use ReduceRepeat: ...). SoCs: Ascend910B, ...`"""
    if card.kind == "invented":
        return "Holds for: no CANN version (this API does not exist)."
    parts = []
    for version in CANN_VERSIONS:
        info = card.cann[version]
        if info.status == "current":
            parts.append(f"CANN {version}")
            continue
        what = "not in" if info.status == "absent" else "deprecated in"
        replacements = info.use_instead or card.use_instead
        use = f"use {' or '.join(replacements)}" if replacements else ""
        detail = "; ".join(x for x in (use, info.note.rstrip(".")) if x)
        parts.append(f"{what} CANN {version}" + (f" ({detail})" if detail else ""))
    return f"Holds for: {'; '.join(parts)}. SoCs: {', '.join(soc_families(card.archs))}."
