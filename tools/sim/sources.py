"""Prepare a project's sources for the emulation: rewrite `<<<>>>` launches (as CANN's CPU
mode does), drop the host section of `.asc` files (buildkit.sources), and compose the translation units that
register kernels with the runner (and, for msopgen projects, generate the kernel-side tiling
struct from the host's tiling-data layout, as the CANN build does)."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from kernelwright.tools.buildkit.sources import LIBRARY_TILING_STRUCTS, drop_launches, strip_asc_host
from kernelwright.tools.contained_paths import write_inside
from kernelwright.tools.cpp_text import include_path
from kernelwright.tools.dtypes import GE_VALUES
from kernelwright.tools.project import project_path

_LAUNCH = re.compile(r"(?P<name>[A-Za-z_][\w:]*)\s*<<<(?P<cfg>.*?)>>>\s*\((?P<empty>\s*\))?", re.S)
_MAIN = re.compile(r"\bint\s+main\s*\(")
_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.M)
_KNOWN_PATHS = Path(__file__).with_name("data") / "cann_include_paths.txt"
# bisheng's spelling of `__aicore__` in preprocessed kernels (`__forceinline__ [aicore] void f()`,
# `[host, aicore]`): an attribute with no meaning on the CPU, dropped keeping columns
_AICORE_ATTR = re.compile(r"\[(?:host\s*,\s*)?aicore(?:\s*,\s*host)?\]")


def rewrite_launches(text: str) -> str:
    """`k<<<a, b, c>>>(x, y)` -> `kw::launch_kernel(k, a, b, c, x, y)`; line count is preserved."""
    def repl(m: re.Match[str]) -> str:
        cfg = m.group("cfg")
        tail = ")" if m.group("empty") else ", "
        lost = m.group(0).count("\n") - cfg.count("\n")
        return f"kw::launch_kernel({m.group('name')}, {cfg}{tail}" + "\n" * lost
    return _LAUNCH.sub(repl, text)


_FUNC_DEF = re.compile(r"(?:^|\n)[ \t]*(?:[\w:<>,*&]+[ \t*&]+)+(?P<name>[A-Za-z_]\w*)\s*\((?P<params>[^(){};]*)\)\s*\{")


def host_entries(text: str) -> list[str]:
    """Host functions whose body launches a kernel with `<<<>>>` (e.g. `add_custom_do`): the runner
    can call them like the host program would."""
    names = []
    for m in _FUNC_DEF.finditer(text):
        depth, i = 0, m.end() - 1
        while i < len(text):
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            if depth == 0:
                break
            i += 1
        body = text[m.end():i]
        if "<<<" in body and "__global__" not in text[m.start():m.end()] and m.group("name") not in names:
            names.append(m.group("name"))
    return names


def prepare_tree(files: dict[str, str], dest: Path, msopgen: bool = False) -> list[str]:
    """Write the project's files under dest with launches rewritten; return the compilable TUs."""
    units = []
    for rel, text in files.items():
        if rel.endswith(".asc"):
            text = strip_asc_host(text)
        if rel.endswith((".cpp", ".cc", ".asc", ".h", ".hpp", ".inc")):
            text = drop_launches(text) if msopgen else rewrite_launches(text)
            text = _AICORE_ATTR.sub(lambda m: " " * len(m.group(0)), text)
        write_inside(dest, project_path(rel), text)
        if rel.endswith((".cpp", ".cc", ".asc")) and not _MAIN.search(text):
            units.append(rel)
    return units


# C library functions a kernel may be named after (e.g. an op `sqrt`): on the NPU no libm is in
# scope, here our headers are, so such kernels are renamed inside the unit and exported by name.
LIBC_NAMES = set("""abs labs fabs sqrt cbrt exp exp2 expm1 log log2 log10 log1p pow sin cos tan asin acos atan atan2 sinh cosh
tanh asinh acosh atanh erf erfc lgamma tgamma floor ceil round trunc rint nearbyint fmod remainder fmin fmax fdim hypot
copysign frexp ldexp modf signbit isnan isinf isfinite div ldiv rand srand exit abort free malloc calloc realloc printf
puts memcpy memset memmove strlen strcmp qsort""".split())


