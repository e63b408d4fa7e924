"""The `cann` backend's kernel-launch builds against a fake CANN tree and a fake cmake that records
what it is asked: the generated CMake projects (ascendc_library on CANN 8, .asc + find_package(ASC)
on CANN 9.1), the launchers, the commands, flags, paths and environment, compiler messages parsed
into diagnostics (the texts of ascendc-api.md §15.1), caching, and that nothing is written outside
the build directory."""
from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import cann_fakes as fk  # noqa: E402

from kernelwright.tools.cann.toolchain import CannToolchain
from kernelwright.tools.project import KernelProject


def launch_project(text: str = fk.ADD_KERNEL, name: str = "add_scaled.cpp") -> KernelProject:
    return KernelProject(name="add_scaled", kind="kernel_launch", files={name: text, "common.h": "#pragma once\n"})


def cmake_calls(tmp_path: Path) -> list[dict]:
    return [e for e in fk.read_log(tmp_path / "tools.log") if e["tool"] == "cmake"]


def test_cann8_ascendc_library_build(cann8, tmp_path):
    r = CannToolchain(soc="Ascend910B2").build(launch_project())
    assert r.ok, [d.render() for d in r.diagnostics]
    assert r.toolchain == "cann" and r.kernels == ["add_scaled"] and "ascendc_library" in r.compiler
    lib, entry = Path(r.artifacts["library"]), Path(r.artifacts["library"]).parents[2]
    assert lib.is_file() and lib.name == "libkw_launch.so" and entry.parent == tmp_path / "home" / "cann"
    configure, build = cmake_calls(tmp_path)
    scratch = Path(configure["argv"][3]).parent      # built in a scratch sibling, renamed into the cache when done
    assert scratch.parent == entry.parent and scratch.name.startswith(f".{entry.name}.")
    # the generator is pinned: 8.1's ascendc_library reads CMakeFiles/<target>.dir/link.txt (Makefiles only)
    assert configure["argv"][:6] == ["-G", "Unix Makefiles", "-S", str(scratch / "cmake"), "-B", str(scratch / "build")]
    assert "-DSOC_VERSION=Ascend910B2" in configure["argv"] and "-DRUN_MODE=npu" in configure["argv"]
    assert build["argv"][:2] == ["--build", str(scratch / "build")] and "-j" in build["argv"]
    assert not scratch.exists()
    for call in (configure, build):
        assert call["env"]["KW_FAKE_SET_ENV"] == "sourced"           # set_env.sh was sourced for the tools
        assert call["env"]["ASCEND_HOME_PATH"] == str(cann8)
        assert Path(call["cwd"]) == scratch
    cm = (entry / "cmake" / "CMakeLists.txt").read_text()
    assert f'set(ASCENDC_CMAKE_DIR "{cann8}/compiler/tikcpp/ascendc_kernel_cmake")' in cm
    assert "include(${ASCENDC_CMAKE_DIR}/ascendc.cmake)" in cm and "ascendc_library(kw_kernels STATIC" in cm
    assert "-Wl,--whole-archive kw_kernels -Wl,--no-whole-archive" in cm and "add_library(kw_launch SHARED" in cm
    assert "install(" not in cm
    unit = (entry / "launch" / "kw_launch_0.cpp").read_text()
    assert f'#include "{scratch / "src" / "add_scaled.cpp"}"' in unit
    assert ('add_scaled<<<blockDim, nullptr, stream>>>((GM_ADDR)args[0], (GM_ADDR)args[1], (GM_ADDR)args[2], '
            '*reinterpret_cast<uint32_t*>(args[3]), *reinterpret_cast<float*>(args[4]));') in unit
    assert 'extern "C" int32_t kw_launch_add_scaled(uint32_t blockDim, void* stream, void** args)' in unit
    launchers = Path(r.artifacts["launchers"]).read_text()
    assert '"fmt": "I"' in launchers and '"fmt": "f"' in launchers


