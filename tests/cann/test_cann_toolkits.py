"""Issue 19's contracts, each against fakes shaped like the real CANN 8.1 and 9.1 trees (cann_fakes):
the version is the product version, read where the real files keep it; asc-config.cmake is found
where CANN 9 installs it; operator packages use the toolkit's own CMake functions (opbuild on 8,
npu_op_* on 9); the syntax check defines __NPU_ARCH__ and uses CANN 9's include dirs; op_host is
checked as the op-build step compiles it; the generator is pinned; paths are absolute; the driver's
libraries reach the tools and the worker; `kernelwright doctor` names the version and the flow."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import cann_fakes as fk  # noqa: E402

from kernelwright.agent.cli import main
from kernelwright.tools.cann.detect import cpu_debug_include_dirs, detect_cann
from kernelwright.tools.cann.env import cann_env
from kernelwright.tools.cann.syntax import CannSyntaxToolchain
from kernelwright.tools.cann.toolchain import CannToolchain
from kernelwright.tools.formats import cann as cann_format
from kernelwright.tools.project import KernelProject

FIXTURE = Path(__file__).resolve().parents[1] / "referee" / "fixtures" / "add_scale"


def tool_calls(tmp_path: Path, tool: str) -> list[dict]:
    return [e for e in fk.read_log(tmp_path / "tools.log") if e["tool"] == tool]


# ---- 3. version detection: the product version, not the internal one ----
def test_cann8_version_is_the_product_version_wherever_it_is_read(cann8):
    inst = detect_cann()
    assert (inst.version, inst.version_file.name) == ("8.1.RC1", "ascend_toolkit_install.info")
    (cann8 / fk.ARCH / "ascend_toolkit_install.info").unlink()
    inst = detect_cann()               # version.cfg: runtime_running_version=[7.7.0.1.238:8.1.RC1]
    assert (inst.version, inst.version_file.name) == ("8.1.RC1", "version.cfg")
    (cann8 / "version.cfg").unlink()
    inst = detect_cann()               # compiler/version.info: Version=7.7.0.1.238, version_dir=8.1.RC1
    assert (inst.version, inst.version_file.name) == ("8.1.RC1", "version.info")
    assert inst.flow == "ascendc_library"


def test_cann9_version_and_the_asc_switch(cann91):
    inst = detect_cann()
    assert inst.version == "9.1.0" and inst.flow == "asc" and ">= 9.1" in inst.launch_flow.why
    (cann91 / fk.ARCH / "ascend_toolkit_install.info").unlink()
    inst = detect_cann()               # share/info/runtime/version.info: Version=9.1.0
    assert (inst.version, inst.flow) == ("9.1.0", "asc") and "share/info/runtime" in str(inst.version_file)


@pytest.mark.parametrize("version, flow", [("9.2.0-beta.2", "asc"), ("9.0.0", "ascendc_library")])
def test_the_asc_flow_starts_at_9_1(tmp_path, version, flow):
    root = fk.make_fake_cann(tmp_path / "cann", version)
    assert detect_cann({"ASCEND_HOME_PATH": str(root)}).flow == flow


# ---- 4. asc-config.cmake where CANN 9 installs it ----
def test_asc_config_is_found_where_cann9_installs_it(tmp_path):
    root = fk.make_fake_cann(tmp_path / "cann", "9.1.0")
    assert detect_cann({"ASCEND_HOME_PATH": str(root)}).asc_config_dir == root / "lib64/cmake"
    (root / "lib64").unlink()          # without the lib64 link: <arch>-linux/lib64/cmake
    assert detect_cann({"ASCEND_HOME_PATH": str(root)}).asc_config_dir == root / fk.ARCH / "lib64/cmake"
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "ASCConfig.cmake").write_text("# a user's ASC package\n")
    assert detect_cann({"ASCEND_HOME_PATH": str(root), "ASC_DIR": str(mine)}).asc_config_dir == mine


def test_cann91_kernel_launch_build_finds_asc(cann91, tmp_path):
    r = CannToolchain(soc="Ascend910B2").build(KernelProject(name="add_scaled", kind="kernel_launch",
                                                             files={"add_scaled.asc": fk.ADD_KERNEL}))
    assert r.ok, [d.render() for d in r.diagnostics] + [r.log]
    [configure] = [c for c in tool_calls(tmp_path, "cmake") if "-S" in c["argv"]]
    assert f"-DASC_DIR={cann91}/lib64/cmake" in configure["argv"]


# ---- 1. operator packages with the toolkit's own CMake functions ----
def test_cann91_operator_package_uses_npu_op_functions(cann91, tmp_path):
    r = CannToolchain(soc="Ascend910B2", msopgen=True).build(KernelProject.from_path(FIXTURE))
    assert r.ok, [d.render() for d in r.diagnostics] + [r.log]
    assert "npu_op operator project" in r.compiler
    proj = Path(r.artifacts["src"])
    top, host, kernel = [(proj / f).read_text() for f in ("CMakeLists.txt", "op_host/CMakeLists.txt",
                                                          "op_kernel/CMakeLists.txt")]
    assert "find_package(ASC REQUIRED)" in top and "npu_op_package(${vendor_name}" in top
    assert "npu_op_code_gen(" in host and "npu_op_library(cust_opapi ACLNN" in host and "opbuild" not in host
    assert "OP_TYPE AddScale" in kernel and "KERNEL_FILE add_scale.cpp" in kernel and "add_kernels_compile" not in kernel
    assert not (proj / "cmake").exists()                      # nothing copied from an msopgen template
    [installer] = tool_calls(tmp_path, "installer")
    assert "--install-path=/" in installer["argv"]


def test_msopgen_cmake_against_cann9_modules_is_rejected_as_cmake_would(cann91, tmp_path):
    """The mismatch of issue 19 item 1, reproduced: CANN 8's op_host CMake on a CANN 9 toolkit."""
    project = KernelProject.from_path(FIXTURE)
    files = cann_format.render(project, flow="npu_op").files
    files["op_host/CMakeLists.txt"] = cann_format.render(project, flow="msopgen").files["op_host/CMakeLists.txt"]
    src = tmp_path / "proj"
    for rel, text in files.items():
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_text(text)
    env = cann_env(detect_cann())
    r = subprocess.run([str(cann91 / "bin" / "cmake"), "-S", str(src), "-B", str(src / "build")], env=env,
                       capture_output=True, text=True)
    assert r.returncode == 1 and 'Unknown CMake command "opbuild"' in r.stderr
    assert "op_host/CMakeLists.txt:3 (opbuild)" in r.stderr


