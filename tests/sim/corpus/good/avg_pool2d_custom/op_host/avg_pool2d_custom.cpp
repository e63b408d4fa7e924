#include "avg_pool2d_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    const gert::Shape& x = context->GetInputShape(0)->GetStorageShape();
    uint32_t typeSize = ge::GetSizeByDataType(context->GetInputDesc(0)->GetDataType());
    auto ksize = context->GetAttrs()->GetListInt(0);
    auto strides = context->GetAttrs()->GetListInt(1);
    if (x.GetDimNum() != 4 || ksize->GetSize() != 2 || strides->GetSize() != 2) {
        return ge::GRAPH_FAILED;
    }
    uint32_t n = x.GetDim(0), h = x.GetDim(1), w = x.GetDim(2), c = x.GetDim(3);
    uint32_t kh = ksize->GetData()[0], kw = ksize->GetData()[1];
    uint32_t sh = strides->GetData()[0], sw = strides->GetData()[1];
    if ((c * typeSize) % 32 != 0 || kh > h || kw > w || kh * kw < 2) {
        return ge::GRAPH_FAILED;  // channel rows must be whole 32-byte blocks
    }
    uint32_t outH = (h - kh) / sh + 1, outW = (w - kw) / sw + 1;
    uint32_t rows = n * outH;
    uint32_t cores = platform.GetCoreNumAiv();
    uint32_t blockDim = rows < cores ? rows : cores;

    AvgPool2dTiling tiling;
    tiling.set_height(h);
    tiling.set_width(w);
    tiling.set_channels(c);
    tiling.set_outHeight(outH);
    tiling.set_outWidth(outW);
    uint32_t window[2] = {kh, kw};
    uint32_t stride[2] = {sh, sw};
    tiling.set_window(window);
    tiling.set_stride(stride);
    tiling.set_rowsPerCore(rows / blockDim);
    tiling.set_extraRows(rows % blockDim);
    tiling.set_invArea(1.0f / (kh * kw));
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
    auto ksize = context->GetAttrs()->GetListInt(0)->GetData();
    auto strides = context->GetAttrs()->GetListInt(1)->GetData();
    gert::Shape* y = context->GetOutputShape(0);
    *y = *x;
    y->SetDim(1, (x->GetDim(1) - ksize[0]) / strides[0] + 1);
    y->SetDim(2, (x->GetDim(2) - ksize[1]) / strides[1] + 1);
    return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class AvgPool2dCustom : public OpDef {
public:
    explicit AvgPool2dCustom(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT16}).Format({ge::FORMAT_NHWC, ge::FORMAT_NHWC});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT16}).Format({ge::FORMAT_NHWC, ge::FORMAT_NHWC});
        this->Attr("ksize").AttrType(REQUIRED).ListInt();
        this->Attr("strides").AttrType(REQUIRED).ListInt();
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(AvgPool2dCustom);
}  // namespace ops
