"""One Markdown document per SoC, rendered at index time from `tools/hardware/socs.json`
(the profiles the CPU emulation also reads; never copied into the corpus)."""
from __future__ import annotations

from kernelwright.tools import hardware
from kernelwright.tools.hardware import SocProfile, load_soc, soc_names


def _size(n: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.4g} {unit} ({n} bytes)"
    return f"{n} bytes"


def _mix_rule(soc: SocProfile) -> str:
    if soc.split_arch:
        return (f"A MIX (cube + vector) kernel launches blockDim groups of one AIC and its "
                f"{soc.aiv_cores // max(soc.aic_cores, 1)} AIV cores; blockDim must not exceed {soc.aic_cores} groups.")
    return "Cube and vector work share each AI Core, so a MIX kernel uses the same blockDim limit."


def soc_aliases(name: str) -> list[str]:
    # socs.json keeps aliases next to the profiles; the loader resolves them but does not list them.
    return sorted(alias for alias, target in hardware._doc()["aliases"].items() if target == name)


def render_soc(soc: SocProfile) -> str:
    cores = (f"{soc.aic_cores} cube cores (AIC) and {soc.aiv_cores} vector cores (AIV); split architecture: "
             f"separate cube and vector cores, AIC:AIV = 1:{soc.aiv_cores // max(soc.aic_cores, 1)}"
             if soc.split_arch else
             f"{soc.aic_cores} AI Cores; coupled architecture: each AI Core has both a cube and a vector unit")
    usable_ub = soc.ub_bytes - soc.ub_reserved_tail_bytes
    aliases = soc_aliases(soc.name)
    return f"""# {soc.name} hardware profile

SoC family {soc.short_soc}, NPU architecture {soc.npu_arch} (`__CCE_AICORE__ == {soc.cce_aicore}`),
compute unit `{soc.compute_unit}` (the value msopgen and `AddConfig` expect).{f" Also called: {', '.join(aliases)}." if aliases else ""}
{soc.notes}

## Cores and blockDim for {soc.name}

{cores}.
A pure vector kernel runs on {soc.vector_cores} cores: launch it with blockDim = {soc.vector_cores} (or fewer when
there is little work) and split the data by `GetBlockIdx()`. {_mix_rule(soc)}
`SyncAll` hangs when blockDim exceeds the cores that really run.

## On-chip memory sizes of {soc.name} (UB, L1, L0A, L0B, L0C)

- Unified Buffer (UB, vector local memory): {_size(soc.ub_bytes)} per vector core. The last
  {_size(soc.ub_reserved_tail_bytes)} are used as scratch by some APIs (Select, CompareScalar, some
  int32 paths), so plan user buffers within about {_size(usable_ub)}.
- L1 buffer: {_size(soc.l1_bytes)} per cube core.
- L0A {_size(soc.l0a_bytes)}, L0B {_size(soc.l0b_bytes)}, L0C {_size(soc.l0c_bytes)}.
- BiasTable: {_size(soc.bt_bytes) if soc.bt_bytes else "none"}.
- L2 cache: {_size(soc.l2_bytes)}; device memory (HBM/DDR): {_size(soc.hbm_bytes)}.

## Alignment and bandwidth on {soc.name}

UB block size {soc.ub_block_bytes} bytes: every UB tensor start address and every `DataCopy` length must
be a multiple of {soc.ub_block_bytes} bytes ({soc.ub_block_bytes // 2} half or {soc.ub_block_bytes // 4} float
elements). One vector repeat processes 8 blocks = {8 * soc.ub_block_bytes} bytes.
Bandwidth figures recorded in the profile: ddr_gbps = {soc.ddr_gbps:g}, l2_gbps = {soc.l2_gbps:g}.
"""


def hardware_documents() -> list[tuple[str, str, str]]:
    """(SoC name, source label, Markdown) for every SoC profile."""
    return [(name, f"tools/hardware/socs.json#{name}", render_soc(load_soc(name))) for name in soc_names()]


def socs_of_archs(archs: list[str]) -> list[str] | None:
    """SoC names whose npu_arch is in `archs`; None (all) when `archs` is empty."""
    if not archs:
        return None
    return [name for name in soc_names() if load_soc(name).npu_arch in archs]