def test_cann8_operator_package_keeps_the_msopgen_template(cann8, tmp_path):
    r = CannToolchain(soc="Ascend910B2", msopgen=True).build(KernelProject.from_path(FIXTURE))
    assert r.ok, [d.render() for d in r.diagnostics] + [r.log]
    proj = Path(r.artifacts["src"])
    assert "opbuild(OPS_SRC" in (proj / "op_host/CMakeLists.txt").read_text()
    assert (proj / "cmake" / "func.cmake").is_file()          # copied from tools/op_project_templates by build.sh


# ---- 6. op_host CMake as the 8.1 template builds it ----
def test_cann8_op_host_libraries_skip_group_proto_and_fallback():
    text = cann_format.render(KernelProject.from_path(FIXTURE), flow="msopgen").files["op_host/CMakeLists.txt"]
    code = "\n".join(line for line in text.splitlines() if not line.startswith("#"))
    assert "group_proto" not in code and "fallback_" not in code
    assert ("kw_host_library(cust_op_proto cust_opsproto_rt2.0 OP_PROTO_LIB ${KW_HOST_SOURCES} "
            "${ASCEND_AUTOGEN_PATH}/op_proto.cc)") in code
    assert "kw_host_library(cust_optiling cust_opmaster_rt2.0 OP_TILING_LIB ${KW_HOST_SOURCES})" in code


# ---- 2 and 5. the syntax check: __NPU_ARCH__, CANN 9's include dirs, op_host as the op build compiles it ----
def fake_cxx(tmp_path: Path) -> str:
    return str(fk.fake_tool(tmp_path / "fakebin" / "fake-cxx"))


