#include "leaky_relu_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint32_t typeSize = ge::GetSizeByDataType(context->GetInputDesc(0)->GetDataType());
    uint64_t total = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    const float* slope = context->GetAttrs()->GetAttrPointer<float>(0);
    uint32_t align = 32 / typeSize;
    // Every core but the last gets the same whole number of 32-byte units.
    uint32_t cores = platform.GetCoreNumAiv();
    uint64_t units = (total + align - 1) / align;
    uint64_t perCore = (units + cores - 1) / cores;
    uint32_t blockDim = static_cast<uint32_t>((units + perCore - 1) / perCore);
    uint32_t blockLength = static_cast<uint32_t>(perCore * align);

    LeakyReluTiling tiling;
    tiling.set_blockLength(blockLength);
    tiling.set_lastLength(static_cast<uint32_t>(total - uint64_t(blockLength) * (blockDim - 1)));
    tiling.set_tileLength(4096 / typeSize);
    tiling.set_negativeSlope(slope == nullptr ? 0.01f : *slope);
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
class LeakyReluCustom : public OpDef {
public:
    explicit LeakyReluCustom(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_FLOAT}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_FLOAT}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Attr("negative_slope").AttrType(OPTIONAL).Float(0.01f);
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
    }
};
OP_ADD(LeakyReluCustom);
}  // namespace ops
