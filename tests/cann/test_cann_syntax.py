"""The `cann-syntax` backend: compile checks against an installed CANN's headers with the CPU twin's
defines and include dirs (ascendc-api.md §14.2). With a recording fake compiler: the command lines,
dtype variants and the generated kernel-side tiling struct of msopgen projects. With the real g++
and a minimal stand-in kernel_operator.h: that those flags compile a kernel, and that g++'s
messages come back located and categorised."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import cann_fakes as fk  # noqa: E402

from kernelwright.tools.cann.syntax import CannSyntaxToolchain
from kernelwright.tools.cann.tiling_text import kernel_tiling_header, parse_tiling
from kernelwright.tools.project import KernelProject
from kernelwright.tools.toolchain import Case

FIXTURE = Path(__file__).resolve().parents[1] / "referee" / "fixtures" / "add_scale"
STUB_HEADER = r'''#pragma once
#if !defined(ASCENDC_CPU_DEBUG) || !defined(__CCE_KT_TEST__) || __CCE_AICORE__ != 220 || !defined(__DAV_C220__)
#error "the CPU-twin defines are missing"
#endif
#include <cstdint>
#define __aicore__
#define __global__
#define __gm__
#define GM_ADDR uint8_t*
namespace AscendC {
template <typename T> struct GlobalTensor { void SetGlobalBuffer(T* p, uint64_t n) { (void)p; (void)n; } };
inline int64_t GetBlockIdx() { return 0; }
}
'''


@pytest.fixture
def cann(tmp_path, monkeypatch):
    root = fk.make_fake_cann(tmp_path / "Ascend/ascend-toolkit/latest", "8.1.RC1")
    (root / "compiler/tikcpp/tikcfw/kernel_operator.h").write_text(STUB_HEADER)
    fk.fake_env(monkeypatch, root, tmp_path / "tools.log", tmp_path / "home")
    return root


def fake_cxx(tmp_path: Path) -> str:
    return str(fk.fake_tool(tmp_path / "fakebin" / "fake-cxx"))


def compiles(tmp_path: Path) -> list[dict]:
    return [e for e in fk.read_log(tmp_path / "tools.log") if e["tool"] == "fake-cxx"]


def test_kernel_launch_flags_defines_and_includes(cann, tmp_path):
    text = fk.ADD_KERNEL + "void run(void* s, uint8_t* x) { add_scaled<<<8, nullptr, s>>>(x, x, x, 1, 1.0f); }\n"
    p = KernelProject(name="add_scaled", kind="kernel_launch", files={"k/add_scaled.asc": text})
    r = CannSyntaxToolchain(soc="Ascend910B2", compiler=fake_cxx(tmp_path)).build(p)
    assert r.ok and r.toolchain == "cann-syntax" and r.kernels == ["add_scaled"]
    [call] = compiles(tmp_path)
    argv = call["argv"]
    for flag in ("-std=c++17", "-fsyntax-only", "-D__CCE_AICORE__=220", "-D__DAV_C220__", "-D_GLIBCXX_USE_CXX11_ABI=0",
                 "-D__CCE_KT_TEST__=1", "-DASCENDC_CPU_DEBUG=1", "-DASCENDC_DEBUG=1",
                 f"-I{cann}/compiler/tikcpp/tikcfw", f"-I{cann}/compiler/tikcpp/tikcfw/impl",
                 f"-I{cann}/compiler/tikcpp/tikcfw/interface", f"-I{cann}/tools/tikicpulib/lib/include"):
        assert flag in argv, flag
    assert argv[argv.index("-x") + 1] == "c++" and argv[-1].endswith("k/add_scaled.asc")
    checked = Path(argv[-1]).read_text() if Path(argv[-1]).exists() else None
    assert checked is None or "<<<" not in checked        # the scratch directory is removed after the check
    assert not list((tmp_path / "home" / "cann").glob("syntax-*"))


def test_310p_defines(cann, tmp_path):
    p = KernelProject(name="add_scaled", kind="kernel_launch", files={"a.cpp": fk.ADD_KERNEL})
    CannSyntaxToolchain(soc="Ascend310P3", compiler=fake_cxx(tmp_path)).build(p)
    argv = compiles(tmp_path)[0]["argv"]
    assert "-D__CCE_AICORE__=200" in argv and "-D__DAV_M200__" in argv


def test_msopgen_host_and_every_dtype_variant(cann, tmp_path):
    p = KernelProject.from_path(FIXTURE)
    r = CannSyntaxToolchain(soc="Ascend910B2", compiler=fake_cxx(tmp_path)).build(p)
    assert r.ok, [d.render() for d in r.diagnostics]
    assert r.variants == ["X=float,Y=float,Z=float", "X=half,Y=half,Z=half"] and r.op.op_type == "AddScale"
    calls = compiles(tmp_path)
    host = [c for c in calls if c["argv"][-1].endswith("op_host/add_scale.cpp")]
    kernels = [c for c in calls if "kernel_v" in c["argv"][-1]]
    assert len(host) == 1 and len(kernels) == 2
    assert f"-I{cann}/include" in host[0]["argv"] and "-DASCENDC_CPU_DEBUG=1" not in host[0]["argv"]
    assert all("-DASCENDC_CPU_DEBUG=1" in k["argv"] for k in kernels)


def test_msopgen_error_in_one_variant_is_reported_once(cann, tmp_path):
    p = KernelProject.from_path(FIXTURE)
    lines = p.files["op_kernel/add_scale.cpp"].splitlines()
    lines[8] += "  // KW_FAKE_ERROR(adds)"
    p.files["op_kernel/add_scale.cpp"] = "\n".join(lines) + "\n"
    r = CannSyntaxToolchain(soc="Ascend910B2", compiler=fake_cxx(tmp_path)).build(p)
    assert r.status == "compile_error"
    [d] = r.errors()
    assert (d.file, d.line, d.symbol, d.category) == ("op_kernel/add_scale.cpp", 9, "Adds", "data_type")


def test_kernel_tiling_header():
    text = (FIXTURE / "op_host" / "add_scale_tiling.h").read_text() + """
