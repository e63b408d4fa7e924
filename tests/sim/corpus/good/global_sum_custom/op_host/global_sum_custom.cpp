#include "global_sum_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
constexpr uint32_t UNIT = 64;       // elements per unit: a 256-byte fp32 repeat
constexpr uint32_t TILE = 4096;
constexpr uint32_t SLOT_BYTES = 32;  // one partial per core, each in its own 32-byte slot

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint32_t total = static_cast<uint32_t>(context->GetInputShape(0)->GetStorageShape().GetShapeSize());
    uint32_t units = (total + UNIT - 1) / UNIT;
    uint32_t cores = platform.GetCoreNumAiv();
    uint32_t blockDim = units < cores ? (units == 0 ? 1 : units) : cores;

    GlobalSumTiling tiling;
    tiling.set_totalLength(total);
    tiling.set_unitsPerCore(units / blockDim);
    tiling.set_extraUnits(units % blockDim);
    tiling.set_tileLength(TILE);
    context->SetBlockDim(blockDim);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t* workspace = context->GetWorkspaceSizes(1);
    workspace[0] = platform.GetLibApiWorkSpaceSize() + blockDim * SLOT_BYTES;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ge {
static graphStatus InferShape(gert::InferShapeContext* context)
{
    gert::Shape* y = context->GetOutputShape(0);
    y->SetDimNum(1);
    y->SetDim(0, 1);
    return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class GlobalSumCustom : public OpDef {
public:
    explicit GlobalSumCustom(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT16}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT16}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(GlobalSumCustom);
}  // namespace ops