def test_cache_hit_runs_no_tool(cann8, tmp_path):
    tc = CannToolchain(soc="Ascend910B2")
    first = tc.build(launch_project())
    n = len(cmake_calls(tmp_path))
    again = tc.build(launch_project())
    assert again.cache_hits == 1 and again.artifacts == first.artifacts and len(cmake_calls(tmp_path)) == n
    other_soc = tc.build(launch_project(), soc="Ascend910B4")
    assert other_soc.ok and other_soc.artifacts["library"] != first.artifacts["library"]


def test_cann91_asc_build(cann91, tmp_path):
    text = fk.ADD_KERNEL + "\n// ===== ASCEND_HOST_SECTION =====\n#include <torch/extension.h>\nTORCH_LIBRARY(x, m) {}\n"
    r = CannToolchain(soc="Ascend910B3").build(launch_project(text, "custom_op.asc"))
    assert r.ok, [d.render() for d in r.diagnostics]
    entry = Path(r.artifacts["library"]).parents[2]
    configure = cmake_calls(tmp_path)[0]
    assert "-DCMAKE_ASC_ARCHITECTURES=dav-2201" in configure["argv"] and "-DCMAKE_ASC_RUN_MODE=npu" in configure["argv"]
    # asc-config.cmake is where CANN 9 installs it; found as asc-devkit's scripts point at it
    assert f"-DASC_DIR={cann91}/lib64/cmake" in configure["argv"]
    assert f"{cann91}/lib64/cmake" in configure["env"]["CMAKE_PREFIX_PATH"].split(":")
    cm = (entry / "cmake" / "CMakeLists.txt").read_text()
    assert cm.index("find_package(ASC REQUIRED)") < cm.index("project(kw_kernels LANGUAGES ASC CXX)")
    assert "$<$<COMPILE_LANGUAGE:ASC>:--npu-arch=dav-2201>" in cm and "ascendc_library" not in cm
    unit = (entry / "launch" / "kw_launch_0.asc").read_text()
    assert "add_scaled<<<blockDim, 0, stream>>>(" in unit
    src = (entry / "src" / "custom_op.asc").read_text()
    assert "TORCH_LIBRARY" not in src and src.count("\n") == text.count("\n")   # host section dropped, lines kept


def test_missing_asc_package_is_an_environment_error_and_not_cached(cann91, tmp_path, monkeypatch):
    (cann91 / "lib64/cmake/asc-config.cmake").unlink()
    tc = CannToolchain(soc="Ascend910B2", flow="asc")
    r = tc.build(launch_project())
    assert r.status == "environment_error"
    d = r.diagnostics[0]
    assert "CMake configure failed" in d.message and "CMake Error at CMakeLists.txt:3 (find_package)" in d.message
    assert "set_env.sh" in d.hint
    tc.build(launch_project())
    assert len([c for c in cmake_calls(tmp_path) if "-S" in c["argv"]]) == 2   # tried again: not cached


@pytest.mark.parametrize("marker, category, symbol", [("no_member", "api_signature", "FooBar"),
                                                      ("adds", "data_type", "Adds"),
                                                      ("narrowing", "data_type", None)])
def test_compiler_errors_become_located_diagnostics(cann8, marker, category, symbol):
    text = fk.ADD_KERNEL.replace("    xg.SetGlobalBuffer", f"    AscendC::Foo(); // KW_FAKE_ERROR({marker})\n    xg.SetGlobalBuffer")
    r = CannToolchain(soc="Ascend910B2").build(launch_project(text))
    assert r.status == "compile_error"
    [d] = r.errors()
    assert (d.file, d.line, d.category) == ("add_scaled.cpp", 6, category)
    if symbol:
        assert d.symbol == symbol
    if marker == "adds":
        assert any("<CANN>/compiler/tikcpp/tikcfw/interface/kernel_operator_vec_binary_scalar_intf.h:40" in n
                   and "deduced conflicting types" in n for n in d.notes)


def test_error_inside_cann_headers_points_at_the_users_call(cann8):
    text = fk.ADD_KERNEL.replace("    xg.SetGlobalBuffer", "    pipe.InitBuffer(tbuf, 2, 1024); // KW_FAKE_ERROR(tbuf)\n"
                                                          "    xg.SetGlobalBuffer")
    r = CannToolchain(soc="Ascend910B2").build(launch_project(text))
    [d] = r.errors()
    assert (d.file, d.line, d.category) == ("add_scaled.cpp", 6, "memory_object")
    assert "not supports T as TBuf" in d.message


