"""Source preparation every backend shares: the host section of a CANN 9 `.asc` file, `<<<>>>`
launches that an operator build never uses, and the dtype variants (DTYPE_<NAME> macro sets) an
msopgen kernel is compiled in, one per dtype column of its OpDef."""
from __future__ import annotations

import re

from kernelwright.tools.dtypes import BY_NAME
from kernelwright.tools.opspec import OpSpec

_ASC_HOST = re.compile(r"//\s*=+\s*ASCEND_HOST_SECTION\s*=+")
# Tiling structs that the kernel side gets from kernel_tiling/kernel_tiling.h rather than generated code.
LIBRARY_TILING_STRUCTS = {"SoftMaxTiling", "LayerNormTiling", "RmsNormTiling", "TCubeTiling", "LayerNormSeparateTiling",
                          "BatchNormTiling", "GroupNormTiling", "LogSoftMaxTiling", "SoftmaxFlashTiling"}


def strip_asc_host(text: str) -> str:
    """A CANN 9 `.asc` file keeps torch glue after a marker; the kernels are above it."""
    m = _ASC_HOST.search(text)
    if not m:
        return text
    i = m.start()
    kept = text[:i]
    return kept + "\n" * text[i:].count("\n")  # keep line numbers of anything reported later


def drop_launches(text: str) -> str:
    """msopgen kernels sometimes keep a host wrapper that launches with `<<<>>>`; the operator
    build never uses it (the framework calls the kernel), so the launch becomes a no-op."""
    out, pos = [], 0
    for m in re.finditer(r"[A-Za-z_][\w:]*\s*<<<", text):
        if m.start() < pos:
            continue
        end = text.find(">>>", m.end())
        open_paren = text.find("(", end + 3) if end >= 0 else -1
        if end < 0 or open_paren < 0 or text[end + 3:open_paren].strip():
            continue
        depth, i = 0, open_paren
        while i < len(text):
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            if depth == 0:
                break
            i += 1
        out.append(text[pos:m.start()])
        out.append("((void)0)" + "\n" * text[m.start():i + 1].count("\n"))
        pos = i + 1
    out.append(text[pos:])
    return "".join(out)


def column_ctypes(op: OpSpec, col: int) -> dict[str, str]:
    """DTYPE_<NAME> -> C type of every parameter in dtype column `col` of the op definition (a parameter
    with fewer columns repeats its last; a dtype no kernel tensor holds is a byte type)."""
    macros = {}
    for p in op.inputs + op.outputs:
        if p.dtypes:
            dt = BY_NAME.get(p.dtypes[min(col, len(p.dtypes) - 1)])
            macros[f"DTYPE_{p.name.upper()}"] = dt.ctype if dt and dt.ctype else "uint8_t"
    return macros


def dtype_variants(op: OpSpec, orig: bool = False) -> list[dict[str, str]]:
    """One macro set per distinct dtype column of the op definition: DTYPE_<NAME> -> C type, and with
    `orig` also ORIG_DTYPE_<NAME> -> GE dtype name."""
    columns = max((len(p.dtypes) for p in op.inputs + op.outputs), default=0)
    variants: list[dict[str, str]] = []
    for i in range(columns):
        macros = column_ctypes(op, i)
        if orig:
            for p in op.inputs + op.outputs:
                if p.dtypes:
                    dt = p.dtypes[min(i, len(p.dtypes) - 1)]
                    macros[f"ORIG_DTYPE_{p.name.upper()}"] = BY_NAME[dt].ge if dt in BY_NAME else dt
        if all(variant_key(macros) != variant_key(v) for v in variants):
            variants.append(macros)
    return variants


def variant_key(macros: dict[str, str]) -> str:
    return ",".join(f"{k.removeprefix('DTYPE_')}={v}" for k, v in macros.items() if k.startswith("DTYPE_"))
