"""Fakes for contract tests of the real backend: a directory shaped like a CANN install (version
files, set_env.sh, include/, the kernel-launch CMake modules or ASCConfig.cmake, msopgen's project
template) and fake tools that record what they were asked (argv, cwd, environment) to a JSON-lines
log and answer with canned output, including the real compiler texts of ascendc-api.md §15.1.

A source line `// KW_FAKE_ERROR(<name>)` makes the fake compiler report CANNED[<name>] at that line."""
from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

# Canned compiler output; {path}/{line} are the marked source line, {cann} the fake install root.
CANNED = {
    "no_member": "{path}:{line}:5: error: no member named 'FooBar' in namespace 'AscendC'\n1 error generated.\n",
    "adds": ("{path}:{line}:5: error: no matching function for call to 'Adds'\n"
             "{cann}/compiler/tikcpp/tikcfw/interface/kernel_operator_vec_binary_scalar_intf.h:40:24: note: candidate "
             "template ignored: deduced conflicting types for parameter 'T' ('half' vs. 'float')\n"
             "{cann}/compiler/tikcpp/tikcfw/interface/kernel_operator_vec_binary_scalar_intf.h:52:24: note: candidate "
             "function template not viable: requires 6 arguments, but 4 were provided\n1 error generated.\n"),
    "tbuf": ("{cann}/compiler/tikcpp/tikcfw/impl/kernel_tpipe_impl.h:210:5: error: static_assert failed due to "
             "requirement 'AscendC::TPipe::isTQue' \"TPipe::InitBuffer(T& que, uint8_t num, uint32_t len) not supports "
             "T as TBuf\"\n{path}:{line}:10: note: in instantiation of function template specialization "
             "'AscendC::TPipe::InitBuffer<AscendC::TBuf<AscendC::TPosition::VECCALC>>' requested here\n"
             "1 error generated.\n"),
    "narrowing": ("{path}:{line}:32: error: non-constant-expression cannot be narrowed from type 'int' to 'uint8_t' "
                  "(aka 'unsigned char') in initializer list [-Wc++11-narrowing]\n1 error generated.\n"),
    "deprecated": ("{path}:{line}:9: warning: 'DataCopyPadUB2GMImpl<float>' is deprecated: NOTICE: DataCopyPad is not "
                   "deprecated. Currently, DataCopyPad is an unsupported API on current device. Please check your code! "
                   "[-Wdeprecated-declarations]\n"),
}

FAKE_TOOL = r'''#!__PYTHON__
"""Fake CANN-side tool (cmake / a C++ compiler) for kernelwright's contract tests."""
import json, os, re, sys
from pathlib import Path

CANNED = json.loads(__CANNED__)
ENV_KEYS = ("ASCEND", "ASC_DIR", "CMAKE_PREFIX_PATH", "PATH", "LD_LIBRARY_PATH", "KW_FAKE")
tool = Path(sys.argv[0]).name
log = os.environ.get("KW_FAKE_LOG")
if log:
    with open(log, "a") as fh:
        fh.write(json.dumps({"tool": tool, "argv": sys.argv[1:], "cwd": os.getcwd(),
                             "env": {k: v for k, v in os.environ.items() if k.startswith(ENV_KEYS)}}) + "\n")

def sources_of(paths):
    """The files and the absolute #includes they pull in (one level), as (path, text)."""
    out = []
    for p in paths:
        try:
            text = Path(p).read_text()
        except OSError:
            continue
        out.append((p, text))
        for inc in re.findall(r'#include "(/[^"]+)"', text):
            try:
                out.append((inc, Path(inc).read_text()))
            except OSError:
                pass
    return out

def compile_errors(paths):
    """Canned diagnostics for KW_FAKE_ERROR markers; True when one of them is an error."""
    failed = False
    for path, text in sources_of(paths):
        for no, line in enumerate(text.splitlines(), 1):
            m = re.search(r"KW_FAKE_ERROR\((\w+)\)", line)
            if m:
                msg = CANNED[m.group(1)].format(path=path, line=no, cann=os.environ.get("ASCEND_HOME_PATH", "/cann"))
                sys.stderr.write(msg)
                failed = failed or " error: " in msg
    return failed

def configure(args):
    src, build = Path(args[args.index("-S") + 1]), Path(args[args.index("-B") + 1])
    build.mkdir(parents=True, exist_ok=True)
    text = (src / "CMakeLists.txt").read_text()
    if "find_package(ASC REQUIRED)" in text and not any(
            (Path(d) / "ASCConfig.cmake").is_file() for d in
            [os.environ.get("ASC_DIR", "")] + os.environ.get("CMAKE_PREFIX_PATH", "").split(":") if d):
        sys.stderr.write('CMake Error at CMakeLists.txt:3 (find_package):\n  Could not find a package configuration '
                         'file provided by "ASC" with any of the following names:\n\n    ASCConfig.cmake\n')
        return 1
    for inc in re.findall(r'set\(ASCENDC_CMAKE_DIR "([^"]+)"\)', text):
        if not (Path(inc) / "ascendc.cmake").is_file():
            sys.stderr.write(f"CMake Error at CMakeLists.txt:9 (include):\n  include could not find requested file:\n"
                             f"    {inc}/ascendc.cmake\n")
            return 1
    cache = dict(a[2:].split("=", 1) for a in args if a.startswith("-D") and "=" in a)
    targets = re.findall(r"(?:ascendc_library|add_library)\((\w+)\s+(SHARED|STATIC)", text)
    files = re.findall(r'"(/[^"]+\.(?:cpp|asc|cc))"', text)
    (build / "fake_state.json").write_text(json.dumps({"src": str(src), "targets": targets, "files": files,
                                                       "cache": cache}))
    print("-- Configuring done\n-- Generating done")
    return 0

def build(args):
    build = Path(args[args.index("--build") + 1])
    state = json.loads((build / "fake_state.json").read_text())
    target = args[args.index("--target") + 1] if "--target" in args else "all"
    src = Path(state["src"])
    if target == "package":
        vendor = state["cache"].get("vendor_name", "customize")
        op = next(p.stem for p in src.glob("*.json") if p.name != "CMakePresets.json")
        run = Path(state["cache"].get("CMAKE_INSTALL_PREFIX", str(build))) / "custom_opp_linux_x86_64.run"
        run.parent.mkdir(parents=True, exist_ok=True)
        run.write_text(INSTALLER.replace("__VENDOR__", vendor).replace("__OP__", op))
        return 0
    kernels = state["files"] or [str(p) for p in src.rglob("*.cpp")]
    if compile_errors(kernels):
        sys.stderr.write(f"make[2]: *** [CMakeFiles/kw.dir/build.make:76] Error 1\n")
        return 2
    for name, kind in state["targets"]:
        if kind == "SHARED":
            (build / "lib").mkdir(exist_ok=True)
            (build / "lib" / f"lib{name}.so").write_bytes(b"FAKE")
    print("[100%] Built target")
    return 0

INSTALLER = """#!/bin/bash
path=""
for a in "$@"; do case "$a" in --install-path=*) path="${a#--install-path=}";; esac; done
if [ -n "$KW_FAKE_LOG" ]; then printf '{"tool": "installer", "argv": "%s", "cwd": "%s"}\\n' "$*" "$PWD" >> "$KW_FAKE_LOG"; fi
[ -n "$path" ] || path="$ASCEND_OPP_PATH"
v="$path/vendors/__VENDOR__"
mkdir -p "$v/op_api/lib" "$v/op_api/include" "$v/bin"
echo FAKE > "$v/op_api/lib/libcust_opapi.so"
echo '// aclnn___OP__' > "$v/op_api/include/aclnn___OP__.h"
echo "export ASCEND_CUSTOM_OPP_PATH=$v" > "$v/bin/set_env.bash"
"""

if tool == "cmake":
    args = sys.argv[1:]
    sys.exit(configure(args) if "-S" in args else build(args))
# a C++ compiler (the cann-syntax check)
units = [a for a in sys.argv[1:] if a.endswith((".cpp", ".asc", ".cc")) and not a.startswith("-")]
sys.exit(1 if compile_errors(units) else 0)
'''