BEGIN_TILING_DATA_DEF(Inner)
  TILING_DATA_FIELD_DEF_ARR(uint16_t, 3, dims);
END_TILING_DATA_DEF;
BEGIN_TILING_DATA_DEF(Outer)  // TILING_DATA_FIELD_DEF(int, commented_out)
  TILING_DATA_FIELD_DEF_STRUCT(Inner, inner);
  TILING_DATA_FIELD_DEF_STRUCT(SoftMaxTiling, sm);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(Other, Outer)
"""
    classes, registered = parse_tiling(text)
    assert [c.name for c in classes] == ["AddScaleTilingData", "Inner", "Outer"]
    assert registered == {"AddScale": "AddScaleTilingData", "Other": "Outer"}
    assert classes[2].fields == ["Inner inner;", "SoftMaxTiling sm;"]
    h = kernel_tiling_header("Other", text)
    assert h.index("struct Inner {") < h.index("struct Outer {") and "uint16_t dims[3];" in h
    assert "#define GET_TILING_DATA(d, t) Outer d;" in h and "kernel_tiling/kernel_tiling.h" in h


def test_no_cann_headers_or_no_run(cann, tmp_path):
    (cann / "compiler/tikcpp/tikcfw/kernel_operator.h").unlink()
    p = KernelProject(name="add_scaled", kind="kernel_launch", files={"a.cpp": fk.ADD_KERNEL})
    r = CannSyntaxToolchain(compiler=fake_cxx(tmp_path)).build(p)
    assert r.status == "environment_error" and "kernel_operator.h" in r.diagnostics[0].message
    run = CannSyntaxToolchain().run(r, Case())
    assert run.status == "host_error" and "only compile-checks" in run.detail


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_real_gxx_accepts_a_kernel_and_locates_its_errors(cann):
    good = KernelProject(name="add_scaled", kind="kernel_launch", files={"add_scaled.cpp": fk.ADD_KERNEL})
    r = CannSyntaxToolchain(soc="Ascend910B2", compiler="g++").build(good)
    assert r.ok, [d.render() for d in r.diagnostics] + [r.log]
    bad_text = fk.ADD_KERNEL.replace("    xg.SetGlobalBuffer", "    AscendC::FooBar(x);\n    xg.SetGlobalBuffer")
    bad = CannSyntaxToolchain(soc="Ascend910B2", compiler="g++").build(
        KernelProject(name="add_scaled", kind="kernel_launch", files={"add_scaled.cpp": bad_text}))
    assert bad.status == "compile_error"
    d = bad.errors()[0]
    assert (d.file, d.line, d.category, d.symbol) == ("add_scaled.cpp", 6, "api_signature", "FooBar")
    assert "'FooBar' is not a member of 'AscendC'" in d.message


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_generated_tiling_header_compiles_with_gxx(tmp_path):
    (tmp_path / "kernel_operator.h").write_text(STUB_HEADER)
    (tmp_path / "h.h").write_text(kernel_tiling_header("AddScale", (FIXTURE / "op_host/add_scale_tiling.h").read_text()))
    (tmp_path / "k.cpp").write_text('#include "h.h"\n#define DTYPE_X float\n'
                                    "extern \"C\" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR tiling) {\n"
                                    "    GET_TILING_DATA(t, tiling);\n    DTYPE_X v = t.scale * t.total + t.tile;\n"
                                    "    (void)v; (void)x;\n}\n")
    defines = ["-D__CCE_AICORE__=220", "-D__DAV_C220__", "-D__CCE_KT_TEST__=1", "-DASCENDC_CPU_DEBUG=1"]
    r = subprocess.run(["g++", "-std=c++17", "-fsyntax-only", *defines, f"-I{tmp_path}", str(tmp_path / "k.cpp")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
