"""Where a local copy of CANN's headers keeps what the oracle compiles against, and the CPU-debug
defines it compiles with (the way the CPU twin does: ascendc-api.md §14.2, tools/cann/syntax.py).

Two layouts are understood, found by marker files anywhere under the given root:
- CANN 8.x, an installed toolkit (or a copy of one): `basic_api/kernel_operator.h` with `interface/`
  and `impl/` beside it, `highlevel_api/`, the twin's stubs (`stub_def.h` + `stub_fun.h`) and, for host
  code, `register/tilingdata_base.h` under the toolkit's `include/`.
- CANN 9.x, the asc package (asc-devkit): `include/kernel_operator.h` with `impl/` beside `include/`,
  the CPU-debug stubs, a generated `kernel_tiling/kernel_tiling.h`, and optionally metadef's
  `register/` and `exe_graph/` headers for host code.
Installs reach some headers through folder links (`lib/matmul_intf.h`, `tiling/tiling_api.h`); the
oracle writes one-line forwarding headers for those into its scratch folder instead."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from kernelwright.errors import UserError
from kernelwright.tools.cann.syntax import twin_defines
from kernelwright.tools.hardware import SocProfile

# The arch numbers CANN 9 uses in `__NPU_ARCH__` (asc-devkit docs: SIMD-BuiltIn keywords).
NPU_ARCH_IDS = {"dav-c220": 2201, "dav-m200": 2002}
_MARKERS = {"kernel_operator.h", "stub_def.h", "stub_fun.h", "tilingdata_base.h", "tiling_context.h",
            "kernel_tiling.h", "matmul_intf.h", "tiling_api.h", "platform_ascendc.h", "op_def_registry.h",
            "securec.h", "platform_info.h", "soc_spec.h"}
# Include dirs of the asc package's CPU mode, relative to the package root (its CMakeASCInformation).
_ASC_DIRS = ["impl/utils", "include", "include/adv_api", "include/adv_api/matmul", "include/aicpu_api",
             "include/basic_api", "include/c_api", "include/interface", "include/micro_api", "include/simt_api",
             "include/tiling", "include/utils", "."]
_HOST_SUBDIRS = ["", "external", "experiment", "experiment/platform", "experiment/metadef/common/util"]


class HeaderLayoutError(UserError):
    """The given folder does not hold the headers the oracle needs for that CANN version."""


@dataclass
class Layout:
    version: str                       # "8.x" or "9.x": the card key this run checks
    label: str                         # what the user called it (8.1, 9.0, ...)
    root: Path
    kernel_dirs: list[Path]
    kernel_includes: list[str]
    host_dirs: list[Path] = field(default_factory=list)   # empty: no host headers found
    host_includes: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)         # what could not be checked, and why

    def kernel_defines(self, soc: SocProfile) -> list[str]:
        if self.version == "8.x":  # CANN 8 headers key on __CCE_AICORE__/__DAV_*__, not on an --npu-arch number
            return twin_defines(soc, arch="")
        return [f"-D__NPU_ARCH__={NPU_ARCH_IDS[soc.npu_arch]}", "-D_GLIBCXX_USE_CXX11_ABI=0",
                "-D__CCE_KT_TEST__=1", "-DASCENDC_CPU_DEBUG=1", "-DASCENDC_DEBUG=1"]


def _index(root: Path) -> dict[str, list[Path]]:
    found: dict[str, list[Path]] = {}
    for dirpath, dirnames, filenames in os.walk(root, followlinks=True):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        for name in _MARKERS.intersection(filenames):
            found.setdefault(name, []).append(Path(dirpath) / name)
    return {k: sorted(v, key=lambda p: len(p.parts)) for k, v in found.items()}


def _first(paths: list[Path], test) -> Path | None:
    return next((p for p in paths if test(p)), None)


def _forward(shim: Path, rel: str, target: Path | None) -> str | None:
    """Write `shim/rel` including `target`; return rel (what the probe file includes) or None."""
    if target is None:
        return None
    (shim / rel).parent.mkdir(parents=True, exist_ok=True)
    (shim / rel).write_text(f'#include "{target}"\n')
    return rel


# Public headers kernel_operator.h does not include; kernels include them by name.
_EXTRA_KERNEL_HEADERS = ("kernel_operator_list_tensor_intf.h",)


def _extra(folder: Path) -> list[str]:
    return [h for h in _EXTRA_KERNEL_HEADERS if (folder / h).is_file()]


def find_layout(root: Path, label: str, shim: Path) -> Layout:
    if not root.is_dir():
        raise HeaderLayoutError(f"--headers {root}: no such folder")
    version = "9.x" if label.split(".")[0] in ("9", "9x") else "8.x" if label.split(".")[0] == "8" else ""
    if not version:
        raise HeaderLayoutError(f"--cann {label}: give a CANN 8 or 9 version, e.g. 8.1 or 9.0")
    index = _index(root)
    stubs = _first([p.parent for p in index.get("stub_def.h", [])], lambda d: (d / "stub_fun.h").is_file())
    if stubs is None:
        raise HeaderLayoutError(f"{root}: no CPU-debug stubs (a folder with stub_def.h and stub_fun.h, e.g. "
                                "tools/tikicpulib/lib/include); the CPU-mode compile needs them")
    layout = (_layout_8 if version == "8.x" else _layout_9)(root, index, shim, stubs)
    layout.label = label
    return layout


def _layout_8(root: Path, index: dict[str, list[Path]], shim: Path, stubs: Path) -> Layout:
    op = _first(index.get("kernel_operator.h", []), lambda p: (p.parent / "interface").is_dir())
    if op is None:
        raise HeaderLayoutError(f"{root}: no CANN 8 basic_api/kernel_operator.h (with interface/ beside it)")
    basic = op.parent
    high = basic.parent / "highlevel_api"
    dirs = [stubs, basic, basic / "impl", basic / "interface", high, high / "lib", high / "impl", high / "lib" / "matmul"]
    matmul = _forward(shim, "lib/matmul_intf.h", _first(index.get("matmul_intf.h", []), lambda p: p.is_relative_to(high)))
    layout = Layout("8.x", "", root, [shim, *[d for d in dirs if d.is_dir()]],
                    ["kernel_operator.h", *([matmul] if matmul else []), *_extra(basic / "interface")])
    tiling = _first(index.get("tilingdata_base.h", []), lambda p: p.parent.name == "register")
    if tiling is None:
        layout.notes.append("host cards unchecked: no register/tilingdata_base.h under the root")
        return layout
    inc = tiling.parent.parent
    layout.host_dirs = [shim, *[inc / s for s in _HOST_SUBDIRS if (inc / s).is_dir()], high]
    layout.host_includes = ["register/tilingdata_base.h", "register/op_def_registry.h",
                            "tiling/platform/platform_ascendc.h"]
    api = _forward(shim, "tiling/tiling_api.h", _first(index.get("tiling_api.h", []), lambda p: p.is_relative_to(high)))
    layout.host_includes += [api] if api else []
    return layout


def _layout_9(root: Path, index: dict[str, list[Path]], shim: Path, stubs: Path) -> Layout:
    op = _first(index.get("kernel_operator.h", []),
                lambda p: p.parent.name == "include" and (p.parent.parent / "impl").is_dir())
    if op is None:
        raise HeaderLayoutError(f"{root}: no CANN 9 asc package (include/kernel_operator.h with impl/ beside include/)")
    asc = op.parent.parent
    tiling_gen = _first(index.get("kernel_tiling.h", []), lambda p: p.parent.name == "kernel_tiling")
    if tiling_gen is None:
        raise HeaderLayoutError(f"{root}: no kernel_tiling/kernel_tiling.h; the asc package generates it at install time "
                                f"(asc-devkit: impl/adv_api/cmake/scripts/gen_kernel_tiling_data_def.py include/adv_api OUT)")
    matmul = _forward(shim, "lib/matmul_intf.h", _first(index.get("matmul_intf.h", []), lambda p: p.is_relative_to(asc)))
    dirs = [shim, stubs, tiling_gen.parent.parent, *[asc / d for d in _ASC_DIRS if (asc / d).is_dir()]]
    layout = Layout("9.x", "", root, dirs, ["kernel_operator.h", *([matmul] if matmul else []),
                                            *_extra(asc / "include" / "basic_api")])
    context = _first(index.get("tiling_context.h", []), lambda p: p.parent.name == "runtime")
    tiling = _first(index.get("tilingdata_base.h", []), lambda p: p.parent.name == "register")
    if context is None or tiling is None:
        layout.notes.append("host cards unchecked: no metadef register/ and exe_graph/ headers under the root")
        return layout
    if not index.get("soc_spec.h"):  # platform_ascendc.h and tiling_api.h include it
        layout.notes.append("host cards unchecked: the host headers need platform/soc_spec.h (a CANN 9 install has "
                            "it under include/), not found under the root")
        return layout
    platform = _first(index.get("platform_ascendc.h", []), lambda p: p.is_relative_to(asc))
    api = _forward(shim, "tiling/tiling_api.h", _first(index.get("tiling_api.h", []), lambda p: p.is_relative_to(asc)))
    _forward(shim, "tiling/platform/platform_ascendc.h", platform)
    registry = [p.parent.parent for p in index.get("op_def_registry.h", []) if p.parent.name == "register"]
    deps = [p.parent for p in index.get("securec.h", [])] + [p.parent.parent for p in index.get("platform_info.h", [])]
    layout.host_dirs = [shim, tiling.parent.parent, tiling.parent.parent.parent, *registry, *deps,
                        *layout.kernel_dirs[3:]]
    layout.host_includes = ["register/tilingdata_base.h", "register/op_def_registry.h",
                            "tiling/platform/platform_ascendc.h", *([api] if api else [])]
    return layout
