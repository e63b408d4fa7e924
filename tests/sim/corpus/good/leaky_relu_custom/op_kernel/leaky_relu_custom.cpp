#include "kernel_operator.h"
using namespace AscendC;

template <typename T>
class KernelLeakyRelu {
public:
    __aicore__ inline KernelLeakyRelu() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t blockLength, uint32_t lastLength, uint32_t tileLength, float slope)
    {
        bool last = GetBlockIdx() == GetBlockNum() - 1;
        length = last ? lastLength : blockLength;
        tileLen = tileLength;
        this->slope = static_cast<T>(slope);
        xGm.SetGlobalBuffer((__gm__ T*)x + blockLength * GetBlockIdx(), length);
        yGm.SetGlobalBuffer((__gm__ T*)y + blockLength * GetBlockIdx(), length);
        pipe.InitBuffer(inQ, 2, tileLen * sizeof(T));
        pipe.InitBuffer(outQ, 2, tileLen * sizeof(T));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t off = 0; off < length; off += tileLen) {
            uint32_t n = length - off < tileLen ? length - off : tileLen;
            DataCopyParams params{1, static_cast<uint16_t>(n * sizeof(T)), 0, 0};
            DataCopyPadParams pad{false, 0, 0, 0};
            LocalTensor<T> xl = inQ.AllocTensor<T>();
            DataCopyPad(xl, xGm[off], params, pad);
            inQ.EnQue(xl);
            xl = inQ.DeQue<T>();
            LocalTensor<T> yl = outQ.AllocTensor<T>();
            LeakyRelu(yl, xl, slope, n);
            outQ.EnQue(yl);
            inQ.FreeTensor(xl);
            yl = outQ.DeQue<T>();
            DataCopyPad(yGm[off], yl, params);
            outQ.FreeTensor(yl);
        }
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, 2> inQ;
    TQue<QuePosition::VECOUT, 2> outQ;
    GlobalTensor<T> xGm, yGm;
    uint32_t length = 0, tileLen = 0;
    T slope;
};

extern "C" __global__ __aicore__ void leaky_relu_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    KernelLeakyRelu<DTYPE_X> op;
    op.Init(x, y, t.blockLength, t.lastLength, t.tileLength, t.negativeSlope);
    op.Process();
}