def test_cann9_syntax_check_defines_npu_arch_and_uses_asc_include_dirs(cann91, tmp_path):
    (cann91 / "asc/include/kernel_operator.h").write_text("#pragma once\n")
    p = KernelProject(name="add_scaled", kind="kernel_launch", files={"a.cpp": fk.ADD_KERNEL})
    assert CannSyntaxToolchain(soc="Ascend910B2", compiler=fake_cxx(tmp_path)).build(p).ok
    CannSyntaxToolchain(soc="Ascend310P3", compiler=fake_cxx(tmp_path)).build(p)
    first, second = tool_calls(tmp_path, "fake-cxx")
    assert "-D__NPU_ARCH__=2201" in first["argv"] and "-D__NPU_ARCH__=2002" in second["argv"]
    dirs = [a[2:] for a in first["argv"] if a.startswith("-I")]
    for rel in ("asc/include", "asc/include/basic_api", "asc/impl/basic_api", "asc/impl/adv_api", "include"):
        assert str(cann91 / rel) in dirs, rel
    assert not any("tikcfw" in d for d in dirs)


def test_cann8_syntax_check_also_defines_npu_arch(cann8, tmp_path):
    (cann8 / "compiler/tikcpp/tikcfw/kernel_operator.h").write_text("#pragma once\n")
    p = KernelProject(name="add_scaled", kind="kernel_launch", files={"a.cpp": fk.ADD_KERNEL})
    assert CannSyntaxToolchain(soc="Ascend910B2", compiler=fake_cxx(tmp_path)).build(p).ok
    argv = tool_calls(tmp_path, "fake-cxx")[0]["argv"]
    assert "-D__NPU_ARCH__=2201" in argv and "-D__CCE_AICORE__=220" in argv
    assert str(cann8 / "compiler/tikcpp/tikcfw") in [a[2:] for a in argv if a.startswith("-I")]


@pytest.mark.parametrize("toolkit", ["cann8", "cann91"])
def test_op_host_is_checked_as_the_op_build_compiles_it(toolkit, request, tmp_path):
    root = request.getfixturevalue(toolkit)
    (root / ("asc/include" if toolkit == "cann91" else "compiler/tikcpp/tikcfw") / "kernel_operator.h").write_text("")
    r = CannSyntaxToolchain(soc="Ascend910B2", compiler=fake_cxx(tmp_path)).build(KernelProject.from_path(FIXTURE))
    assert r.ok, [d.render() for d in r.diagnostics]
    [host] = [c["argv"] for c in tool_calls(tmp_path, "fake-cxx") if c["argv"][-1].endswith("op_host/add_scale.cpp")]
    dirs = [a[2:] for a in host if a.startswith("-I")]
    assert "-std=c++11" in host and "-std=c++17" not in host and "-D_GLIBCXX_USE_CXX11_ABI=0" in host
    assert dirs[0] == str(root / "include") and not any(d.endswith("op_host") for d in dirs)
    # CANN 8's opbuild() adds -I op_kernel; CANN 9's compile_ascendc_all_ops_so.py does not
    assert any(d.endswith("/op_kernel") for d in dirs) == (toolkit == "cann8")


HOST_STUB = "#pragma once\nnamespace ge { struct OpDef {}; }\n"
TILING_SHARED = "#pragma once\nstruct SharedTiling { unsigned n; };\n"


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_op_host_check_with_gxx_accepts_good_and_rejects_bad_code(cann8):
    """-std=c++17 and no op_kernel dir rejected good host code and accepted bad: now both as 8.1 compiles."""
    (cann8 / "compiler/tikcpp/tikcfw/kernel_operator.h").write_text("#pragma once\n#define __aicore__\n#define __global__\n"
                                                                     "#include <cstdint>\n#define GM_ADDR uint8_t*\n")
    (cann8 / "include/register/op_def_registry.h").write_text(HOST_STUB)
    kernel = 'extern "C" __global__ __aicore__ void foo(GM_ADDR x) { (void)x; }\n'

    def check(host: str) -> object:
        files = {"op_host/foo.cpp": host, "op_kernel/foo.cpp": kernel, "op_kernel/foo_shared.h": TILING_SHARED}
        return CannSyntaxToolchain(soc="Ascend910B2", compiler="g++").build(
            KernelProject(name="Foo", kind="msopgen", files=files))

    good = check('#include "register/op_def_registry.h"\n#include "foo_shared.h"\nSharedTiling t{1};\n')
    assert good.ok, [d.render() for d in good.diagnostics]     # op_kernel's header found, as 8.1 finds it
    bad = check('#include "register/op_def_registry.h"\nauto twice(int x) { return 2 * x; }\n')
    assert bad.status == "compile_error" and bad.errors()[0].file == "op_host/foo.cpp"   # C++14 return deduction


