"""Find a CANN toolkit install and describe it: root, product version (and the file it was read
from), set_env.sh, the kernel-launch build flow and the operator-package flow it supports, and
why. Reads files only; imports nothing CANN-specific.

Layouts, as the real trees have them:
* CANN 8 (an installed 8.1.RC1, `leideng/CANN-8.1.RC1`): `ascend-toolkit/latest/` with `version.cfg`
  (`runtime_running_version=[7.7.0.1.238:8.1.RC1]`: internal version, then the product version),
  `<arch>-linux/ascend_toolkit_install.info` (`version=8.1.RC1`), `compiler/version.info`
  (`Version=7.7.0.1.238`, the internal version; `version_dir=8.1.RC1`), the kernel-launch modules in
  `compiler/tikcpp/ascendc_kernel_cmake/ascendc.cmake`, msopgen's template in
  `tools/op_project_templates/ascendc/customize/cmake/func.cmake` (`opbuild`, `add_kernels_compile`) and
  `set_env.sh` one level up (`ascend-toolkit/set_env.sh`).
* CANN 9 (asc-devkit `hicann/asc-devkit`, mirrored as `mirror-cann/asc-devkit`): `/usr/local/Ascend/cann`
  with its own `set_env.sh`, `<arch>-linux/ascend_toolkit_install.info` (docs/en/quick_start.md) and
  `share/info/<package>/version.info` (`Version=9.1.0`); `asc-config.cmake` installed to
  `<arch>-linux/lib64/cmake/` and linked into `tikcpp/ascendc_kernel_cmake/` (cmake/CMakeLists.txt,
  scripts/package/asc-devkit/asc-devkit.xml; the repo's own scripts pass
  `-DASC_DIR=${ASCEND_HOME_PATH}/lib64/cmake`, tests/perf/*/perf.sh); the operator-package functions
  `npu_op_*` in `ascendc_kernel_cmake/fwk_modules/func.cmake`."""
from __future__ import annotations

import os
import platform
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

DEFAULT_ROOTS = ["/usr/local/Ascend/ascend-toolkit/latest", "/usr/local/Ascend/cann",
                 str(Path.home() / "Ascend/ascend-toolkit/latest"), str(Path.home() / "Ascend/cann")]
ROOT_VARS = ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME", "ASCEND_CANN_PACKAGE_PATH")
KERNEL_CMAKE_DIRS = ("compiler/tikcpp/ascendc_kernel_cmake", "tools/tikcpp/ascendc_kernel_cmake")
# The names find_package(ASC) accepts in config mode; CANN 9 installs the lower-case one.
ASC_CONFIG_NAMES = ("asc-config.cmake", "ASCConfig.cmake")
ASC_CONFIG_DIRS = ("lib64/cmake", "{arch}/lib64/cmake", *KERNEL_CMAKE_DIRS)
MSOPGEN_FUNC = "tools/op_project_templates/ascendc/customize/cmake/func.cmake"
ASC_FLOW_SINCE = (9, 1)     # the `.asc` + find_package(ASC) kernel-launch flow is the default from CANN 9.1 on
FLOW_NAMES = {"asc": ".asc + find_package(ASC)", "ascendc_library": "ascendc_library",
              "npu_op": "npu_op_* functions", "msopgen": "msopgen template"}


@dataclass(frozen=True)
class FlowChoice:
    name: str | None            # None: this install cannot build that kind of project
    why: str

    def describe(self) -> str:
        return f"{FLOW_NAMES.get(self.name or '', 'none')} ({self.why})"


