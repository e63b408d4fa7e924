// Copies x[i] to y[i] element by element, but loops i <= GetSize(): the last pass asks the list
// for a tensor it does not have (on the NPU: a garbage pointer read from past the descriptor).
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void list_index_past_end(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    ListTensorDesc xs(reinterpret_cast<__gm__ void*>(x));
    ListTensorDesc ys(reinterpret_cast<__gm__ void*>(y));
    uint64_t shape[4] = {0};
    for (uint32_t i = 0; i <= xs.GetSize(); ++i) {
        __gm__ float* src = xs.GetDataPtr<float>(i);
        TensorDesc<float> desc;
        desc.SetShapeAddr(shape);
        ys.GetDesc(desc, i);
        GlobalTensor<float> in, out;
        in.SetGlobalBuffer(src, desc.GetShape(0));
        out = desc.GetDataObj();
        for (uint64_t k = 0; k < desc.GetShape(0); ++k) {
            out.SetValue(k, in.GetValue(k));
        }
    }
}
