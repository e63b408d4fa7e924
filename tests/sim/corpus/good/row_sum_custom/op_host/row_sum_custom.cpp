#include "row_sum_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
constexpr uint64_t KEY_ONE_REPEAT = 1;  // a row fits one 256-byte repeat: WholeReduceSum over all rows at once
constexpr uint64_t KEY_LONG_ROWS = 2;   // longer rows: ReduceSum row by row
constexpr uint32_t TILE_BYTES = 16384;

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    const gert::Shape& x = context->GetInputShape(0)->GetStorageShape();
    uint32_t cols = static_cast<uint32_t>(x.GetDim(x.GetDimNum() - 1));
    uint32_t rows = static_cast<uint32_t>(x.GetShapeSize() / cols);
    uint32_t typeSize = ge::GetSizeByDataType(context->GetInputDesc(0)->GetDataType());
    uint32_t rowBytes = (cols * typeSize + 31) / 32 * 32;
    if (rowBytes > TILE_BYTES) {
        return ge::GRAPH_FAILED;
    }
    uint32_t tileRows = TILE_BYTES / rowBytes;
    tileRows = tileRows > 255 ? 255 : tileRows;  // WholeReduceSum takes at most 255 repeats
    uint32_t cores = platform.GetCoreNumAiv();
    uint32_t blockDim = rows < cores ? rows : cores;

    RowSumTiling tiling;
    tiling.set_cols(cols);
    tiling.set_rowsPerCore(rows / blockDim);
    tiling.set_extraRows(rows % blockDim);
    tiling.set_tileRows(tileRows);
    context->SetTilingKey(cols * typeSize <= 256 ? KEY_ONE_REPEAT : KEY_LONG_ROWS);
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
    const gert::Shape* x = context->GetInputShape(0);
    gert::Shape* y = context->GetOutputShape(0);
    y->SetDimNum(x->GetDimNum() - 1);
    for (size_t i = 0; i + 1 < x->GetDimNum(); i++) {
        y->SetDim(i, x->GetDim(i));
    }
    return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class RowSumCustom : public OpDef {
public:
    explicit RowSumCustom(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT16}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT16}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(RowSumCustom);
}  // namespace ops