def cann_header_stubs(files: dict[str, str], include_dir: Path, dest: Path) -> None:
    """Answer direct includes of CANN-internal header paths (e.g. `lib/math/kernel_operator_asin_intf.h`)
    with stubs that forward to our headers; only paths that exist in CANN 8.x are answered."""
    known = {ln.strip() for ln in _KNOWN_PATHS.read_text().splitlines() if ln.strip() and not ln.startswith("#")}
    # CANN's include path also holds basic_api/impl and basic_api/interface, so their files are
    # reachable by bare name (`#include "kernel_utils.h"`)
    known |= {p.split("/", 1)[1] for p in known if p.count("/") == 1 and p.split("/")[0] in ("impl", "interface")}
    for text in files.values():
        for inc in _INCLUDE.findall(text):
            if inc not in known or (include_dir / inc).exists() or inc in files:
                continue
            stub = dest / inc
            if stub.exists():
                continue
            stub.parent.mkdir(parents=True, exist_ok=True)
            host = inc.startswith("tiling/") or "tiling" in Path(inc).name
            stub.write_text('#pragma once\n#include "%s"\n' % ("tiling/tiling_api.h" if host else "kernel_operator.h"))


def kernel_unit(src_rel: str, src_root: Path, kernels: list[str], prologue: str = "", hosts: list[str] | None = None) -> str:
    renames = "".join(f"#define {k} kw_kernel_{k}\n" for k in kernels if k in LIBC_NAMES)
    undo = "".join(f"#undef {k}\n" for k in kernels if k in LIBC_NAMES)
    exports = "\n".join(f"KW_EXPORT_KERNEL_AS(kw_kernel_{k}, {k})" if k in LIBC_NAMES else f"KW_EXPORT_KERNEL({k})"
                         for k in kernels)
    exports += "".join(f"\nKW_EXPORT_HOST_ENTRY({h})" for h in hosts or [])
    return (f"// generated by kernelwright: the unit that registers kernels with the runner\n{prologue}{renames}"
            f"#include \"{include_path((src_root / src_rel).resolve())}\"\n{undo}{exports}\n")


# ---- msopgen: kernel-side tiling struct and dtype macros ----

def _struct_body(name: str, fields: list[dict[str, Any]], size: int, emitted: dict[str, str]) -> str:
    lines, offset, pad = [], 0, 0
    for f in fields:
        if f["offset"] > offset:
            lines.append(f"    uint8_t kw_pad{pad}[{f['offset'] - offset}];")
            pad += 1
            offset = f["offset"]
        if f["ctype"] == "struct":
            st = f["struct_type"].split("::")[-1]
            if st not in LIBRARY_TILING_STRUCTS and st not in emitted:
                emitted[st] = _struct_body(st, f.get("fields", []), f["struct_size"], emitted)
            lines.append(f"    {st} {f['name']};")
            offset += f["struct_size"]
        elif f["count"] > 1:
            lines.append(f"    {f['ctype']} {f['name']}[{f['count']}];")
            offset += f["elem_size"] * f["count"]
        else:
            lines.append(f"    {f['ctype']} {f['name']};")
            offset += f["elem_size"]
    if size > offset:
        lines.append(f"    uint8_t kw_tail[{size - offset}];")
    body = "\n".join(lines) or "    uint8_t kw_empty[8];"
    return f"struct {name} {{\n{body}\n}};\nstatic_assert(sizeof({name}) == {max(size, 8 if not lines else size)}, \"tiling layout of {name}\");\n"


def tiling_header(op_type: str, classes: list[dict[str, Any]]) -> str:
    """Kernel-side structs for the op's tiling classes, plus GET_TILING_DATA for the default one."""
    mine = [c for c in classes if c["op_type"] == op_type or c["op_type"].startswith(op_type + "_")]
    emitted: dict[str, str] = {}
    for c in mine:
        if c["class"] not in emitted:
            emitted[c["class"]] = _struct_body(c["class"], c["fields"], c["size"], emitted)
    default = next((c["class"] for c in mine if c["op_type"] == op_type), mine[0]["class"] if mine else None)
    out = ["// generated by kernelwright from the host's tiling-data layout", "#pragma once", "#pragma pack(push, 1)"]
    out += list(emitted.values())
    out.append("#pragma pack(pop)")
    if default:
        out.append(f"#define KW_DEFAULT_TILING_TYPE {default}")
    return "\n".join(out) + "\n"


# ORIG_DTYPE_<NAME> (the GE dtype of the variant, as CANN defines it for kernels) compares with DT_* in
# `#if` and `if constexpr`, so both are integer macros (ge::DataType values) in kernel units.
def msopgen_prologue(tiling_header_path: Path, macros: dict[str, str]) -> str:
    defines = "".join(f"#define {k} {v}\n" for k, v in macros.items() if k.startswith("DTYPE_"))
    if any(k.startswith("ORIG_DTYPE_") for k in macros):
        defines += "".join(f"#ifndef {k}\n#define {k} {v}\n#endif\n" for k, v in GE_VALUES.items())
        defines += "".join(f"#define {k} {GE_VALUES.get(v, -1)}\n" for k, v in macros.items()
                           if k.startswith("ORIG_DTYPE_"))
    return f"#include \"{include_path(tiling_header_path.resolve())}\"\n#include \"kw/tiling_macros.h\"\n{defines}"
