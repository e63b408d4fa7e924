"""State across calls: the NPU keeps UB and L1 from one launch to the next and a host keeps its statics,
so the emulation calls an operator several times in one process. A kernel that keeps results in UB
between calls and a TilingFunc with a static counter are rejected with a clear finding; the same
kernels written without that state pass."""
import numpy as np
import pytest

from kernelwright.tools.project import KernelProject
from kernelwright.tools.sim.corpus import launch
from kernelwright.tools.toolchain import Case, OutputSpec

# y = 2 * x; with CACHE set, a launch that finds the marker in UB skips the copy-in and the multiply and
# stores the previous launch's result (a "cache" that only works while the inputs never change)
KERNEL = r'''
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void twice(GM_ADDR x, GM_ADDR y, uint32_t n)
{
    TPipe pipe;
    TBuf<QuePosition::VECCALC> dataBuf, markBuf;
    pipe.InitBuffer(dataBuf, n * sizeof(float));
    pipe.InitBuffer(markBuf, 32);
    GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, n);
    yGm.SetGlobalBuffer((__gm__ float*)y, n);
    LocalTensor<float> data = dataBuf.Get<float>();
    LocalTensor<uint32_t> mark = markBuf.Get<uint32_t>();
    if (!CACHE || mark.GetValue(0) != 0x5A5A5A5Au) {
        DataCopy(data, xGm, n);
        event_t in = static_cast<event_t>(pipe.FetchEventID(HardEvent::MTE2_V));
        SetFlag<HardEvent::MTE2_V>(in);
        WaitFlag<HardEvent::MTE2_V>(in);
        Muls(data, data, 2.0f, n);
        mark.SetValue(0, 0x5A5A5A5Au);
    }
    event_t out = static_cast<event_t>(pipe.FetchEventID(HardEvent::V_MTE3));
    SetFlag<HardEvent::V_MTE3>(out);
    WaitFlag<HardEvent::V_MTE3>(out);
    DataCopy(yGm, data, n);
}
'''


def _run_kernel(sim, cache: bool):
    project = KernelProject(name="twice", kind="kernel_launch", files={"twice.cpp": f"#define CACHE {int(cache)}\n" + KERNEL})
    build = sim.build(project)
    assert build.ok, build.diagnostics
    x = np.arange(256, dtype=np.float32) - 100
    return sim.run(build, launch(1, ["x", "y", 256], {"x": x}, {"y": ((256,), "float32")})), x


def test_kernel_that_keeps_results_in_ub_across_launches_is_rejected(sim):
    run, x = _run_kernel(sim, cache=True)
    assert run.status == "rule_violation", run.detail
    stale = [d for d in run.diagnostics if d.rule == "state.stale_local"]
    assert stale, [d.render() for d in run.diagnostics]
    assert "after a call with other inputs" in stale[0].message and "'y'" in stale[0].message
    np.testing.assert_array_equal(run.outputs["y"], 2 * x)  # the first call (the judged outputs) was right


def test_kernel_that_loads_its_data_in_every_launch_passes(sim):
    run, x = _run_kernel(sim, cache=False)
    assert run.status == "ok", [d.render() for d in run.diagnostics]
    np.testing.assert_array_equal(run.outputs["y"], 2 * x)


TILING_H = r'''
#include "register/tilingdata_base.h"
namespace optiling {
BEGIN_TILING_DATA_DEF(ScaleTilingData)
  TILING_DATA_FIELD_DEF(uint32_t, n);
  TILING_DATA_FIELD_DEF(float, scale);
  TILING_DATA_FIELD_DEF_ARR(uint32_t, 8, spare);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(Scale, ScaleTilingData)
}
'''

