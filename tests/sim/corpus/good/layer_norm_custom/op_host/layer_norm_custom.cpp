#include "layer_norm_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    const gert::Shape& x = context->GetInputShape(0)->GetStorageShape();
    uint32_t hidden = static_cast<uint32_t>(x.GetDim(x.GetDimNum() - 1));
    uint32_t rows = static_cast<uint32_t>(x.GetShapeSize() / hidden);
    if (context->GetInputShape(1)->GetStorageShape().GetShapeSize() != hidden ||
        context->GetInputShape(2)->GetStorageShape().GetShapeSize() != hidden) {
        return ge::GRAPH_FAILED;  // gamma and beta must match the normalised axis
    }
    const float* eps = context->GetAttrs()->GetFloat(0);
    uint32_t cores = platform.GetCoreNumAiv();
    uint32_t blockDim = rows < cores ? rows : cores;

    LayerNormCustomTiling tiling;
    tiling.set_hidden(hidden);
    tiling.set_rowsPerCore(rows / blockDim);
    tiling.set_extraRows(rows % blockDim);
    tiling.set_epsilon(eps == nullptr ? 1e-5f : *eps);
    tiling.set_invHidden(1.0f / hidden);
    context->SetBlockDim(blockDim);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    context->GetWorkspaceSizes(1)[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ge {
static graphStatus InferShape(gert::InferShapeContext* context)
{
    *context->GetOutputShape(0) = *context->GetInputShape(0);
    return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class LayerNormCustom : public OpDef {
public:
    explicit LayerNormCustom(const char* name) : OpDef(name)
    {
        for (const char* in : {"x", "gamma", "beta"}) {
            this->Input(in).ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT16}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        }
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT16}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Attr("epsilon").AttrType(OPTIONAL).Float(1e-5f);
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(LayerNormCustom);
}  // namespace ops
