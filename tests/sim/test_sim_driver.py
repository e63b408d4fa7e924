"""End-to-end behaviour of the sim toolchain on small kernels written for these tests."""
import numpy as np
import pytest

from kernelwright.tools.project import KernelProject, ProjectError
from kernelwright.tools.toolchain import ArgSpec, Case, OutputSpec

SCALE = r'''
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void scale(GM_ADDR x, GM_ADDR y, uint32_t perCore, float factor) {
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> inQ;
    TQue<QuePosition::VECOUT, 1> outQ;
    pipe.InitBuffer(inQ, 1, perCore * sizeof(float));
    pipe.InitBuffer(outQ, 1, perCore * sizeof(float));
    GlobalTensor<float> xg, yg;
    xg.SetGlobalBuffer((__gm__ float*)x + GetBlockIdx() * perCore, perCore);
    yg.SetGlobalBuffer((__gm__ float*)y + GetBlockIdx() * perCore, perCore);
    LocalTensor<float> a = inQ.AllocTensor<float>();
    DataCopy(a, xg, perCore);
    inQ.EnQue(a);
    LocalTensor<float> b = inQ.DeQue<float>();
    LocalTensor<float> c = outQ.AllocTensor<float>();
    Muls(c, b, factor, perCore);
    outQ.EnQue(c);
    inQ.FreeTensor(b);
    LocalTensor<float> d = outQ.DeQue<float>();
    DataCopy(yg, d, perCore);
    outQ.FreeTensor(d);
}
'''


def scale_case(per_core=64, blocks=4, factor=1.5, timeout_s=20.0):
    x = np.arange(per_core * blocks, dtype=np.float32)
    return x, Case(inputs={"x": x}, outputs={"y": OutputSpec(shape=x.shape, dtype="float32")}, block_dim=blocks,
                   timeout_s=timeout_s, args=[ArgSpec(kind="tensor", name="x"), ArgSpec(kind="tensor", name="y"),
                                              ArgSpec(kind="int", value=per_core), ArgSpec(kind="float", value=factor)])


def launch_project(src: str, name: str = "scale") -> KernelProject:
    return KernelProject(name=name, kind="kernel_launch", files={f"{name}.cpp": src})


def test_kernel_launch_build_run_and_cache(sim):
    b = sim.build(launch_project(SCALE))
    assert b.ok, [d.render() for d in b.diagnostics]
    assert b.kernels == ["scale"]
    x, case = scale_case()
    r = sim.run(b, case)
    assert r.status == "ok" and r.block_status == ["ok"] * 4
    np.testing.assert_array_equal(r.outputs["y"], x * 1.5)
    counters = {c["block"]: c for c in r.counters}
    assert counters[0]["copy_bytes"] == {"GM->UB": 256, "UB->GM": 256}
    assert counters[0]["vector"][0]["api"] == "Muls"
    assert sim.build(launch_project(SCALE)).cache_hits == 1


def test_compile_error_is_located_in_the_user_file(sim):
    bad = SCALE.replace("Muls(c, b, factor, perCore);", "Muls(c, b, 2.0, perCore);")
    b = sim.build(launch_project(bad))
    assert b.status == "compile_error"
    err = b.errors()[0]
    assert (err.file, err.line) == ("scale.cpp", bad[:bad.index("Muls(c, b, 2.0")].count("\n") + 1)
    assert err.symbol == "Muls" and err.category == "data_type"
    assert "no matching function for call to 'Muls'" in err.message


def test_missing_queue_sync_is_a_pipe_hazard_at_the_vector_op(sim):
    bad = SCALE.replace("    inQ.EnQue(a);\n    LocalTensor<float> b = inQ.DeQue<float>();\n", "    LocalTensor<float> b = a;\n")
    bad = bad.replace("inQ.FreeTensor(b);", "inQ.FreeTensor(a);")
    b = sim.build(launch_project(bad))
    assert b.ok, [d.render() for d in b.diagnostics]
    r = sim.run(b, scale_case()[1])
    assert r.status == "rule_violation"
    d = r.errors()[0]
    assert d.rule == "pipe.hazard.raw" and d.file == "scale.cpp"
    assert d.line == bad[:bad.index("Muls(c, b, factor")].count("\n") + 1
    assert "MTE2" in d.message and "SetFlag<HardEvent::MTE2_V>" in (d.hint or "")
    assert d.block == 0 and d.values["blocks"] == [0, 1, 2, 3]  # one finding for all blocks


def test_hang_is_a_timeout_with_the_looping_line(sim):
    src = SCALE.replace("    TPipe pipe;", "    volatile uint32_t k = 1;\n    while (k) { k = k + 2; }\n    TPipe pipe;")
    b = sim.build(launch_project(src))
    r = sim.run(b, scale_case(timeout_s=2.0)[1])
    assert r.status == "timeout" and "block 0" in r.detail
    assert any(d.rule == "kernel.timeout" and d.file == "scale.cpp" for d in r.diagnostics)


def test_crash_is_reported_not_raised(sim):
    src = SCALE.replace("    TPipe pipe;", "    *(volatile int*)nullptr = 1;\n    TPipe pipe;")
    r = sim.run(sim.build(launch_project(src)), scale_case()[1])
    assert r.status == "crash"
    d = r.diagnostics[0]
    assert d.rule == "kernel.crash" and d.symbol == "SIGSEGV" and d.file == "scale.cpp" and d.line == 5


def test_bad_cases_name_what_is_wrong(sim):
    b = sim.build(launch_project(SCALE))
    _, case = scale_case()
    case.args = case.args[:2]
    r = sim.run(b, case)
    assert r.status == "bad_case" and "takes 4 arguments, the case passes 2" in r.detail
    _, case = scale_case()
    case.args[0] = ArgSpec(kind="tensor", name="nope")
    assert "neither an input nor an output" in sim.run(b, case).detail


def test_project_loading_errors(tmp_path):
    with pytest.raises(ProjectError, match="no such file"):
        KernelProject.from_path(tmp_path / "missing")
    (tmp_path / "k.cpp").write_text("int f() { return 0; }\n")
    with pytest.raises(ProjectError, match="no kernel found"):
        KernelProject.from_path(tmp_path / "k.cpp")


def test_host_wrapper_launches_with_triple_chevrons(sim):
    src = SCALE + r'''
void scale_twice_do(uint32_t blockDim, void* stream, uint8_t* x, uint8_t* y, uint32_t perCore)
{
    scale<<<blockDim, nullptr, stream>>>(x, y, perCore, 2.0f);
    scale<<<blockDim, nullptr, stream>>>(y, y, perCore, 3.0f);
}
'''
    b = sim.build(launch_project(src))
    assert b.ok and b.kernels == ["scale", "scale_twice_do"]
    x, case = scale_case(per_core=32, blocks=2)
    case.kernel = "scale_twice_do"
    case.args = [ArgSpec(kind="int", value=2), ArgSpec(kind="null"), ArgSpec(kind="tensor", name="x"),
                 ArgSpec(kind="tensor", name="y"), ArgSpec(kind="int", value=32)]
    r = sim.run(b, case)
    assert r.status == "ok", (r.detail, [d.render() for d in r.diagnostics])
    np.testing.assert_array_equal(r.outputs["y"], x * 6.0)
    assert r.block_dim == 2