@dataclass(frozen=True)
class CannInstall:
    root: Path
    version: str | None                  # the product version (8.1.RC1, 9.1.0), never the internal one (7.7.0.1.238)
    source: str                          # which variable or default path pointed at it
    set_env: Path | None = None          # the set_env.sh that configures a shell for this install
    asc_config_dir: Path | None = field(default=None, compare=False)
    version_file: Path | None = field(default=None, compare=False)

    @property
    def version_tuple(self) -> tuple[int, int]:
        m = re.match(r"(\d+)(?:\.(\d+))?", self.version or "")
        return (int(m.group(1)), int(m.group(2) or 0)) if m else (0, 0)

    @property
    def major(self) -> int | None:
        return self.version_tuple[0] or None

    @property
    def kernel_cmake_dir(self) -> Path | None:
        """`ascendc_kernel_cmake` with `ascendc.cmake` (ascendc_library), the CANN 8 kernel-launch flow."""
        return next((self.root / d for d in KERNEL_CMAKE_DIRS if (self.root / d / "ascendc.cmake").is_file()), None)

    @cached_property
    def launch_flow(self) -> FlowChoice:
        """How a kernel-launch project is built here, and why."""
        v = f"CANN {self.version}" if self.version else "the version is unknown"
        asc, kdir = self.asc_config_dir, self.kernel_cmake_dir
        config = self._rel(asc / _asc_config_name(asc)) if asc else ""
        if self.version_tuple >= ASC_FLOW_SINCE and asc is not None:
            return FlowChoice("asc", f"{v} >= 9.1 and find_package(ASC) finds {config}")
        if kdir is not None:
            modules = self._rel(kdir / "ascendc.cmake")
            if self.version_tuple >= ASC_FLOW_SINCE:
                return FlowChoice("ascendc_library", f"{v} >= 9.1 but no asc-config.cmake was found; {modules} is there")
            return FlowChoice("ascendc_library", f"{v}{' < 9.1' if self.version else ''}: {modules}")
        if asc is not None:
            return FlowChoice("asc", f"{v}: no ascendc.cmake, but {config}")
        return FlowChoice(None, "neither compiler/tikcpp/ascendc_kernel_cmake/ascendc.cmake (CANN 8) nor "
                                "asc-config.cmake (CANN >= 9.1) was found")

    @property
    def flow(self) -> str | None:
        return self.launch_flow.name

    @cached_property
    def package_flow(self) -> FlowChoice:
        """How an operator package (the msopgen compatibility mode) is built here: the toolkit's own
        CMake functions decide, read from the module that defines them."""
        for d in KERNEL_CMAKE_DIRS:
            func = self.root / d / "fwk_modules" / "func.cmake"
            if _defines(func, "npu_op_package") and self.asc_config_dir is not None:
                return FlowChoice("npu_op", f"{self._rel(func)} defines npu_op_package; find_package(ASC) works")
        func = self.root / MSOPGEN_FUNC
        if _defines(func, "opbuild"):
            return FlowChoice("msopgen", f"{MSOPGEN_FUNC} defines opbuild; no npu_op_* functions")
        return FlowChoice(None, f"neither fwk_modules/func.cmake with npu_op_package (CANN >= 9) nor {MSOPGEN_FUNC} "
                                "(CANN 8) was found")

    @property
    def bisheng(self) -> Path | None:
        for rel in ("compiler/ccec_compiler/bin/bisheng", "bin/bisheng", "compiler/bin/bisheng", "tools/ccec_compiler/bin/bisheng"):
            if (self.root / rel).is_file():
                return self.root / rel
        return None

    def _rel(self, p: Path) -> str:
        try:
            return str(p.relative_to(self.root))
        except ValueError:
            return str(p)

    def describe(self) -> str:
        where = f"read from {self._rel(self.version_file)}" if self.version_file else "no version file found"
        return (f"CANN {self.version or '(version unknown)'} at {self.root} ({where}; via {self.source}); "
                f"kernel-launch flow: {self.launch_flow.describe()}; operator packages (--msopgen): "
                f"{self.package_flow.describe()}; set_env.sh: {self.set_env or 'not found'}")


def _defines(cmake_file: Path, function: str) -> bool:
    try:
        return re.search(rf"^\s*(?:function|macro)\(\s*{function}\b", cmake_file.read_text(errors="replace"), re.M) is not None
    except OSError:
        return False


def _asc_config_name(d: Path) -> str:
    return next((n for n in ASC_CONFIG_NAMES if (d / n).is_file()), ASC_CONFIG_NAMES[0])


def _candidates(root: Path, rel: str) -> list[Path]:
    """`root / rel`, with a leading `{arch}` standing for each `<arch>-linux` directory, this machine's
    first (cross-compile installs hold two)."""
    if not rel.startswith("{arch}/"):
        return [root / rel]
    own = root / f"{platform.machine()}-linux"
    return [a / rel.removeprefix("{arch}/") for a in [own] + [p for p in sorted(root.glob("*-linux")) if p != own]]


