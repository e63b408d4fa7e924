// ListIndexPastEnd: y[i] = x[i] over a tensor list, one block; the tiling only counts the tensors.
#include "register/op_def_registry.h"
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(ListIndexPastEndTiling)
TILING_DATA_FIELD_DEF(uint32_t, tensorCount);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(ListIndexPastEnd, ListIndexPastEndTiling)

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    ListIndexPastEndTiling tiling;
    tiling.set_tensorCount(static_cast<uint32_t>(context->GetIrInputInstanceInfo(0)->GetInstanceNum()));
    context->SetBlockDim(1);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    context->GetWorkspaceSizes(1)[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class ListIndexPastEnd : public OpDef {
public:
    explicit ListIndexPastEnd(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(DYNAMIC).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(DYNAMIC).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(ListIndexPastEnd);
}  // namespace ops
