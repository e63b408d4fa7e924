#include "matmul_leakyrelu_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

using namespace matmul_tiling;

namespace optiling {
// y = LeakyReLU(x @ w + bias): the cube computes base blocks, the vector core applies the
// activation to each block in UB and writes it out. Two vector cores per block (MIX 1:2).
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    const gert::Shape& x = context->GetInputShape(0)->GetStorageShape();
    const gert::Shape& w = context->GetInputShape(1)->GetStorageShape();
    const int32_t M = x.GetDim(0), K = x.GetDim(1), N = w.GetDim(1);
    const float* alpha = context->GetAttrs()->GetAttrPointer<float>(0);

    MultiCoreMatmulTiling cube(platform);
    cube.SetDim(2);
    cube.SetAType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT16);
    cube.SetBType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT16);
    cube.SetCType(TPosition::VECIN, CubeFormat::ND, DataType::DT_FLOAT);
    cube.SetBiasType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
    cube.SetShape(M, N, K);
    cube.SetOrgShape(M, N, K);
    cube.SetBias(true);
    cube.SetBufferSpace(-1, -1, -1);

    MatmulLeakyreluTilingData tiling;
    if (cube.GetTiling(tiling.cubeTilingData) == -1) {
        return ge::GRAPH_FAILED;
    }
    tiling.set_alpha(alpha == nullptr ? 0.01f : *alpha);
    context->SetBlockDim(1);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    context->GetWorkspaceSizes(1)[0] = platform.GetLibApiWorkSpaceSize();
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ge {
static graphStatus InferShape(gert::InferShapeContext* context)
{
    gert::Shape* y = context->GetOutputShape(0);
    y->SetDimNum(2);
    y->SetDim(0, context->GetInputShape(0)->GetDim(0));
    y->SetDim(1, context->GetInputShape(1)->GetDim(1));
    return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class MatmulLeakyrelu : public OpDef {
public:
    explicit MatmulLeakyrelu(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Input("w").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Input("bias").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Attr("alpha").AttrType(OPTIONAL).Float(0.01f);
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
    }
};
OP_ADD(MatmulLeakyrelu);
}  // namespace ops
