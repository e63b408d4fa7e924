"""Fakes for contract tests of the real backend: directories shaped like installed CANN toolkits and
fake tools (fake_cann_tool.py: cmake and a C++ compiler) that record what they were asked to a
JSON-lines log and answer with canned output, including the real compiler texts of ascendc-api.md
§15.1. A source line `// KW_FAKE_ERROR(<name>)` makes the fake compiler report fake_cann_tool.CANNED[<name>] there.

The trees mirror the real layouts, file names and formats (contents are stand-ins):
* CANN 8 (`make_fake_cann(..., "8.1.RC1")`), after an installed 8.1.RC1 (`leideng/CANN-8.1.RC1`):
  `ascend-toolkit/{set_env.sh, <version>/, latest/}`; `latest/` holds `version.cfg`
  (`runtime_running_version=[7.7.0.1.238:8.1.RC1]`) and links into `<version>/`;
  `<version>/<arch>-linux/ascend_toolkit_install.info` (`version=8.1.RC1`), `compiler/version.info`
  (`Version=7.7.0.1.238`, the internal version, and `version_dir=8.1.RC1`),
  `<arch>-linux/tikcpp/ascendc_kernel_cmake/{ascendc.cmake, function.cmake}` (linked as
  `compiler/tikcpp/ascendc_kernel_cmake`; function.cmake defines ascendc_library & co.), msopgen's
  template `tools/op_project_templates/ascendc/customize/{cmake/func.cmake, scripts/install.sh}` with the
  functions 8.1's func.cmake defines (opbuild, add_kernels_compile, ...). set_env.sh exports what 8.1's
  does (ASCEND_TOOLKIT_HOME, ASCEND_HOME_PATH, ASCEND_OPP_PATH, PATH, LD_LIBRARY_PATH) and, like it,
  nothing of the driver.
* CANN 9 (`make_fake_cann(..., "9.1.0")`), after asc-devkit's packaging (`hicann/asc-devkit`
  scripts/package/asc-devkit/asc-devkit.xml, cmake/CMakeLists.txt; docs/en/quick_start.md): one
  directory with `set_env.sh`, `<arch>-linux/ascend_toolkit_install.info` (`version=9.1.0`),
  `share/info/runtime/version.info` (`Version=9.1.0`), `<arch>-linux/lib64/cmake/asc-config.cmake`
  (reached as `lib64/cmake` through the `lib64` link), `<arch>-linux/tikcpp/ascendc_kernel_cmake/`
  with `ascendc.cmake` + `legacy_modules/function.cmake`, `fwk_modules/func.cmake` (npu_op_package,
  npu_op_code_gen, npu_op_library, npu_op_kernel_sources, npu_op_kernel_library, npu_op_package_add, ...),
  `asc_modules/`, and the headers in `<arch>-linux/asc/{include,impl}` (linked as `asc`). The fake
  asc-config.cmake includes the fwk_modules through $ENV{ASCEND_HOME_PATH} as the real one does. What
  9.x's set_env.sh exports is not known here: the fake exports ASCEND_HOME_PATH (which asc-config.cmake
  requires), ASCEND_OPP_PATH, PATH and LD_LIBRARY_PATH.
Both put a fake `cmake` in `<arch>-linux/bin` (on PATH after set_env.sh) and an Ascend driver's
`driver/lib64/{common,driver}` beside the toolkit (as /usr/local/Ascend/driver is)."""
from __future__ import annotations

import json
import os
import platform
import stat
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ARCH = f"{platform.machine()}-linux"
# The functions the real modules define (only names matter to the fake cmake).
FUNCS_8_MSOPGEN = ("get_system_info", "opbuild", "add_ops_info_target", "add_ops_compile_options", "add_npu_support_target",
                   "add_simple_kernel_compile", "ascendc_device_library", "add_opregistry_target", "add_kernels_install",
                   "add_kernels_compile")
FUNCS_LAUNCH = ("merge_device_obj", "ascendc_library", "ascendc_fatbin_library", "ascendc_compile_options",
                "ascendc_compile_definitions", "ascendc_include_directories")
FUNCS_9_FWK = ("get_system_info", "add_ops_info_target", "npu_op_kernel_options", "npu_op_device_tiling_library",
               "npu_op_kernel_sources", "npu_op_kernel_library", "npu_op_package", "npu_op_code_gen", "npu_op_library",
               "npu_op_package_add")


def _executable(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IEXEC | stat.S_IXGRP | stat.S_IXOTH)
    return path


