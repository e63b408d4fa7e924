"""The real backend on a real Ascend host (skipped elsewhere; see README "The real backend"):
`cann` needs a CANN toolkit (ASCEND_HOME_PATH), `npu` an NPU with torch_npu. Run with
`source <CANN>/set_env.sh; pip install -e '.[npu]'; pytest -m "cann or npu" tests/cann`."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

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
