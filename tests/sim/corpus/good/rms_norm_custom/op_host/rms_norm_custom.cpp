#include "rms_norm_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
constexpr uint32_t MAX_TILE_ROWS = 8;

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint64_t ub = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ub);
    const gert::Shape& x = context->GetInputShape(0)->GetStorageShape();
    uint32_t hidden = static_cast<uint32_t>(x.GetDim(x.GetDimNum() - 1));
    uint32_t rows = static_cast<uint32_t>(x.GetShapeSize() / hidden);
    uint32_t typeSize = ge::GetSizeByDataType(context->GetInputDesc(0)->GetDataType());
    uint32_t padH = (hidden + 15) / 16 * 16;
    // fixed: gamma (T and fp32) and the fp32 square/work rows; per tile row: 2 in + 2 out of T + one fp32 row
    uint64_t fixed = uint64_t(padH) * (typeSize + 3 * 4) + 32;
    uint64_t perRow = uint64_t(padH) * (4 * typeSize + 4);
    if (ub < fixed + perRow) {
        return ge::GRAPH_FAILED;
    }
    uint32_t tileRows = static_cast<uint32_t>((ub - fixed) / perRow);
    tileRows = tileRows > MAX_TILE_ROWS ? MAX_TILE_ROWS : tileRows;
    const float* eps = context->GetAttrs()->GetFloat(0);
    uint32_t cores = platform.GetCoreNumAiv();
    uint32_t blockDim = rows < cores ? rows : cores;

    RmsNormCustomTiling tiling;
    tiling.set_hidden(hidden);
    tiling.set_rowsPerCore(rows / blockDim);
    tiling.set_extraRows(rows % blockDim);
    tiling.set_tileRows(tileRows);
    tiling.set_epsilon(eps == nullptr ? 1e-6f : *eps);
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
class RmsNormCustom : public OpDef {
public:
    explicit RmsNormCustom(const char* name) : OpDef(name)
    {
        this->Input("x")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("gamma")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("y")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Attr("epsilon").AttrType(OPTIONAL).Float(1e-6f);
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(RmsNormCustom);
}  // namespace ops
