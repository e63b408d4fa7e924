"""The real backend on a real Ascend host (skipped elsewhere; see README "The real backend"):
`cann` needs a CANN toolkit (ASCEND_HOME_PATH), `npu` an NPU with torch_npu. Run with
`source <CANN>/set_env.sh; pip install -e '.[npu]'; pytest -m "cann or npu" tests/cann`.

The first tests (`test_first_*`) try what no fake can answer (issue 19 item 8); their messages say
what a failure means and where to change the code."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from kernelwright.tools.cann.detect import detect_cann
from kernelwright.tools.cann.syntax import CannSyntaxToolchain
from kernelwright.tools.cann.toolchain import CannToolchain
from kernelwright.tools.project import KernelProject, LaunchSpec
from kernelwright.tools.timing import ReferenceSpec, TimingConfig
from kernelwright.tools.toolchain import ArgSpec, Case, OutputSpec

FIXTURES = Path(__file__).resolve().parents[1] / "referee" / "fixtures"
KERNEL = FIXTURES / "scale_add_kl" / "scale_add_kl.cpp"
OOB = '''#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void oob(GM_ADDR x, GM_ADDR z) {
    GlobalTensor<float> xg, zg;
    xg.SetGlobalBuffer((__gm__ float*)x + (1ull << 40), 64);
    zg.SetGlobalBuffer((__gm__ float*)z, 64);
    TPipe pipe;
    TBuf<QuePosition::VECCALC> buf;
    pipe.InitBuffer(buf, 256);
    LocalTensor<float> t = buf.Get<float>();
    DataCopy(t, xg, 64);
    PipeBarrier<PIPE_ALL>();
    DataCopy(zg, t, 64);
}
'''


# `__gm__` pointers and a by-value tiling struct: CANN 8.1's ascendc_library host stub turns `__gm__ T*`
# parameters into `void*` (ascendc_kernel_cmake/util/extract_host_stub.py: convert_to_void) and takes structs
# by pointer; our launcher passes `(__gm__ float*)args[i]` and `*reinterpret_cast<T*>(args[i])`.
GM_STRUCT = '''#include "kernel_operator.h"
using namespace AscendC;
struct KwScaleTiling { uint32_t n; float scale; };
extern "C" __global__ __aicore__ void gm_struct(__gm__ float* x, __gm__ float* z, KwScaleTiling t) {
    GlobalTensor<float> xg, zg;
    xg.SetGlobalBuffer(x, t.n);
    zg.SetGlobalBuffer(z, t.n);
    TPipe pipe;
    TBuf<QuePosition::VECCALC> buf;
    pipe.InitBuffer(buf, t.n * sizeof(float));
    LocalTensor<float> v = buf.Get<float>();
    DataCopy(v, xg, t.n);
    PipeBarrier<PIPE_ALL>();
    Muls(v, v, t.scale, t.n);
    PipeBarrier<PIPE_ALL>();
    DataCopy(zg, v, t.n);
}
'''
HOST_STUB_HINT = ("the {flow} kernel-launch build of a kernel taking `__gm__ float*` and a by-value struct failed: "
                  "on CANN 8.1 the ascendc_library host stub takes `void*` for __gm__ pointers and `T*` for structs, "
                  "while tools/cann/launch_gen.py (_arg) passes `(__gm__ float*)args[i]` and "
                  "`*reinterpret_cast<T*>(args[i])`; make _arg pass what the stub takes for this flow. Diagnostics: {d}")


@pytest.mark.cann
def test_first_gm_pointers_and_a_by_value_struct_through_the_launch_wrapper(tc):
    r = tc.build(KernelProject(name="gm_struct", kind="kernel_launch", files={"gm_struct.cpp": GM_STRUCT}))
    flow = (detect_cann().flow if detect_cann() else None)
    assert r.ok, HOST_STUB_HINT.format(flow=flow, d=[d.render() for d in r.diagnostics] + [r.log[-3000:]])


@pytest.mark.cann
@pytest.mark.npu
def test_first_gm_pointers_and_a_by_value_struct_arrive_on_the_device(tc):
    import struct as pack
    b = tc.build(KernelProject(name="gm_struct", kind="kernel_launch", files={"gm_struct.cpp": GM_STRUCT}))
    x = np.arange(64, dtype=np.float32)
    tiling = pack.pack("<If", 64, 0.5).hex()
    r = tc.run(b, Case(inputs={"x": x}, outputs={"z": OutputSpec(shape=(64,), dtype="float32")}, block_dim=1,
                       args=[ArgSpec(kind="tensor", name="x"), ArgSpec(kind="tensor", name="z"),
                             ArgSpec(kind="bytes", value=tiling)]))
    assert r.ok, f"the launch itself failed (a wrong argument layout faults or hangs): {r.detail}"
    np.testing.assert_allclose(r.outputs["z"], x * 0.5, err_msg="the struct arrived garbled: the host stub reads it "
                               "through a pointer (T*) and our launcher passes it by value (launch_gen._arg)")


@pytest.mark.cann
@pytest.mark.slow
def test_first_aclnn_header_name_for_an_op_type_with_digits_and_acronyms():
    """The package's aclnn header for `AddRMS2D`: we expect aclnn_<snake_case>.h (snake_case from
    tools/project.py); the launcher builds either way (it declares the functions itself when the header
    is not there), so this test reports the real name rule."""
    from kernelwright.tools.formats.naming import rename_op
    from kernelwright.tools.project import snake_case
    project = rename_op(KernelProject.from_path(FIXTURES / "add_scale"), "AddRMS2D")
    r = CannToolchain(msopgen=True).build(project)
    assert r.ok, [d.render() for d in r.diagnostics] + [r.log[-3000:]]
    headers = sorted(p.name for p in (Path(r.artifacts["opp_vendor_dir"]) / "op_api" / "include").glob("aclnn_*.h"))
    expected = f"aclnn_{snake_case('AddRMS2D')}.h"
    assert expected in headers, (f"the package names the header {headers}, we expected {expected}: change the header "
                                 "name rule in tools/cann/aclnn_gen.py (the build fell back to its own declarations)")


def scale_add_case(n: int = 1 << 16, scale: float = 0.75) -> Case:
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    return Case(inputs={"x": x, "y": y}, outputs={"z": OutputSpec(shape=(n,), dtype="float32")}, block_dim=8,
                args=[ArgSpec(kind="tensor", name="x"), ArgSpec(kind="tensor", name="y"), ArgSpec(kind="tensor", name="z"),
                      ArgSpec(kind="int", value=n), ArgSpec(kind="float", value=scale)])


@pytest.fixture(scope="module")
def tc():
    t = CannToolchain()
    yield t
    t.close()


@pytest.mark.cann
def test_real_build_and_compile_error(tc):
    r = tc.build(KernelProject.from_path(KERNEL))
    assert r.ok, [d.render() for d in r.diagnostics] + [r.log[-3000:]]
    assert Path(r.artifacts["library"]).is_file()
    bad = KERNEL.read_text().replace("    TPipe pipe;", "    AscendC::FooBar();\n    TPipe pipe;")
    rb = tc.build(KernelProject(name="scale_add_kl", kind="kernel_launch", files={"scale_add_kl.cpp": bad}))
    assert rb.status == "compile_error" and rb.errors()[0].file == "scale_add_kl.cpp"
    assert rb.errors()[0].category == "api_signature"


@pytest.mark.cann
def test_real_headers_accept_the_kernel():
    r = CannSyntaxToolchain().build(KernelProject.from_path(KERNEL))
    assert r.ok, [d.render() for d in r.diagnostics] + [r.log[-3000:]]


@pytest.mark.cann
@pytest.mark.slow
def test_real_msopgen_package_in_a_private_directory():
    r = CannToolchain(msopgen=True).build(KernelProject.from_path(FIXTURES / "add_scale"))
    assert r.ok, [d.render() for d in r.diagnostics] + [r.log[-3000:]]
    assert Path(r.artifacts["opp_vendor_dir"]).is_dir() and Path(r.artifacts["aclnn_library"]).is_file()


@pytest.mark.cann
@pytest.mark.npu
def test_real_run_matches_numpy_and_times(tc, tmp_path):
    b = tc.build(KernelProject.from_path(KERNEL))
    c = scale_add_case()
    r = tc.run(b, c)
    assert r.ok, r.detail
    np.testing.assert_allclose(r.outputs["z"], (c.inputs["x"] + c.inputs["y"]) * np.float32(0.75), rtol=1e-6, atol=1e-6)
    (tmp_path / "model.py").write_text("import torch\nclass Model(torch.nn.Module):\n    def forward(self, x, y):\n"
                                       "        return (x + y) * 0.75\n")
    t = tc.time(b, c, reference=ReferenceSpec(source=str(tmp_path / "model.py"),
                                             forward_args=[c.inputs["x"], c.inputs["y"]]),
                config=TimingConfig(warmup=5, trials=20))
    assert t.ok and t.kernel.n == 20 and t.reference is not None and t.speedup_median > 0, t.detail


@pytest.mark.cann
@pytest.mark.npu
def test_real_fault_then_next_case(tc):
    bad = tc.build(KernelProject(name="oob", kind="kernel_launch", files={"oob.cpp": OOB}))
    assert bad.ok, [d.render() for d in bad.diagnostics]
    x = np.zeros(64, np.float32)
    r = tc.run(bad, Case(inputs={"x": x}, outputs={"z": OutputSpec(shape=(64,), dtype="float32")}, block_dim=1,
                         args=[ArgSpec(kind="tensor", name="x"), ArgSpec(kind="tensor", name="z")]))
    assert r.status in ("rule_violation", "crash", "timeout") and r.errors(), r.detail
    good = tc.build(KernelProject.from_path(KERNEL))
    assert tc.run(good, scale_add_case()).ok


@pytest.mark.cann
@pytest.mark.npu
def test_real_verify(tc):
    from kernelwright.tools.referee import verify
    from kernelwright.tools.tasks import load_task
    project = KernelProject.from_path(KERNEL)
    project.launch = LaunchSpec.model_validate_json((FIXTURES / "scale_add_kl" / "launch.json").read_text())
    v = verify(load_task(str(FIXTURES / "tasks" / "add_scale.py")), project, tc)
    assert v.ok, v.summary
