"""MIX kernels with their own cube code. bisheng compiles such a kernel twice, for the AIC (the cube core)
and for its AIV cores, and launches one AIC and `ratio` AIVs per AI Core. The emulation does the same:
the AIV copy is linked into the kernel executable, the AIC copy (KW_CORE_TYPE=AIC) into a shared library
the runner loads (runtime/runner_main.cpp), and every AI Core runs as one AIC and `ratio` AIV processes
that synchronise through CrossCoreSetFlag/WaitFlag (runtime/crosscore.cpp).

A kernel counts as such when its own sources have a code path for the AIC and raw cube instructions;
kernels that reach the cube through the Matmul API (REGIST_MATMUL_OBJ) keep the emulation's model of
that API (computed inside the AIV), and vector kernels that only return early on the AIC stay vector.

A cube-only kernel (`KERNEL_TYPE_AIC_ONLY`, or cube code whose only core path is the AIC's, as Catlass's
BasicMatmul defines `operator()<AIC>` alone) has no AIV copy: bisheng builds it for the cube core only and
the launch's blocks are AI Cores (GetBlockIdx() < blockDim). The emulation compiles it once, for the AIC,
and runs its blocks as a vector kernel's (one process per block)."""
from __future__ import annotations

import re

_AIC_PATH = re.compile(r"\bASCEND_IS_AIC\b|\bASCEND_IS_NOT_AIV\b|g_coreType\s*==\s*(?:AscendC::)?AIC\b|"
                       r"<\s*(?:AscendC::)?AIC\s*>|KERNEL_TYPE_MIX_AIC_1_[12]")
_CUBE_CALL = re.compile(r"\b(?:Mmad|LoadData|LoadData2DV2|LoadDataWithTranspose|Fixpipe)\s*[<(]")
_MATMUL_API = re.compile(r"\bREGIST_MATMUL_OBJ\b")
_RATIO = re.compile(r"KERNEL_TYPE_MIX_AIC_1_([12])")
_AIV_PATH = re.compile(r"\bASCEND_IS_AIV\b|\bASCEND_IS_NOT_AIC\b|g_coreType\s*==\s*(?:AscendC::)?AIV\b|"
                       r"<\s*(?:AscendC::)?AIV\s*>|KERNEL_TYPE_MIX_|KERNEL_TYPE_AIV_ONLY")
_AIC_ONLY = re.compile(r"\bKERNEL_TYPE_AIC_ONLY\b")
_AIC_SPECIALISATION = re.compile(r"<\s*(?:AscendC::)?AIC\s*>")


def cube_ratio(kernel_texts: list[str]) -> int:
    """AIV cores per AIC for a MIX kernel with its own cube code (1 or 2), or 0 for any other kernel."""
    text = "\n".join(kernel_texts)
    if not (_AIC_PATH.search(text) and _CUBE_CALL.search(text)) or _MATMUL_API.search(text):
        return 0
    declared = _RATIO.search(text)
    return int(declared.group(1)) if declared else 2


def cube_only(kernel_texts: list[str]) -> bool:
    """A kernel built for the cube core alone: declared so, or with cube code whose only core-specific path
    is a `<AIC>` specialisation (no AIV path, no Matmul API)."""
    text = "\n".join(kernel_texts)
    if _AIC_ONLY.search(text):
        return True
    return bool(_AIC_SPECIALISATION.search(text) and _CUBE_CALL.search(text) and not _AIV_PATH.search(text)
                and not _MATMUL_API.search(text))