def test_warnings_in_user_code_are_kept_and_do_not_fail(cann8):
    text = fk.ADD_KERNEL.replace("    xg.SetGlobalBuffer", "    DataCopyPad(zg, t, p); // KW_FAKE_ERROR(deprecated)\n"
                                                          "    xg.SetGlobalBuffer")
    r = CannToolchain(soc="Ascend310P3").build(launch_project(text))
    assert r.ok
    [w] = r.diagnostics
    assert w.severity == "warning" and "unsupported API on current device" in w.message and w.line == 6


def test_compile_errors_are_cached(cann8, tmp_path):
    text = fk.ADD_KERNEL.replace("    xg.SetGlobalBuffer", "    x; // KW_FAKE_ERROR(no_member)\n    xg.SetGlobalBuffer")
    tc = CannToolchain(soc="Ascend910B2")
    assert tc.build(launch_project(text)).status == "compile_error"
    n = len(cmake_calls(tmp_path))
    again = tc.build(launch_project(text))
    assert again.status == "compile_error" and again.cache_hits == 1 and len(cmake_calls(tmp_path)) == n


def test_no_writes_outside_the_build_directory(cann8, tmp_path):
    before = fk.snapshot(cann8)
    outside = sorted(p for p in tmp_path.iterdir() if p.name not in ("home", "tools.log"))
    r = CannToolchain(soc="Ascend910B2").build(launch_project())
    assert r.ok
    assert fk.snapshot(cann8) == before                          # the install (and its opp/) untouched
    assert sorted(p for p in tmp_path.iterdir() if p.name not in ("home", "tools.log")) == outside
    for call in cmake_calls(tmp_path):
        for arg in call["argv"]:
            if arg.startswith("/") and not arg.startswith(str(cann8)):
                assert arg.startswith(str(tmp_path / "home" / "cann")), arg


def test_parallel_builds_do_not_share_directories(cann8):
    tc = CannToolchain(soc="Ascend910B2")
    projects = [launch_project(fk.ADD_KERNEL + f"\n// variant {i}\n") for i in range(4)]
    results = [None] * 4

    def build(i: int) -> None:
        results[i] = tc.build(projects[i])

    threads = [threading.Thread(target=build, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(r.ok for r in results)
    assert len({r.artifacts["library"] for r in results}) == 4


def test_environment_problems_are_verdicts_not_tracebacks(cann8, tmp_path, monkeypatch):
    assert "opt-in" in CannToolchain(soc="Ascend910B2").build(
        KernelProject.from_path(Path(__file__).parents[1] / "referee/fixtures/add_scale")).diagnostics[0].message
    template = launch_project(fk.ADD_KERNEL.replace("extern \"C\" __global__", "template <typename T> __global__"))
    r = CannToolchain(soc="Ascend910B2").build(template)
    assert r.status == "compile_error" and "only template kernels" in r.diagnostics[0].message
    monkeypatch.setenv("ASCEND_HOME_PATH", str(tmp_path / "nowhere"))
    monkeypatch.setattr("kernelwright.tools.cann.detect.DEFAULT_ROOTS", [])
    r = CannToolchain(soc="Ascend910B2").build(launch_project())
    assert r.status == "environment_error" and "no CANN toolkit found" in r.diagnostics[0].message


def test_paths_in_messages(tmp_path):
    from kernelwright.tools.cann.steps import CannPathMapper
    m = CannPathMapper(tmp_path / "b" / "src", tmp_path / "cann", tmp_path / "b")
    assert m.display(str(tmp_path / "b" / "src" / "k.cpp")) == "k.cpp"
    assert m.display(str(tmp_path / "cann" / "compiler" / "x.h")) == "<CANN>/compiler/x.h"
    assert m.display(str(tmp_path / "b" / "launch" / "kw_launch_0.cpp")) == "<build>/launch/kw_launch_0.cpp"
    assert m.display("/usr/include/c++/12/vector") == "/usr/include/c++/12/vector"