# ---- 7. generator, absolute paths, driver libraries ----
def test_generator_is_pinned_even_when_the_environment_asks_for_ninja(cann8, tmp_path, monkeypatch):
    monkeypatch.setenv("CMAKE_GENERATOR", "Ninja")
    r = CannToolchain(soc="Ascend910B2").build(KernelProject(name="add_scaled", kind="kernel_launch",
                                                             files={"add_scaled.cpp": fk.ADD_KERNEL}))
    assert r.ok, [d.render() for d in r.diagnostics] + [r.log]   # the fake fails like recompile_binary.py without it
    [configure] = [c for c in tool_calls(tmp_path, "cmake") if "-S" in c["argv"]]
    assert configure["argv"][:2] == ["-G", "Unix Makefiles"]
    build_sh = cann_format.render(KernelProject.from_path(FIXTURE), flow="msopgen").files["build.sh"]
    assert 'cmake -G "Unix Makefiles" -S "$here"' in build_sh


def test_relative_kernelwright_home_gives_absolute_paths(cann8, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("KERNELWRIGHT_HOME", "relhome")
    r = CannToolchain(soc="Ascend910B2", msopgen=True).build(KernelProject.from_path(FIXTURE))
    assert r.ok, [d.render() for d in r.diagnostics] + [r.log]   # the installer refuses a relative --install-path
    [installer] = tool_calls(tmp_path, "installer")
    path = installer["argv"].split("--install-path=")[1].split()[0]
    assert path.startswith(str(tmp_path / "relhome"))
    assert all(Path(v).is_absolute() for v in r.artifacts.values())


@pytest.mark.parametrize("toolkit", ["cann8", "cann91"])
def test_driver_libraries_reach_the_tools_and_the_worker(toolkit, request, tmp_path):
    request.getfixturevalue(toolkit)
    driver = tmp_path / "Ascend" / "driver" / "lib64"
    env = cann_env(detect_cann())
    paths = env["LD_LIBRARY_PATH"].split(":")
    assert str(driver / "common") in paths and str(driver / "driver") in paths
    again = cann_env(detect_cann(), env)                        # already there: not added twice
    assert again["LD_LIBRARY_PATH"].split(":").count(str(driver / "driver")) == 1


# ---- doctor: the version, the flow and why ----
def doctor_row(capsys) -> dict:
    main(["doctor", "--json"])
    return {r["check"]: r for r in json.loads(capsys.readouterr().out)}["CANN toolkit"]


def test_doctor_on_cann81(cann8, capsys):
    row = doctor_row(capsys)
    assert row["status"] == "ok" and row["found"].startswith("CANN 8.1.RC1 at ")
    assert "ascend_toolkit_install.info" in row["found"] and "kernel-launch flow: ascendc_library" in row["found"]
    assert "< 9.1" in row["found"] and "msopgen template (tools/op_project_templates" in row["found"]


def test_doctor_on_cann91(cann91, capsys):
    row = doctor_row(capsys)
    assert row["status"] == "ok" and row["found"].startswith("CANN 9.1.0 at ")
    assert "kernel-launch flow: .asc + find_package(ASC) (CANN 9.1.0 >= 9.1" in row["found"]
    assert "finds lib64/cmake/asc-config.cmake" in row["found"] and "npu_op_* functions (compiler/tikcpp" in row["found"]


def test_cpu_debug_dirs_follow_the_header_layout(cann8, tmp_path):
    root9 = fk.make_fake_cann(tmp_path / "c9" / "cann", "9.1.0")
    (root9 / "asc/include/kernel_operator.h").write_text("")
    nine = cpu_debug_include_dirs(detect_cann({"ASCEND_HOME_PATH": str(root9)}))
    assert root9 / "asc/impl/basic_api" in nine and root9 / "compiler/tikcpp/tikcfw" not in nine
    assert cann8 / "compiler/tikcpp/tikcfw" in cpu_debug_include_dirs(detect_cann())
