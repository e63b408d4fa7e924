"""msopgen operator projects on the sim toolchain: host tiling from the case's shapes, dtype
variants from the OpDef, attributes, InferShape, and the kernel-side tiling layout."""
import numpy as np
import pytest

from kernelwright.tools.project import KernelProject
from kernelwright.tools.toolchain import Case

TILING_H = r'''
#include "register/tilingdata_base.h"
namespace optiling {
BEGIN_TILING_DATA_DEF(AxpbTilingData)
  TILING_DATA_FIELD_DEF(uint8_t, useAlpha);
  TILING_DATA_FIELD_DEF(int64_t, total);
  TILING_DATA_FIELD_DEF(uint32_t, perCore);
  TILING_DATA_FIELD_DEF(float, alpha);
  TILING_DATA_FIELD_DEF_ARR(uint16_t, 3, pad3);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(Axpb, AxpbTilingData)
}
'''

HOST = r'''
#include "axpb_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"
namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context) {
    AxpbTilingData tiling;
    int64_t total = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    auto plat = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint32_t cores = plat.GetCoreNumAiv();
    uint32_t blocks = total / 64 < cores ? (total + 63) / 64 : cores;
    if (blocks == 0) return ge::GRAPH_FAILED;
    uint32_t perCore = (total + blocks - 1) / blocks;
    const float* alpha = context->GetAttrs()->GetAttrPointer<float>(0);
    tiling.set_useAlpha(1);
    tiling.set_total(total);
    tiling.set_perCore(perCore);
    tiling.set_alpha(*alpha);
    uint16_t pad[3] = {7, 8, 9};
    tiling.set_pad3(pad);
    context->SetBlockDim(blocks);
    context->SetTilingKey(total % 2 == 0 ? 1 : 2);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t* ws = context->GetWorkspaceSizes(1);
    ws[0] = 0;
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
class Axpb : public OpDef {
public:
    explicit Axpb(const char* name) : OpDef(name) {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT16}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("b").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT16}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT16}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Attr("alpha").AttrType(OPTIONAL).Float(2.0);
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(Axpb);
}
'''

KERNEL = r'''
#include "kernel_operator.h"
using namespace AscendC;
template <typename T> class KernelAxpb {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR b, GM_ADDR y, uint32_t perCore, int64_t total, float alpha, uint16_t extra) {
        int64_t start = GetBlockIdx() * perCore;
        len = (uint32_t)(total - start < perCore ? total - start : perCore);
        this->alpha = alpha + (TILING_KEY_IS(1) ? 0.0f : 0.0f) + (extra == 9 ? 0.0f : 100.0f);
        xg.SetGlobalBuffer((__gm__ T*)x + start, len);
        bg.SetGlobalBuffer((__gm__ T*)b + start, len);
        yg.SetGlobalBuffer((__gm__ T*)y + start, len);
        pipe.InitBuffer(inQ, 2, (perCore * sizeof(T) + 31) / 32 * 32);
        pipe.InitBuffer(outQ, 1, (perCore * sizeof(T) + 31) / 32 * 32);
    }
    __aicore__ inline void Process() {
        DataCopyExtParams p{1, (uint32_t)(len * sizeof(T)), 0, 0, 0};
        DataCopyPadExtParams<T> pad{false, 0, 0, 0};
        LocalTensor<T> xl = inQ.AllocTensor<T>();
        LocalTensor<T> bl = inQ.AllocTensor<T>();
        DataCopyPad(xl, xg, p, pad);
        DataCopyPad(bl, bg, p, pad);
        inQ.EnQue(xl);
        inQ.EnQue(bl);
        LocalTensor<T> xi = inQ.DeQue<T>();
        LocalTensor<T> bi = inQ.DeQue<T>();
        LocalTensor<T> yl = outQ.AllocTensor<T>();
        Muls(yl, xi, (T)alpha, len);
        Add(yl, yl, bi, len);
        outQ.EnQue(yl);
        inQ.FreeTensor(xi);
        inQ.FreeTensor(bi);
        LocalTensor<T> yo = outQ.DeQue<T>();
        DataCopyPad(yg, yo, p);
        outQ.FreeTensor(yo);
    }
private:
    TPipe pipe;
    TQue<QuePosition::VECIN, 2> inQ;
    TQue<QuePosition::VECOUT, 1> outQ;
    GlobalTensor<T> xg, bg, yg;
    uint32_t len;
    float alpha;
};
extern "C" __global__ __aicore__ void axpb(GM_ADDR x, GM_ADDR b, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling) {
    GET_TILING_DATA(t, tiling);
    if (t.useAlpha != 1) return;
    KernelAxpb<DTYPE_X> op;
    op.Init(x, b, y, t.perCore, t.total, t.alpha, t.pad3[2]);
    op.Process();
}
'''