def fake_tool(path: Path) -> Path:
    """An executable that runs fake_cann_tool as `path.name` (cmake, or any other name: a C++ compiler)."""
    return _executable(path, f"#!{sys.executable}\nimport sys\nsys.path.insert(0, {str(HERE)!r})\n"
                             f"import fake_cann_tool\nsys.exit(fake_cann_tool.main({path.name!r}))\n")


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def _link(link: Path, target: str) -> None:
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(target)


def _cmake_functions(names: tuple[str, ...]) -> str:
    return "# fake CANN CMake module: the real one's function names, empty bodies\n" + "".join(
        f"function({n})\nendfunction()\n" for n in names)


def _dirs(base: Path, rels: tuple[str, ...]) -> None:
    for rel in rels:
        (base / rel).mkdir(parents=True, exist_ok=True)


def _set_env(path: Path, root: Path) -> None:
    _write(path, f'export ASCEND_TOOLKIT_HOME="{root}"\nexport ASCEND_HOME_PATH="{root}"\n'
                 f'export ASCEND_OPP_PATH="{root}/opp"\nexport PATH="{root}/bin:{root}/compiler/ccec_compiler/bin:$PATH"\n'
                 f'export LD_LIBRARY_PATH="{root}/lib64:${{LD_LIBRARY_PATH:-}}"\nexport KW_FAKE_SET_ENV=sourced\n')


def _arch_tree(arch: Path, version: str, *, launch: bool) -> Path:
    """`<arch>-linux/`: the install info, headers, libraries, bin/ with the fake cmake, ascendc_kernel_cmake."""
    _write(arch / "ascend_toolkit_install.info",
           f"package_name=Ascend-cann-toolkit\nversion={version}\ninnerversion=V100R001C21SPC001B238\n"
           f"compatible_version=[V100R001C15],[V100R001C18]\narch={platform.machine()}\nos=linux\npath={arch}\n")
    _dirs(arch, ("include/acl", "include/register", "include/tiling/platform", "include/aclnn", "lib64"))
    fake_tool(arch / "bin" / "cmake")
    kdir = arch / "tikcpp" / "ascendc_kernel_cmake"
    kdir.mkdir(parents=True, exist_ok=True)
    if launch:
        _write(kdir / "ascendc.cmake", "include(${CMAKE_CURRENT_LIST_DIR}/function.cmake)\n")
        _write(kdir / "function.cmake", _cmake_functions(FUNCS_LAUNCH))
    return kdir


def _cann8(root: Path, version: str, *, kernel_cmake: bool, templates: bool) -> None:
    top = root.parent                                   # ascend-toolkit/
    ver = top / version
    _arch_tree(ver / ARCH, version, launch=kernel_cmake)
    _write(ver / "compiler" / "version.info", f"Version=7.7.0.1.238\nversion_dir={version}\ntimestamp=20250428_203017761\n")
    _write(ver / "runtime" / "version.info", f"Version=7.7.0.1.238\nversion_dir={version}\n")
    _link(ver / "compiler" / "tikcpp" / "ascendc_kernel_cmake", f"../../{ARCH}/tikcpp/ascendc_kernel_cmake")
    _dirs(ver, ("compiler/tikcpp/tikcfw/impl", "compiler/tikcpp/tikcfw/interface", "tools/tikicpulib/lib/include",
                "opp/built-in"))
    if templates:
        customize = ver / "tools/op_project_templates/ascendc/customize"
        _write(customize / "cmake" / "func.cmake", _cmake_functions(FUNCS_8_MSOPGEN))
        for module in ("config", "intf"):
            _write(customize / "cmake" / f"{module}.cmake", f"# fake msopgen template {module}.cmake\n")
        _write(customize / "scripts" / "install.sh", "# fake msopgen template install.sh\n")
    root.mkdir(parents=True, exist_ok=True)             # latest/: a directory of links, and version.cfg
    _write(root / "version.cfg", "# version: 1.0\n" + "".join(
        f"{c}_running_version=[7.7.0.1.238:{version}]\n" for c in ("runtime", "compiler", "opp", "toolkit")))
    _link(root / ARCH, f"../{version}/{ARCH}")
    for name in ("include", "lib64", "bin"):
        _link(root / name, f"{ARCH}/{name}")
    for name in ("compiler", "runtime", "tools", "opp"):
        _link(root / name, f"../{version}/{name}")
    _set_env(top / "set_env.sh", root)


