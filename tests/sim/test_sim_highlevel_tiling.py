"""High-level APIs through an msopgen project: the host fills a nested SoftMaxTiling with
SoftMaxTilingFunc, the kernel-side struct is generated with the library type, and the kernel's
SoftMax call reads it."""
import json
from pathlib import Path

import numpy as np

from kernelwright.tools.project import KernelProject
from kernelwright.tools.toolchain import Case

TILING_H = r'''
#include "register/tilingdata_base.h"
#include "tiling/tiling_api.h"
namespace optiling {
BEGIN_TILING_DATA_DEF(RowSoftmaxTilingData)
  TILING_DATA_FIELD_DEF(uint32_t, rowsPerCore);
  TILING_DATA_FIELD_DEF(uint32_t, cols);
  TILING_DATA_FIELD_DEF(uint32_t, totalRows);
  TILING_DATA_FIELD_DEF(uint32_t, tmpBytes);
  TILING_DATA_FIELD_DEF_STRUCT(SoftMaxTiling, softmaxTilingData);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(RowSoftmax, RowSoftmaxTilingData)
}
'''

HOST = r'''
#include "row_softmax_tiling.h"
#include "register/op_def_registry.h"
namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context) {
    RowSoftmaxTilingData tiling;
    const gert::Shape& shape = context->GetInputShape(0)->GetStorageShape();
    uint32_t cols = shape.GetDim(shape.GetDimNum() - 1);
    uint32_t rows = shape.GetShapeSize() / cols;
    auto plat = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint32_t cores = plat.GetCoreNumAiv();
    uint32_t perCore = (rows + cores - 1) / cores;
    uint32_t blocks = (rows + perCore - 1) / perCore;
    std::vector<int64_t> dims = {perCore, cols};
    ge::Shape srcShape(dims);
    uint32_t tmp = AscendC::GetSoftMaxMinTmpSize(srcShape, sizeof(float), false);
    AscendC::SoftMaxTilingFunc(srcShape, sizeof(float), tmp, tiling.softmaxTilingData);
    tiling.set_rowsPerCore(perCore);
    tiling.set_cols(cols);
    tiling.set_totalRows(rows);
    tiling.set_tmpBytes(tmp);
    context->SetBlockDim(blocks);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    return ge::GRAPH_SUCCESS;
}
}
namespace ops {
class RowSoftmax : public OpDef {
public:
    explicit RowSoftmax(const char* name) : OpDef(name) {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(RowSoftmax);
}
'''

KERNEL = r'''
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void row_softmax(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling) {
    GET_TILING_DATA(t, tiling);
    uint32_t row0 = GetBlockIdx() * t.rowsPerCore;
    uint32_t rows = t.totalRows - row0 < t.rowsPerCore ? t.totalRows - row0 : t.rowsPerCore;
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> inQ;
    TQue<QuePosition::VECOUT, 1> outQ;
    TBuf<TPosition::VECCALC> tmp;
    pipe.InitBuffer(inQ, 1, t.rowsPerCore * t.cols * sizeof(float));
    pipe.InitBuffer(outQ, 1, t.rowsPerCore * t.cols * sizeof(float));
    pipe.InitBuffer(tmp, t.tmpBytes);
    GlobalTensor<float> xg, yg;
    xg.SetGlobalBuffer((__gm__ float*)x + row0 * t.cols, rows * t.cols);
    yg.SetGlobalBuffer((__gm__ float*)y + row0 * t.cols, rows * t.cols);
    LocalTensor<float> a = inQ.AllocTensor<float>();
    DataCopy(a, xg, rows * t.cols);
    inQ.EnQue(a);
    LocalTensor<float> b = inQ.DeQue<float>();
    LocalTensor<float> c = outQ.AllocTensor<float>();
    SoftMaxShapeInfo info{rows, t.cols, rows, t.cols};
    SoftMax<float>(c, b, tmp.Get<uint8_t>(), t.softmaxTilingData, info);
    outQ.EnQue(c);
    inQ.FreeTensor(b);
    LocalTensor<float> d = outQ.DeQue<float>();
    DataCopy(yg, d, rows * t.cols);
    outQ.FreeTensor(d);
}
'''


def test_softmax_through_host_tiling_helpers(sim):
    project = KernelProject(name="RowSoftmax", kind="msopgen", files={
        "op_host/row_softmax_tiling.h": TILING_H, "op_host/row_softmax.cpp": HOST, "op_kernel/row_softmax.cpp": KERNEL})
    b = sim.build(project)
    assert b.ok, [d.render() for d in b.diagnostics]
    cls = json.loads(Path(b.artifacts["describe"]).read_text())["tiling_classes"][0]
    nested = [f for f in cls["fields"] if f["ctype"] == "struct"][0]
    assert nested["struct_type"] == "SoftMaxTiling" and nested["struct_size"] == 64 and nested["offset"] == 16
    x = np.random.default_rng(1).standard_normal((100, 40)).astype(np.float32)
    r = sim.run(b, Case(inputs={"x": x}, outputs={"y": {"shape": (100, 40), "dtype": "float32"}}))
    assert r.status == "ok", [d.render() for d in r.diagnostics]
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(r.outputs["y"], e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-6)
    assert r.block_dim == 34  # ceil(100 / ceil(100/48)) blocks of 3 rows