def project(kernel: str = KERNEL, host: str = HOST) -> KernelProject:
    return KernelProject(name="Axpb", kind="msopgen", files={"op_host/axpb_tiling.h": TILING_H, "op_host/axpb.cpp": host,
                                                             "op_kernel/axpb.cpp": kernel})


@pytest.mark.parametrize("n,dtype,alpha", [(1000, np.float32, None), (333, np.float16, 0.5), (64 * 48 * 3 + 5, np.float32, -1.25)])
def test_msopgen_project_runs_its_own_tiling(sim, n, dtype, alpha):
    b = sim.build(project())
    assert b.ok, [d.render() for d in b.diagnostics]
    assert b.variants == ["X=float,B=float,Y=float", "X=half,B=half,Y=half"]
    assert [a.name for a in b.op.attrs] == ["alpha"]
    rng = np.random.default_rng(0)
    x, bias = rng.standard_normal(n).astype(dtype), rng.standard_normal(n).astype(dtype)
    attrs = {} if alpha is None else {"alpha": alpha}
    r = sim.run(b, Case(inputs={"x": x, "b": bias}, attrs=attrs))
    assert r.status == "ok", [d.render() for d in r.diagnostics]
    expect_alpha = 2.0 if alpha is None else alpha
    assert r.outputs["y"].shape == (n,) and r.outputs["y"].dtype == dtype
    tol = 1e-6 if dtype == np.float32 else 2e-3
    np.testing.assert_allclose(r.outputs["y"].astype(np.float32), (x.astype(np.float32) * expect_alpha + bias), rtol=tol, atol=tol)
    assert r.tiling["tiling_key"] == (1 if n % 2 == 0 else 2)
    assert r.block_dim == min(48, (n + 63) // 64)


def test_dtype_outside_the_opdef_is_a_bad_case(sim):
    r = sim.run(sim.build(project()), Case(inputs={"x": np.zeros(64, np.int32), "b": np.zeros(64, np.int32)}))
    assert r.status == "bad_case" and "no dtype combination" in r.detail and "x: DT_FLOAT/DT_FLOAT16" in r.detail


def test_failing_tiling_is_a_host_error(sim):
    r = sim.run(sim.build(project()), Case(inputs={"x": np.zeros(0, np.float32), "b": np.zeros(0, np.float32)}))
    assert r.status == "host_error" and "tiling_failed" in r.detail


def test_missing_set_block_dim_is_reported(sim):
    r = sim.run(sim.build(project(host=HOST.replace("context->SetBlockDim(blocks);", ""))),
                Case(inputs={"x": np.zeros(64, np.float32), "b": np.zeros(64, np.float32)}))
    assert r.status == "host_error" and "SetBlockDim" in r.detail


def test_host_compile_errors_point_into_op_host(sim):
    b = sim.build(project(host=HOST.replace("tiling.set_perCore(perCore);", "tiling.set_perCores(perCore);")))
    assert b.status == "compile_error"
    e = b.errors()[0]
    assert e.file == "op_host/axpb.cpp" and e.line == HOST[:HOST.index("set_perCores") if "set_perCores" in HOST else HOST.index("tiling.set_perCore(perCore)")].count("\n") + 1
    assert "set_perCores" in e.message


def test_header_helper_shared_by_two_host_sources_links(sim):
    # CANN builds tiling and OpDef sources into separate libraries: a non-inline function in a header
    # both include is not a duplicate symbol there, so it is not one here either
    helper = "#pragma once\n#include <cstdint>\nint64_t AxpbCeil(int64_t a, int64_t b) { return (a + b - 1) / b; }\n"
    p = project(host='#include "axpb_helper.h"\n' + HOST)
    p.files["op_host/axpb_helper.h"] = helper
    p.files["op_host/axpb_def.cpp"] = '#include "axpb_helper.h"\nint64_t AxpbDefUnits(int64_t n) { return AxpbCeil(n, 64); }\n'
    b = sim.build(p)
    assert b.ok, [d.render() for d in b.diagnostics]