# STATE 0: no state; 1: a call counter that changes the result; 2: the first call's length kept in a static;
# 3: no state, and a log line without a newline (as NPUKernelBench's GeGluGradV2 prints with OP_LOGD);
# 4: no state, but an array saved with entries it never set (stack garbage, as NPUKernelBench Cross saves its shapes)
HOST = r'''
#include <cstdio>
#include "scale_tiling.h"
#include "register/op_def_registry.h"
namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context) {
    ScaleTilingData tiling;
    uint32_t n = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
#if STATE == 3
    std::printf("Platform info, n:%u.", n);
#endif
#if STATE == 1
    static int calls = 0;
    tiling.set_scale(++calls > 1 ? 3.0f : 2.0f);
#else
    tiling.set_scale(2.0f);
#endif
    uint32_t spare[8];
    spare[0] = n;
#if STATE != 4
    for (int i = 1; i < 8; ++i) spare[i] = 0;
#endif
    tiling.set_spare(spare);
#if STATE == 2
    static uint32_t firstN = n;
    tiling.set_n(firstN);
#else
    tiling.set_n(n);
#endif
    context->SetBlockDim(1);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    context->GetWorkspaceSizes(1)[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}
namespace ge {
static ge::graphStatus InferShape(gert::InferShapeContext* context) {
    *context->GetOutputShape(0) = *context->GetInputShape(0);
    return GRAPH_SUCCESS;
}
}
namespace ops {
class Scale : public OpDef {
public:
    explicit Scale(const char* name) : OpDef(name) {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(Scale);
}
'''

OP_KERNEL = r'''
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void scale(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    TPipe pipe;
    TBuf<QuePosition::VECCALC> buf;
    pipe.InitBuffer(buf, 4096);
    GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, t.n);
    yGm.SetGlobalBuffer((__gm__ float*)y, t.n);
    LocalTensor<float> data = buf.Get<float>();
    DataCopy(data, xGm, t.n);
    event_t in = static_cast<event_t>(pipe.FetchEventID(HardEvent::MTE2_V));
    SetFlag<HardEvent::MTE2_V>(in);
    WaitFlag<HardEvent::MTE2_V>(in);
    Muls(data, data, t.scale, t.n);
    event_t out = static_cast<event_t>(pipe.FetchEventID(HardEvent::V_MTE3));
    SetFlag<HardEvent::V_MTE3>(out);
    WaitFlag<HardEvent::V_MTE3>(out);
    DataCopy(yGm, data, t.n);
}
'''


def _scale_build(sim, state: int):
    files = {"op_host/scale_tiling.h": TILING_H, "op_host/scale.cpp": f"#define STATE {state}\n" + HOST,
             "op_kernel/scale.cpp": OP_KERNEL}
    build = sim.build(KernelProject(name="Scale", kind="msopgen", files=files))
    assert build.ok, build.diagnostics
    return build


def _scale_case(n: int):
    return Case(inputs={"x": np.ones(n, dtype=np.float32)}, outputs={"y": OutputSpec(shape=(n,), dtype="float32")})


@pytest.mark.parametrize("state, after_other_case, says", [
    (1, False, "called a second time with the same inputs"),
    (2, True, "after the process tiled an earlier case with other shapes"),
])
def test_tiling_func_with_a_static_that_changes_between_calls_is_rejected(sim, state, after_other_case, says):
    build = _scale_build(sim, state)
    if after_other_case:  # the same process served a case with another length first
        assert sim.run(build, _scale_case(64)).status == "ok"
    run = sim.run(build, _scale_case(128))
    assert run.status == "host_error"
    found = [d for d in run.diagnostics if d.rule == "host.state_across_calls"]
    assert found and says in found[0].message, [d.render() for d in run.diagnostics]


@pytest.mark.parametrize("state", [0, 3, 4])
def test_tiling_func_without_state_passes_after_other_cases(sim, state):
    build = _scale_build(sim, state)
    assert sim.run(build, _scale_case(64)).status == "ok"
    run = sim.run(build, _scale_case(128))
    assert run.status == "ok", [d.render() for d in run.diagnostics]
    np.testing.assert_array_equal(run.outputs["y"], np.full(128, 2, dtype=np.float32))
