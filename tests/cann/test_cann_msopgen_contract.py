"""The opt-in msopgen compatibility mode against a fake CANN tree: the exported project is built with
its build.sh, the package installs into the build's private OPP directory (never $ASCEND_OPP_PATH),
the aclnn launcher is generated for the operator's prototype, and the worker of such a build sees
ASCEND_CUSTOM_OPP_PATH pointed at the private vendor directory."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import cann_fakes as fk  # noqa: E402

from kernelwright.tools.cann.aclnn_gen import UnsupportedOp, aclnn_source
from kernelwright.tools.cann.toolchain import CannToolchain
from kernelwright.tools.opspec import OpAttr, OpParam, OpSpec
from kernelwright.tools.project import KernelProject
from kernelwright.tools.toolchain import Case, OutputSpec

FIXTURE = Path(__file__).resolve().parents[1] / "referee" / "fixtures" / "add_scale"


def test_private_opp_install_and_aclnn_launcher(cann8, tmp_path):
    before = fk.snapshot(cann8)
    r = CannToolchain(soc="Ascend910B2", msopgen=True).build(KernelProject.from_path(FIXTURE))
    assert r.ok, [d.render() for d in r.diagnostics] + [r.log]
    entry = Path(r.artifacts["aclnn_library"]).parents[3]
    vendor = Path(r.artifacts["opp_vendor_dir"])
    assert vendor == entry / "opp" / "vendors" / "customize"
    assert (vendor / "op_api" / "lib" / "libcust_opapi.so").is_file()
    assert (vendor / "op_api" / "include" / "aclnn_add_scale.h").is_file()
    assert fk.snapshot(cann8) == before and not (cann8 / "opp" / "vendors").exists()   # nothing installed globally
    log = fk.read_log(tmp_path / "tools.log")
    [installer] = [e for e in log if e["tool"] == "installer"]
    assert "--quiet" in installer["argv"] and "--install-path=" in installer["argv"]
    assert installer["argv"].split("--install-path=")[1].split()[0].endswith("/opp")
    configure = next(e for e in log if e["tool"] == "cmake" and "-S" in e["argv"])
    assert f"-DASCEND_CANN_PACKAGE_PATH={cann8}" in configure["argv"] and "-Dvendor_name=customize" in configure["argv"]
    assert "-DASCEND_COMPUTE_UNIT=ascend910b" in configure["argv"]
    # the operator definition comes back as the sim's does (an OpSpec), so the referee binds cases the same way
    assert r.op.op_type == "AddScale" and [p.name for p in r.op.inputs] == ["x", "y"]
    assert r.op.inputs[0].dtypes == ["float32", "float16"] and r.op.attrs[0].name == "scale"
    assert r.kernels == ["add_scale"] and len(r.variants) == 2
    src = (entry / "aclnn" / "kw_aclnn.cpp").read_text()
    assert '#if __has_include("aclnn_add_scale.h")' in src
    assert "aclnnAddScaleGetWorkspaceSize(t[0], t[1], *static_cast<double*>(attrs[0]), t[2], &ws, &exec)" in src
    assert "aclnnAddScale(ws ? workspace : nullptr, ws, exec, static_cast<aclrtStream>(stream))" in src
    cm = (entry / "aclnn" / "CMakeLists.txt").read_text()
    assert "target_link_libraries(kw_aclnn PRIVATE cust_opapi nnopbase ascendcl)" in cm
    assert '/opp/vendors/customize/op_api/include"' in cm and '/opp/vendors/customize/op_api/lib"' in cm


def test_worker_of_an_msopgen_build_sees_the_private_opp(cann8, tmp_path, monkeypatch):
    state = tmp_path / "state"
    state.mkdir()
    monkeypatch.setenv("KW_FAKE_STATE", str(state))
    monkeypatch.setenv("ASCEND_CUSTOM_OPP_PATH", "/global/vendors/other")
    tc = CannToolchain(soc="Ascend910B2", msopgen=True, device=2,
                       worker_command=[sys.executable, str(Path(__file__).with_name("fake_worker.py"))])
    r = tc.build(KernelProject.from_path(FIXTURE))
    x = np.ones((4, 8), np.float32)
    run = tc.run(r, Case(inputs={"x": x, "y": x}, outputs={"z": OutputSpec(shape=(4, 8), dtype="float32")}))
    tc.close()
    assert run.status == "ok", run.detail
    pid, device, opp = (state / "starts").read_text().split()
    assert device == "2" and opp.split(":") == [r.artifacts["opp_vendor_dir"], "/global/vendors/other"]


def test_compile_error_in_op_kernel_is_located(cann8, tmp_path):
    p = KernelProject.from_path(FIXTURE)
    kernel = "op_kernel/add_scale.cpp"
    lines = p.files[kernel].splitlines()
    lines[5] += "  // KW_FAKE_ERROR(no_member)"
    p.files[kernel] = "\n".join(lines) + "\n"
    r = CannToolchain(soc="Ascend910B2", msopgen=True).build(p)
    assert r.status == "compile_error"
    errors = r.errors()
    assert errors and errors[0].file == kernel and errors[0].line == 6 and errors[0].category == "api_signature"
    assert not any(e["tool"] == "installer" for e in fk.read_log(tmp_path / "tools.log"))


def test_missing_msopgen_template_is_an_environment_error(cann8):
    import shutil
    shutil.rmtree(cann8 / "tools" / "op_project_templates")
    r = CannToolchain(soc="Ascend910B2", msopgen=True).build(KernelProject.from_path(FIXTURE))
    assert r.status == "environment_error" and "op_project_templates/ascendc/customize" in r.diagnostics[0].message
    assert "npu_op_package" in r.diagnostics[0].message and "doctor" in r.diagnostics[0].hint


def test_aclnn_launcher_orders_inputs_attrs_outputs_and_refuses_tensor_lists():
    spec = OpSpec(inputs=[OpParam(name="x", dtypes=["float16"]), OpParam(name="bias", param_type="optional", dtypes=["float16"])],
                  outputs=[OpParam(name="y", dtypes=["float16"]), OpParam(name="idx", dtypes=["int32"])],
                  attrs=[OpAttr(name="axes", type="list_int"), OpAttr(name="keep", type="bool"),
                         OpAttr(name="mode", type="string"), OpAttr(name="eps", type="float")])
    src = aclnn_source("TopKish", spec)
    assert ("aclnnTopKishGetWorkspaceSize(t[0], t[1], a0, (*static_cast<uint8_t*>(attrs[1]) != 0), "
            "static_cast<char*>(attrs[2]), *static_cast<double*>(attrs[3]), t[2], t[3], &ws, &exec)") in src
    assert "aclCreateIntArray(static_cast<const int64_t*>(attrs[0]), static_cast<uint64_t>(attr_lens[0]))" in src
    assert '__has_include("aclnn_top_kish.h")' in src
    assert ('aclnnStatus aclnnTopKishGetWorkspaceSize(const aclTensor* x, const aclTensor* bias, const aclIntArray* axes, '
            'bool keep, char* mode, double eps, aclTensor* y, aclTensor* idx, uint64_t* workspaceSize, '
            'aclOpExecutor** executor);') in src
    with pytest.raises(UnsupportedOp, match="dynamic"):
        aclnn_source("Cat", OpSpec(inputs=[OpParam(name="xs", param_type="dynamic", dtypes=["float16"])]))


ACL_STUB = "#pragma once\n#include <cstdint>\ntypedef void* aclrtStream;\ninline const char* aclGetRecentErrMsg() { return \"\"; }\n"
META_STUB = """#pragma once
#include <cstdint>
struct aclTensor; struct aclIntArray; struct aclFloatArray; struct aclBoolArray; struct aclOpExecutor;
typedef int32_t aclnnStatus;
enum aclDataType { ACL_FLOAT = 0 };
enum aclFormat { ACL_FORMAT_ND = 2 };
aclTensor* aclCreateTensor(const int64_t*, uint64_t, aclDataType, const int64_t*, int64_t, aclFormat, const int64_t*,
                           uint64_t, void*);
