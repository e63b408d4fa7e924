"""An output whose shape the kernel computes (OpParamDef::OutputShapeDependOnCompute, NPUKernelBench
MaskedSelectV3): the kernel gets one more argument after the outputs and writes the real shape there
(dim count, then the dims, uint64 each); the output is cut to that shape."""
import numpy as np

from kernelwright.tools.project import KernelProject
from kernelwright.tools.toolchain import Case

TILING_H = r'''
#include "register/tilingdata_base.h"
namespace optiling {
BEGIN_TILING_DATA_DEF(KeepPositiveTilingData)
  TILING_DATA_FIELD_DEF(uint32_t, n);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(KeepPositive, KeepPositiveTilingData)
}
'''

HOST = r'''
#include "keep_positive_tiling.h"
#include "register/op_def_registry.h"
namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context) {
    KeepPositiveTilingData tiling;
    tiling.set_n(context->GetInputShape(0)->GetStorageShape().GetShapeSize());
    context->SetBlockDim(1);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    return ge::GRAPH_SUCCESS;
}
}
namespace ops {
class KeepPositive : public OpDef {
public:
    explicit KeepPositive(const char* name) : OpDef(name) {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND}).OutputShapeDependOnCompute();
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(KeepPositive);
}
'''

KERNEL = r'''
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void keep_positive(GM_ADDR x, GM_ADDR y, GM_ADDR shape_out, GM_ADDR workspace,
                                                    GM_ADDR tiling) {
    GET_TILING_DATA(t, tiling);
    GlobalTensor<float> xg, yg;
    GlobalTensor<uint64_t> sg;
    xg.SetGlobalBuffer((__gm__ float*)x, t.n);
    yg.SetGlobalBuffer((__gm__ float*)y, t.n);
    sg.SetGlobalBuffer((__gm__ uint64_t*)shape_out, 9);
    uint64_t kept = 0;
    for (uint32_t i = 0; i < t.n; ++i) {
        float v = xg.GetValue(i);
        if (v > 0) yg.SetValue(kept++, v);
    }
    sg.SetValue(0, 1);
    sg.SetValue(1, kept);
}
'''


def test_output_shape_written_by_the_kernel(sim):
    project = KernelProject(name="KeepPositive", kind="msopgen", files={
        "op_host/keep_positive_tiling.h": TILING_H, "op_host/keep_positive.cpp": HOST,
        "op_kernel/keep_positive.cpp": KERNEL})
    b = sim.build(project)
    assert b.ok, [d.render() for d in b.diagnostics]
    assert b.op.outputs[0].shape_depend_on_compute is True
    x = np.array([1.5, -1, 2, 0, 3, -4, 5, 6], np.float32)
    r = sim.run(b, Case(inputs={"x": x}, outputs={"y": {"shape": (8,), "dtype": "float32"}}))
    assert r.status == "ok", [d.render() for d in r.diagnostics]
    np.testing.assert_array_equal(r.outputs["y"], x[x > 0])