# Where the product version is written, most direct first: (file pattern, regex with the version as group 1).
_VERSION_SOURCES = (
    ("{arch}/ascend_toolkit_install.info", r"^version=(\S+)"),
    ("version.cfg", r"^\w+_running_version=\[[^:\]]*:([^\]]+)\]"),    # [<internal>:<product>]
    ("share/info/runtime/version.info", r"^Version=(\S+)"),        # CANN 9: the product version
    ("share/info/asc-devkit/version.info", r"^Version=(\S+)"),
    ("compiler/version.info", r"^version_dir=(\S+)"),             # CANN 8: Version= there is the internal one
    ("runtime/version.info", r"^version_dir=(\S+)"),
)


def read_version(root: Path) -> tuple[str | None, Path | None]:
    """The product version of the install at `root` and the file it was read from."""
    for pattern, regex in _VERSION_SOURCES:
        for path in _candidates(root, pattern):
            try:
                m = re.search(regex, path.read_text(errors="replace"), re.M)
            except OSError:
                continue
            if m:
                return m.group(1).strip(), path
    return None, None


def _set_env(root: Path) -> Path | None:
    for p in (root / "set_env.sh", root.parent / "set_env.sh", root / "bin" / "setenv.bash"):
        if p.is_file():
            return p
    return None


def _asc_config_dir(root: Path, env: dict[str, str]) -> Path | None:
    dirs = [Path(env["ASC_DIR"])] if env.get("ASC_DIR") else []
    for rel in ASC_CONFIG_DIRS:
        dirs += _candidates(root, rel)
    return next((d for d in dirs if any((d / n).is_file() for n in ASC_CONFIG_NAMES)), None)


def detect_cann(env: dict[str, str] | None = None) -> CannInstall | None:
    env = dict(os.environ if env is None else env)
    candidates = [(env.get(v), v) for v in ROOT_VARS]
    candidates += [(p, "default path") for p in DEFAULT_ROOTS]
    for path, source in candidates:
        if path and Path(path).is_dir():
            root = Path(path).resolve()
            version, version_file = read_version(root)
            return CannInstall(root=root, version=version, source=source, set_env=_set_env(root),
                               asc_config_dir=_asc_config_dir(root, env), version_file=version_file)
    return None


# CANN 8 CPU twin: the include dirs of `tikicpulib::<soc>` (ascendc-api.md §14.2).
TWIN8_INCLUDES = ("tools/tikicpulib/lib/include", "compiler/tikcpp/tikcfw", "compiler/tikcpp/tikcfw/impl",
                  "compiler/tikcpp/tikcfw/interface", "compiler/ascendc/include/highlevel_api",
                  "compiler/ascendc/include/highlevel_api/lib", "compiler/ascendc/include/highlevel_api/impl",
                  "compiler/ascendc/include/highlevel_api/lib/matmul", "compiler/tikcpp", "include")
# CANN 9 CPU mode (CMAKE_ASC_RUN_MODE=cpu): asc-devkit cmake/asc/asc_modules/CMakeASCInformation.cmake, in its order.
TWIN9_INCLUDES = ("tools/tikicpulib/lib/include", "include", "asc/impl/adv_api", "asc/impl/basic_api", "asc/impl/c_api",
                  "asc/impl/micro_api", "asc/impl/simt_api", "asc/impl/utils", "asc/include", "asc/include/adv_api",
                  "asc/include/adv_api/matmul", "asc/include/aicpu_api", "asc/include/basic_api", "asc/include/c_api",
                  "asc/include/interface", "asc/include/micro_api", "asc/include/simt_api", "asc/include/tiling",
                  "asc/include/utils")


def _asc_headers(inst: CannInstall) -> bool:
    """CANN 9 keeps AscendC's headers in `asc/include` (they branch on __NPU_ARCH__, not __CCE_AICORE__)."""
    return (inst.root / "asc/include/kernel_operator.h").is_file()


def cpu_debug_include_dirs(inst: CannInstall) -> list[Path]:
    """The include dirs the CPU-debug build of this install compiles a kernel with, those that exist."""
    rels = TWIN9_INCLUDES if _asc_headers(inst) else TWIN8_INCLUDES
    return [inst.root / r for r in rels if (inst.root / r).is_dir()]


def driver_lib_dirs(inst: CannInstall) -> list[Path]:
    """The Ascend driver's libraries (`driver/lib64/{common,driver}`, next to the toolkit or in
    /usr/local/Ascend): torch_npu needs them and 8.1's set_env.sh does not add them."""
    for base in (inst.root.parent, inst.root.parent.parent, Path("/usr/local/Ascend")):
        lib = base / "driver" / "lib64"
        if lib.is_dir():
            return [d for d in (lib / "common", lib / "driver") if d.is_dir()]
    return []
