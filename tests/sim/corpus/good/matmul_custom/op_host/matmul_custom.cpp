#include "matmul_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

using namespace matmul_tiling;

namespace optiling {
// c[M, N] = op(a) x op(b) (+ bias[N]), op = optional transpose; the cube splits M and N over the
// vector cores, two of which share one cube core per block (MIX 1:2).
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    const gert::Shape& a = context->GetInputShape(0)->GetStorageShape();
    const gert::Shape& b = context->GetInputShape(1)->GetStorageShape();
    const bool transA = *context->GetAttrs()->GetAttrPointer<bool>(0);
    const bool transB = *context->GetAttrs()->GetAttrPointer<bool>(1);
    const bool useBias = *context->GetAttrs()->GetAttrPointer<bool>(2);
    const int32_t M = transA ? a.GetDim(1) : a.GetDim(0);
    const int32_t K = transA ? a.GetDim(0) : a.GetDim(1);
    const int32_t N = transB ? b.GetDim(0) : b.GetDim(1);
    const DataType in = context->GetInputDesc(0)->GetDataType() == ge::DT_FLOAT16 ? DataType::DT_FLOAT16 : DataType::DT_FLOAT;

    MultiCoreMatmulTiling cube(platform);
    cube.SetDim(platform.GetCoreNumAiv());
    cube.SetAType(TPosition::GM, CubeFormat::ND, in, transA);
    cube.SetBType(TPosition::GM, CubeFormat::ND, in, transB);
    cube.SetCType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
    cube.SetBiasType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
    cube.SetShape(M, N, K);
    cube.SetOrgShape(M, N, K);
    cube.SetBias(useBias);
    cube.SetBufferSpace(-1, -1, -1);

    MatmulCustomTilingData tiling;
    if (cube.GetTiling(tiling.cubeTilingData) == -1) {
        return ge::GRAPH_FAILED;
    }
    tiling.set_transA(transA);
    tiling.set_transB(transB);
    tiling.set_useBias(useBias);
    const uint32_t used = tiling.cubeTilingData.get_usedCoreNum();
    context->SetBlockDim((used + 1) / 2);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    context->GetWorkspaceSizes(1)[0] = platform.GetLibApiWorkSpaceSize();
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ge {
static graphStatus InferShape(gert::InferShapeContext* context)
{
    const gert::Shape* a = context->GetInputShape(0);
    const gert::Shape* b = context->GetInputShape(1);
    const bool transA = *context->GetAttrs()->GetAttrPointer<bool>(0);
    const bool transB = *context->GetAttrs()->GetAttrPointer<bool>(1);
    gert::Shape* c = context->GetOutputShape(0);
    c->SetDimNum(2);
    c->SetDim(0, transA ? a->GetDim(1) : a->GetDim(0));
    c->SetDim(1, transB ? b->GetDim(0) : b->GetDim(1));
    return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class MatmulCustom : public OpDef {
public:
    explicit MatmulCustom(const char* name) : OpDef(name)
    {
        this->Input("a").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_FLOAT}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("b").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_FLOAT}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("bias").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("c").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Attr("trans_a").AttrType(OPTIONAL).Bool(false);
        this->Attr("trans_b").AttrType(OPTIONAL).Bool(false);
        this->Attr("use_bias").AttrType(OPTIONAL).Bool(false);
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
    }
};
OP_ADD(MatmulCustom);
}  // namespace ops