def _cann9(root: Path, version: str, *, asc: bool, kernel_cmake: bool) -> None:
    kdir = _arch_tree(root / ARCH, version, launch=False)
    if kernel_cmake:
        _write(kdir / "ascendc.cmake", "include(${CMAKE_CURRENT_LIST_DIR}/legacy_modules/function.cmake)\n")
        _write(kdir / "legacy_modules" / "function.cmake", _cmake_functions(FUNCS_LAUNCH))
    _write(kdir / "fwk_modules" / "func.cmake", _cmake_functions(FUNCS_9_FWK))
    for module in ("config", "intf"):
        _write(kdir / "fwk_modules" / f"{module}.cmake", f"# fake fwk_modules {module}.cmake\n")
    _write(kdir / "fwk_modules" / "scripts" / "install.sh", "# fake fwk_modules install.sh\n")
    _write(kdir / "asc_modules" / "FindASC.cmake", "# fake FindASC.cmake\n")
    _write(kdir / "asc_modules" / "CMakeASCInformation.cmake", "# fake CMakeASCInformation.cmake\n")
    if asc:
        config = "".join(f"include($ENV{{ASCEND_HOME_PATH}}/compiler/tikcpp/ascendc_kernel_cmake/{m})\n"
                         for m in ("fwk_modules/config.cmake", "fwk_modules/func.cmake", "fwk_modules/intf.cmake",
                                   "asc_modules/FindASC.cmake"))
        _write(root / ARCH / "lib64" / "cmake" / "asc-config.cmake", "# fake asc-config.cmake\n" + config)
        _link(kdir / "asc-config.cmake", "../../lib64/cmake/asc-config.cmake")
    _dirs(root / ARCH / "asc", ("include/basic_api", "include/adv_api", "include/interface", "include/tiling",
                                "include/utils", "impl/basic_api", "impl/adv_api", "impl/utils"))
    _write(root / "share" / "info" / "runtime" / "version.info", f"Version={version}\n")
    _dirs(root, ("tools/tikicpulib/lib/include", "opp/built-in"))
    for name in ("include", "lib64", "bin", "asc"):
        _link(root / name, f"{ARCH}/{name}")
    _link(root / "compiler" / "tikcpp", f"../{ARCH}/tikcpp")
    _set_env(root / "set_env.sh", root)


def make_fake_cann(root: Path, version: str = "8.1.RC1", *, asc: bool = True, kernel_cmake: bool = True,
                   templates: bool = True) -> Path:
    """A fake toolkit whose ASCEND_HOME_PATH is `root`. CANN 8: `root` is `<Ascend>/ascend-toolkit/latest`
    (the version directory and set_env.sh go beside it, the driver into `<Ascend>/driver`); CANN >= 9:
    one directory, the driver beside it. `asc=False` leaves out asc-config.cmake (CANN 9),
    `kernel_cmake=False` the kernel-launch modules (ascendc.cmake), `templates=False` msopgen's
    template (CANN 8)."""
    if int(version.split(".")[0]) < 9:
        assert root.name == "latest" and root.parent.name == "ascend-toolkit", "CANN 8 trees are <Ascend>/ascend-toolkit/latest"
        _cann8(root, version, kernel_cmake=kernel_cmake, templates=templates)
        ascend = root.parent.parent
    else:
        _cann9(root, version, asc=asc, kernel_cmake=kernel_cmake)
        ascend = root.parent
    for sub in ("common", "driver"):
        (ascend / "driver" / "lib64" / sub).mkdir(parents=True, exist_ok=True)
    return root


def read_log(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def snapshot(root: Path) -> dict[str, float]:
    """Every file below root with its modification time (to prove nothing was written there)."""
    return {str(p): p.stat().st_mtime for p in root.rglob("*") if p.is_file()}


def fake_env(monkeypatch, root: Path, log: Path, home: Path) -> None:
    """Point detection at the fake install, the cache at `home` and the fake tools' log at `log`."""
    for var in ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME", "ASCEND_CANN_PACKAGE_PATH", "ASC_DIR",
                "ASCEND_CUSTOM_OPP_PATH", "ASCEND_OPP_PATH"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("ASCEND_HOME_PATH", str(root))
    monkeypatch.setenv("KW_FAKE_LOG", str(log))
    monkeypatch.setenv("KERNELWRIGHT_CANN_ENV", "KW_FAKE_*")     # the fakes' settings reach them through the builds
    monkeypatch.setenv("KERNELWRIGHT_HOME", str(home))
    from kernelwright.tools.cann import env as cann_env_module
    cann_env_module._sourced.cache_clear()
    os.environ.pop("KW_FAKE_SET_ENV", None)


ADD_KERNEL = r'''#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void add_scaled(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t n, float scale)
{
    GlobalTensor<float> xg;
    xg.SetGlobalBuffer((__gm__ float*)x, n);
}
#ifndef ASCENDC_CPU_DEBUG
void add_scaled_do(uint32_t blockDim, void* stream, uint8_t* x, uint8_t* y, uint8_t* z, uint32_t n, float s)
{
    add_scaled<<<blockDim, nullptr, stream>>>(x, y, z, n, s);
}
#endif
'''
