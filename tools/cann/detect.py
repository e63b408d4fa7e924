"""Find a CANN toolkit install and describe it: root, version, set_env.sh, which kernel-launch
build flow it supports and where its headers are. Reads files only; imports nothing CANN-specific.

Layouts (ascendc-api.md §14): CANN 8 keeps the kernel-launch CMake modules in
`<root>/compiler/tikcpp/ascendc_kernel_cmake` (older: `tools/tikcpp/...`) and is sourced from
`<ascend-toolkit>/set_env.sh`; CANN 9 installs under `/usr/local/Ascend/cann` with its own
`set_env.sh` and builds `.asc` sources through `find_package(ASC)` (ASCConfig.cmake)."""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_ROOTS = ["/usr/local/Ascend/ascend-toolkit/latest", "/usr/local/Ascend/cann",
                 str(Path.home() / "Ascend/ascend-toolkit/latest"), str(Path.home() / "Ascend/cann")]
ROOT_VARS = ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME", "ASCEND_CANN_PACKAGE_PATH")
KERNEL_CMAKE_DIRS = ("compiler/tikcpp/ascendc_kernel_cmake", "tools/tikcpp/ascendc_kernel_cmake")
# Where ASCConfig.cmake lives differs by release and architecture; look only below these.
_ASC_SEARCH = ("lib64/cmake", "compiler/lib64/cmake", "x86_64-linux/lib64/cmake", "aarch64-linux/lib64/cmake",
               "compiler/tikcpp/ascendc_kernel_cmake", "tools/tikcpp/ascendc_kernel_cmake", "asc/cmake", "cmake")
ASC_FLOW_SINCE = (9, 1)     # the `.asc` + find_package(ASC) flow is the default from CANN 9.1 on


@dataclass(frozen=True)
class CannInstall:
    root: Path
    version: str | None
    source: str                          # which variable or default path pointed at it
    set_env: Path | None = None          # the set_env.sh that configures a shell for this install
    asc_config_dir: Path | None = field(default=None, compare=False)

    @property
    def version_tuple(self) -> tuple[int, int]:
        m = re.match(r"(\d+)(?:\.(\d+))?", self.version or "")
        return (int(m.group(1)), int(m.group(2) or 0)) if m else (0, 0)

    @property
    def major(self) -> int | None:
        return self.version_tuple[0] or None

    @property
    def kernel_cmake_dir(self) -> Path | None:
        """`ascendc_kernel_cmake` (ascendc.cmake + ascendc_library) of the CANN 8 kernel-launch flow."""
        return next((self.root / d for d in KERNEL_CMAKE_DIRS if (self.root / d / "ascendc.cmake").is_file()), None)

    @property
    def flow(self) -> str | None:
        """The kernel-launch build flow: `asc` (CANN >= 9.1, find_package(ASC)) or `ascendc_library` (CANN 8)."""
        if self.version_tuple >= ASC_FLOW_SINCE:
            return "asc"
        if self.kernel_cmake_dir is not None:
            return "ascendc_library"
        return "asc" if self.asc_config_dir is not None else None

    @property
    def bisheng(self) -> Path | None:
        for rel in ("compiler/ccec_compiler/bin/bisheng", "bin/bisheng", "compiler/bin/bisheng", "tools/ccec_compiler/bin/bisheng"):
            if (self.root / rel).is_file():
                return self.root / rel
        return None

    def describe(self) -> str:
        flow = {"asc": ".asc + find_package(ASC)", "ascendc_library": "ascendc_library"}.get(self.flow or "", "none found")
        return (f"{self.root} (version {self.version or 'unknown'}, via {self.source}; kernel-launch flow: {flow}; "
                f"set_env.sh: {self.set_env or 'not found'})")


def _version(root: Path) -> str | None:
    candidates = [root / "version.cfg", root / "version.info", root / "compiler" / "version.info",
                  root / "runtime" / "version.info", *sorted(root.glob("*-linux/ascend_toolkit_install.info")),
                  *sorted(root.glob("*/version.info"))]
    for candidate in candidates:
        try:
            text = candidate.read_text(errors="replace")
        except OSError:
            continue
        m = re.search(r"(?:^|\n)\s*(?:Version|version)\s*=\s*\[?([\w.\-]+)", text) or re.search(r"_version=\[?([\w.\-]+)", text)
        if m:
            return m.group(1)
    return None


def _set_env(root: Path) -> Path | None:
    for p in (root / "set_env.sh", root.parent / "set_env.sh", root / "bin" / "setenv.bash"):
        if p.is_file():
            return p
    return None


def _asc_config_dir(root: Path, env: dict[str, str]) -> Path | None:
    given = env.get("ASC_DIR")
    if given and (Path(given) / "ASCConfig.cmake").is_file():
        return Path(given)
    for rel in _ASC_SEARCH:
        base = root / rel
        if not base.is_dir():
            continue
        for dirpath, dirnames, filenames in os.walk(base):
            if "ASCConfig.cmake" in filenames:
                return Path(dirpath)
            if dirpath.count(os.sep) - str(base).count(os.sep) >= 3:
                dirnames[:] = []
    return None


def detect_cann(env: dict[str, str] | None = None) -> CannInstall | None:
    env = dict(os.environ if env is None else env)
    candidates = [(env.get(v), v) for v in ROOT_VARS]
    candidates += [(p, "default path") for p in DEFAULT_ROOTS]
    for path, source in candidates:
        if path and Path(path).is_dir():
            root = Path(path).resolve()
            return CannInstall(root=root, version=_version(root), source=source, set_env=_set_env(root),
                               asc_config_dir=_asc_config_dir(root, env))
    return None


def cpu_debug_include_dirs(inst: CannInstall) -> list[Path]:
    """The include dirs of the CPU-twin target (`tikicpulib::<soc>`, ascendc-api.md §14.2), those that exist."""
    rels = ["tools/tikicpulib/lib/include", "compiler/tikcpp/tikcfw", "compiler/tikcpp/tikcfw/impl",
            "compiler/tikcpp/tikcfw/interface", "compiler/ascendc/include/highlevel_api",
            "compiler/ascendc/include/highlevel_api/lib", "compiler/ascendc/include/highlevel_api/impl",
            "compiler/ascendc/include/highlevel_api/lib/matmul", "compiler/tikcpp", "include"]
    return [inst.root / r for r in rels if (inst.root / r).is_dir()]


def host_include_dirs(inst: CannInstall) -> list[Path]:
    """Include dirs an msopgen op_host source compiles against (`register/`, `tiling/`, `graph/`, ...)."""
    rels = ["include", "include/external", "include/experiment", "include/experiment/platform",
            "include/experiment/metadef/common/util", "compiler/tikcpp/tikcfw"]
    return [inst.root / r for r in rels if (inst.root / r).is_dir()]