def _executable(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IEXEC | stat.S_IXGRP | stat.S_IXOTH)
    return path


def fake_tool(path: Path) -> Path:
    text = FAKE_TOOL.replace("__PYTHON__", sys.executable).replace("__CANNED__", repr(json.dumps(CANNED)))
    return _executable(path, text)


def make_fake_cann(root: Path, version: str = "8.1.RC1", *, asc: bool = False, kernel_cmake: bool = True) -> Path:
    """A directory shaped like a CANN toolkit: `asc` adds ASCConfig.cmake (the CANN 9 flow), `kernel_cmake`
    the CANN 8 ascendc_kernel_cmake modules. bin/ holds the fake cmake; set_env.sh puts it on PATH."""
    (root / "compiler").mkdir(parents=True, exist_ok=True)
    (root / "compiler" / "version.info").write_text(f"Version={version}\nversion_dir=cann-{version}\n")
    for d in ("include/acl", "include/register", "include/tiling/platform", "lib64", "opp/built-in",
              "compiler/tikcpp/tikcfw/impl", "compiler/tikcpp/tikcfw/interface", "tools/tikicpulib/lib/include"):
        (root / d).mkdir(parents=True, exist_ok=True)
    if kernel_cmake:
        kdir = root / "compiler/tikcpp/ascendc_kernel_cmake"
        kdir.mkdir(parents=True, exist_ok=True)
        (kdir / "ascendc.cmake").write_text("# fake ascendc.cmake: defines ascendc_library()\n")
    if asc:
        (root / "lib64/cmake/ASC").mkdir(parents=True, exist_ok=True)
        (root / "lib64/cmake/ASC/ASCConfig.cmake").write_text("# fake ASCConfig.cmake\n")
    template = root / "tools/op_project_templates/ascendc/customize"
    for part in ("cmake", "scripts"):
        (template / part).mkdir(parents=True, exist_ok=True)
        (template / part / "README").write_text(f"fake msopgen template {part}\n")
    fake_tool(root / "bin" / "cmake")
    (root / "set_env.sh").write_text(
        f'export ASCEND_HOME_PATH="{root}"\nexport ASCEND_TOOLKIT_HOME="{root}"\n'
        f'export ASCEND_OPP_PATH="{root}/opp"\nexport PATH="{root}/bin:$PATH"\n'
        f'export LD_LIBRARY_PATH="{root}/lib64:${{LD_LIBRARY_PATH:-}}"\nexport KW_FAKE_SET_ENV=sourced\n')
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
