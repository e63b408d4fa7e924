#include "cast_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
constexpr uint32_t ALIGN = 16;   // elements: 32 bytes of the narrower (2-byte) side
constexpr uint32_t TILE = 4096;
constexpr uint32_t CAST_NONE = 0;
constexpr uint32_t CAST_ODD = 6;

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint32_t total = static_cast<uint32_t>(context->GetInputShape(0)->GetStorageShape().GetShapeSize());
    uint32_t cores = platform.GetCoreNumAiv();
    uint32_t units = (total + ALIGN - 1) / ALIGN;
    uint32_t perCore = (units + cores - 1) / cores;
    uint32_t blockDim = perCore == 0 ? 1 : (units + perCore - 1) / perCore;
    // Only fp32 -> fp16 rounds; widening casts must use CAST_NONE.
    const int64_t* mode = context->GetAttrs()->GetInt(0);
    bool narrowing = context->GetInputDesc(0)->GetDataType() == ge::DT_FLOAT;
    uint32_t roundMode = narrowing && mode != nullptr ? static_cast<uint32_t>(*mode) : CAST_NONE;
    if (roundMode > CAST_ODD) {
        return ge::GRAPH_FAILED;
    }
    CastCustomTiling tiling;
    tiling.set_totalLength(total);
    tiling.set_blockLength(perCore * ALIGN);
    tiling.set_tileLength(TILE);
    tiling.set_roundMode(roundMode);
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
class CastCustom : public OpDef {
public:
    explicit CastCustom(const char* name) : OpDef(name)
    {
        this->Input("x")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("y")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Attr("round_mode").AttrType(OPTIONAL).Int(1);
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(CastCustom);
}  // namespace ops