int aclDestroyTensor(const aclTensor*);
aclIntArray* aclCreateIntArray(const int64_t*, uint64_t);
int aclDestroyIntArray(const aclIntArray*);
"""


@pytest.mark.skipif(__import__("shutil").which("g++") is None, reason="needs g++")
@pytest.mark.parametrize("with_header", [True, False])
def test_aclnn_launcher_compiles_with_or_without_the_generated_header(tmp_path, with_header):
    """The aclnn header's file name for op types with digits or acronyms is not known; the launcher uses
    it when it is where we expect it and otherwise declares the two C functions from the prototype."""
    import subprocess
    spec = OpSpec(inputs=[OpParam(name="x", dtypes=["float16"])], outputs=[OpParam(name="y", dtypes=["float16"])],
                  attrs=[OpAttr(name="axes", type="list_int"), OpAttr(name="eps", type="float"),
                         OpAttr(name="keep", type="bool")])
    (tmp_path / "acl").mkdir()
    (tmp_path / "aclnn").mkdir()
    (tmp_path / "acl" / "acl.h").write_text(ACL_STUB)
    (tmp_path / "aclnn" / "acl_meta.h").write_text(META_STUB)
    if with_header:       # as CANN generates it: C linkage, attributes between inputs and outputs
        (tmp_path / "aclnn_add2_d.h").write_text(
            '#pragma once\n#include "aclnn/acl_meta.h"\n#include "acl/acl.h"\nextern "C" {\naclnnStatus aclnnAdd2DGetWorkspace'
            'Size(const aclTensor* x, const aclIntArray* axes, double eps, bool keep, const aclTensor* out, '
            'uint64_t* workspaceSize, aclOpExecutor** executor);\naclnnStatus aclnnAdd2D(void* workspace, uint64_t '
            'workspaceSize, aclOpExecutor* executor, aclrtStream stream);\n}\n')
    (tmp_path / "kw_aclnn.cpp").write_text(aclnn_source("Add2D", spec))
    r = subprocess.run(["g++", "-std=c++17", "-fsyntax-only", f"-I{tmp_path}", str(tmp_path / "kw_aclnn.cpp")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert ("aclnn_add2_d.h not found; aclnnAdd2D declared from the operator's prototype" in r.stderr) != with_header
