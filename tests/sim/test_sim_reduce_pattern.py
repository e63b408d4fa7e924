"""The pattern Reduce APIs (ReduceMax<T, Pattern::Reduce::RA>, ReduceSum<T, AR>, ...) through an msopgen
project whose host sizes the temporary space with Get<Api>MaxMinTmpSize, as MultiKernelBench answers do
(KernelHive/ascendc-skill max/min/product_reduction_over_a_dimension); and a buffer below that minimum."""
import numpy as np
import pytest

from kernelwright.tools.project import KernelProject
from kernelwright.tools.toolchain import Case

TILING_H = r'''
#include "register/tilingdata_base.h"
namespace optiling {
BEGIN_TILING_DATA_DEF(ReduceBothTilingData)
  TILING_DATA_FIELD_DEF(uint32_t, rows);
  TILING_DATA_FIELD_DEF(uint32_t, cols);
  TILING_DATA_FIELD_DEF(uint32_t, tmpBytes);
  TILING_DATA_FIELD_DEF(uint32_t, sumTmp);
  TILING_DATA_FIELD_DEF(uint32_t, prodTmp);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(ReduceBoth, ReduceBothTilingData)
}
'''

HOST = r'''
#include "reduce_both_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/tiling_api.h"
namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context) {
    ReduceBothTilingData tiling;
    const gert::Shape& shape = context->GetInputShape(0)->GetStorageShape();
    uint32_t rows = shape.GetDim(0), cols = shape.GetDim(1);
    std::vector<int64_t> dims = {rows, cols};
    ge::Shape srcShape(dims);
    uint32_t maxV = 0, minMax = 0, minSum = 0, minProd = 0, unset = 7;
    AscendC::GetReduceMaxMaxMinTmpSize(srcShape, ge::DT_FLOAT, AscendC::ReducePattern::RA, true, false, maxV, minMax);
    AscendC::GetReduceSumMaxMinTmpSize(srcShape, ge::DT_FLOAT, AscendC::ReducePattern::AR, true, false, maxV, minSum);
    AscendC::GetReduceProdMaxMinTmpSize(srcShape, ge::DT_FLOAT, AscendC::ReducePattern::AR, true, false, maxV, minProd);
    AscendC::GetReduceSumMaxMinTmpSize(srcShape, ge::DT_FLOAT16, AscendC::ReducePattern::AR, true, false, maxV, unset);
    if (unset != 7) return ge::GRAPH_FAILED;   // a dtype ReduceSum lacks leaves the values as they were
    tiling.set_rows(rows);
    tiling.set_cols(cols);
    tiling.set_tmpBytes(minMax);
    tiling.set_sumTmp(minSum);
    tiling.set_prodTmp(minProd);
    context->SetBlockDim(1);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    return ge::GRAPH_SUCCESS;
}
}
namespace ops {
class ReduceBoth : public OpDef {
public:
    explicit ReduceBoth(const char* name) : OpDef(name) {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("colmax").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("rowsum").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("rowprod").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(ReduceBoth);
}
'''

KERNEL = r'''
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void reduce_both(GM_ADDR x, GM_ADDR colmax, GM_ADDR rowsum, GM_ADDR rowprod, GM_ADDR workspace,
                                                  GM_ADDR tiling) {
    GET_TILING_DATA(t, tiling);
    TPipe pipe;
    TBuf<TPosition::VECCALC> src, mx, sm, pr, tmp, tmp2, tmp3;
    pipe.InitBuffer(src, t.rows * t.cols * 4);
    pipe.InitBuffer(mx, t.cols * 4);
    pipe.InitBuffer(sm, 64);
    pipe.InitBuffer(pr, 64);
    pipe.InitBuffer(tmp, TMP_BYTES);
    pipe.InitBuffer(tmp2, t.sumTmp > 0 ? t.sumTmp : 32);
    pipe.InitBuffer(tmp3, t.prodTmp);
    GlobalTensor<float> xg, mg, sg, pg;
    xg.SetGlobalBuffer((__gm__ float*)x, t.rows * t.cols);
    mg.SetGlobalBuffer((__gm__ float*)colmax, t.cols);
    sg.SetGlobalBuffer((__gm__ float*)rowsum, t.rows);
    pg.SetGlobalBuffer((__gm__ float*)rowprod, t.rows);
    LocalTensor<float> a = src.Get<float>(), m = mx.Get<float>(), s = sm.Get<float>(), p = pr.Get<float>();
    DataCopy(a, xg, t.rows * t.cols);
    SetFlag<HardEvent::MTE2_V>(0); WaitFlag<HardEvent::MTE2_V>(0);
    uint32_t shape[] = {t.rows, t.cols};
    ReduceMax<float, Pattern::Reduce::RA>(m, a, tmp.Get<uint8_t>(), shape, true);
    ReduceSum<float, Pattern::Reduce::AR>(s, a, tmp2.Get<uint8_t>(), shape, true);
    ReduceProd<float, Pattern::Reduce::AR>(p, a, tmp3.Get<uint8_t>(), shape, true);
    SetFlag<HardEvent::V_MTE3>(0); WaitFlag<HardEvent::V_MTE3>(0);
    DataCopy(mg, m, t.cols);
    DataCopyPad(sg, s, DataCopyExtParams{1, t.rows * 4, 0, 0, 0});
    DataCopyPad(pg, p, DataCopyExtParams{1, t.rows * 4, 0, 0, 0});
}
'''


def _project(tmp_bytes):
    return KernelProject(name="ReduceBoth", kind="msopgen", files={
        "op_host/reduce_both_tiling.h": TILING_H, "op_host/reduce_both.cpp": HOST,
        "op_kernel/reduce_both.cpp": KERNEL.replace("TMP_BYTES", tmp_bytes)})


def _case(x):
    return Case(inputs={"x": x}, outputs={"colmax": {"shape": (x.shape[1],), "dtype": "float32"},
                                          "rowsum": {"shape": (x.shape[0],), "dtype": "float32"},
                                          "rowprod": {"shape": (x.shape[0],), "dtype": "float32"}})


def test_pattern_reduces_with_the_host_sized_temporary_space(sim):
    b = sim.build(_project("t.tmpBytes"))
    assert b.ok, [d.render() for d in b.diagnostics]
    x = np.random.default_rng(3).uniform(0.5, 1.5, (12, 72)).astype(np.float32)
    r = sim.run(b, _case(x))
    assert r.status == "ok", [d.render() for d in r.diagnostics]
    np.testing.assert_array_equal(r.outputs["colmax"], x.max(axis=0))
    np.testing.assert_allclose(r.outputs["rowsum"], x.sum(axis=1), rtol=1e-6)
    np.testing.assert_allclose(r.outputs["rowprod"], x.prod(axis=1), rtol=1e-5)


@pytest.mark.parametrize("tmp_bytes", ["t.tmpBytes - 32"])
def test_a_temporary_buffer_below_the_host_minimum_is_rejected(sim, tmp_bytes):
    # RA over 12 rows: CANN's minimum is 8 rows of 72 floats (2304 bytes)
    b = sim.build(_project(tmp_bytes))
    assert b.ok, [d.render() for d in b.diagnostics]
    r = sim.run(b, _case(np.ones((12, 72), np.float32)))
    assert [d.rule for d in r.diagnostics if d.severity == "error"] == ["hl.tmp_size"], [d.render() for d in r.diagnostics]
