// y[i] = x[i] * scale + bias[0] for every tensor of the list x (ParamType(DYNAMIC)); bias is a
// REQUIRED input declared after the list, so its instance index is the list's length.
#include "list_scale_bias_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
constexpr uint32_t TILE_BYTES = 4096;
constexpr size_t X_IDX = 0;
constexpr size_t BIAS_IDX = 1;

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    uint32_t count = 0;
    while (context->GetDynamicInputShape(X_IDX, count) != nullptr) {
        ++count;
    }
    const gert::AnchorInstanceInfo* info = context->GetIrInputInstanceInfo(X_IDX);
    if (count == 0 || info == nullptr || info->GetInstanceNum() != count) {
        return ge::GRAPH_FAILED;
    }
    // by IR index and by instance index, bias is the same input
    const gert::CompileTimeTensorDesc* bias = context->GetRequiredInputDesc(BIAS_IDX);
    if (bias == nullptr || bias != context->GetInputDesc(count) ||
        context->GetComputeNodeInfo()->GetIrInputsNum() != 2 || context->GetComputeNodeInputNum() != count + 1) {
        return ge::GRAPH_FAILED;
    }
    uint32_t typeSize = ge::GetSizeByDataType(context->GetDynamicInputDesc(X_IDX, 0)->GetDataType());
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint32_t cores = platform.GetCoreNumAiv();

    ListScaleBiasTiling tiling;
    tiling.set_tensorCount(count);
    tiling.set_tileLength(TILE_BYTES / typeSize);
    tiling.set_scale(*context->GetAttrs()->GetFloat(0));
    context->SetBlockDim(count < cores ? count : cores);  // block b takes tensors b, b + blockDim, ...
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    context->GetWorkspaceSizes(1)[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ge {
static graphStatus InferShape(gert::InferShapeContext* context)
{
    for (size_t i = 0; context->GetDynamicInputShape(0, i) != nullptr; ++i) {
        *context->GetOutputShape(i) = *context->GetDynamicInputShape(0, i);
    }
    return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class ListScaleBias : public OpDef {
public:
    explicit ListScaleBias(const char* name) : OpDef(name)
    {
        this->Input("x")
            .ParamType(DYNAMIC)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("bias")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("y")
            .ParamType(DYNAMIC)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Attr("scale").AttrType(REQUIRED).Float();
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(ListScaleBias);
}  // namespace ops
