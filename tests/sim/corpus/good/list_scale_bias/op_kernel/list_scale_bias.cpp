// y[i] = x[i] * scale + bias[0] over a tensor list: x and y arrive as tensor-list descriptors; x is
// read with ListTensorDesc/TensorDesc (shapes), y raw, as many CANN kernels do (word 0 is the byte
// offset of the data-pointer array). Block b handles tensors b, b + blockDim, ...; each tensor moves
// in tiles with DataCopyPad (any length).
#include "kernel_operator.h"
using namespace AscendC;

constexpr uint32_t MAX_DIMS = 8;

template <typename T>
class KernelListScaleBias {
public:
    __aicore__ inline KernelListScaleBias() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR bias, GM_ADDR y, uint32_t count, uint32_t tileLength, float scale)
    {
        xList.Init(reinterpret_cast<__gm__ void*>(x), 0xffffffff, count);  // checks the tensor count
        __gm__ uint64_t* yDesc = reinterpret_cast<__gm__ uint64_t*>(y);
        yPtrs = yDesc + (*yDesc >> 3);
        biasGm.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(bias), 1);
        tileLen = tileLength;
        this->scale = static_cast<T>(scale);
        pipe.InitBuffer(inQ, 2, tileLen * sizeof(T));
        pipe.InitBuffer(outQ, 2, tileLen * sizeof(T));
    }
    __aicore__ inline void Process()
    {
        T b = biasGm.GetValue(0);
        for (uint32_t i = GetBlockIdx(); i < xList.GetSize(); i += GetBlockNum()) {
            uint64_t shape[MAX_DIMS] = {0};
            TensorDesc<T> desc;
            desc.SetShapeAddr(shape);
            xList.GetDesc(desc, i);
            uint64_t n = 1;
            for (uint32_t d = 0; d < desc.GetDim(); ++d) {
                n *= desc.GetShape(d);
            }
            GlobalTensor<T> xGm = desc.GetDataObj();
            GlobalTensor<T> yGm;
            yGm.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(yPtrs[i]), n);
            OneTensor(xGm, yGm, static_cast<uint32_t>(n), b);
        }
    }

private:
    __aicore__ inline void OneTensor(GlobalTensor<T>& xGm, GlobalTensor<T>& yGm, uint32_t n, T b)
    {
        for (uint32_t off = 0; off < n; off += tileLen) {
            uint32_t len = n - off < tileLen ? n - off : tileLen;
            DataCopyExtParams params{1, static_cast<uint32_t>(len * sizeof(T)), 0, 0, 0};
            LocalTensor<T> xl = inQ.AllocTensor<T>();
            DataCopyPad(xl, xGm[off], params, DataCopyPadExtParams<T>{false, 0, 0, 0});
            inQ.EnQue(xl);
            xl = inQ.DeQue<T>();
            LocalTensor<T> yl = outQ.AllocTensor<T>();
            Muls(yl, xl, scale, len);
            Adds(yl, yl, b, len);
            outQ.EnQue(yl);
            inQ.FreeTensor(xl);
            yl = outQ.DeQue<T>();
            DataCopyPad(yGm[off], yl, params);
            outQ.FreeTensor(yl);
        }
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, 2> inQ;
    TQue<QuePosition::VECOUT, 2> outQ;
    ListTensorDesc xList;
    __gm__ uint64_t* yPtrs = nullptr;
    GlobalTensor<T> biasGm;
    uint32_t tileLen = 0;
    T scale;
};

extern "C" __global__ __aicore__ void list_scale_bias(GM_ADDR x, GM_ADDR bias, GM_ADDR y, GM_ADDR workspace,
                                                      GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    KernelListScaleBias<DTYPE_X> op;
    op.Init(x, bias, y, t.tensorCount, t.tileLength, t.scale);
    op.Process();
}
