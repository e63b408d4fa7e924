"""MIX kernels with their own cube code. bisheng compiles such a kernel twice, for the AIC (the cube core)
and for its AIV cores, and launches one AIC and `ratio` AIVs per AI Core. The emulation does the same:
the AIV copy is linked into the kernel executable, the AIC copy (KW_CORE_TYPE=AIC) into a shared library
the runner loads (runtime/runner_main.cpp), and every AI Core runs as one AIC and `ratio` AIV processes
that synchronise through CrossCoreSetFlag/WaitFlag (runtime/crosscore.cpp).

A kernel counts as such when its own sources have a code path for the AIC and raw cube instructions;
kernels that reach the cube through the Matmul API (REGIST_MATMUL_OBJ) keep the emulation's model of
that API (computed inside the AIV), and vector kernels that only return early on the AIC stay vector."""
from __future__ import annotations

import re

_AIC_PATH = re.compile(r"\bASCEND_IS_AIC\b|\bASCEND_IS_NOT_AIV\b|g_coreType\s*==\s*(?:AscendC::)?AIC\b|"
                       r"<\s*(?:AscendC::)?AIC\s*>|KERNEL_TYPE_MIX_AIC_1_[12]")
_CUBE_CALL = re.compile(r"\b(?:Mmad|LoadData|LoadData2DV2|LoadDataWithTranspose|Fixpipe)\s*[<(]")
_MATMUL_API = re.compile(r"\bREGIST_MATMUL_OBJ\b")
_RATIO = re.compile(r"KERNEL_TYPE_MIX_AIC_1_([12])")


def cube_ratio(kernel_texts: list[str]) -> int:
    """AIV cores per AIC for a MIX kernel with its own cube code (1 or 2), or 0 for any other kernel."""
    text = "\n".join(kernel_texts)
    if not (_AIC_PATH.search(text) and _CUBE_CALL.search(text)) or _MATMUL_API.search(text):
        return 0
    declared = _RATIO.search(text)
    return int(declared.group(1)) if declared else 2
