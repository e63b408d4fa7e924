#include "scale_shift_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
constexpr uint32_t TILE_BYTES = 8192;

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint32_t total = static_cast<uint32_t>(context->GetInputShape(0)->GetStorageShape().GetShapeSize());
    uint32_t typeSize = ge::GetSizeByDataType(context->GetInputDesc(0)->GetDataType());
    uint32_t tile = TILE_BYTES / typeSize;
    uint32_t tiles = (total + tile - 1) / tile;
    uint32_t cores = platform.GetCoreNumAiv();
    uint32_t tilesPerCore = (tiles + cores - 1) / cores;
    uint32_t blockDim = (tiles + tilesPerCore - 1) / tilesPerCore;
    auto attrs = context->GetAttrs();

    ScaleShiftTiling tiling;
    tiling.set_totalLength(total);
    tiling.set_blockLength(tilesPerCore * tile);
    tiling.set_tileLength(tile);
    tiling.set_scale(*attrs->GetFloat(0));
    tiling.set_shift(*attrs->GetFloat(1));
    tiling.set_relu(*attrs->GetBool(2) ? 1 : 0);
    context->SetBlockDim(blockDim == 0 ? 1 : blockDim);
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
class ScaleShiftCustom : public OpDef {
public:
    explicit ScaleShiftCustom(const char* name) : OpDef(name)
    {
        this->Input("x")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_INT32})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("y")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_INT32})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Attr("scale").AttrType(REQUIRED).Float();
        this->Attr("shift").AttrType(OPTIONAL).Float(0.0f);
        this->Attr("relu").AttrType(OPTIONAL).Bool(false);
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(ScaleShiftCustom);
}  // namespace ops
