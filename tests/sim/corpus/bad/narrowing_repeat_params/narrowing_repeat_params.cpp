// A non-constant int in the braces of BinaryRepeatParams narrows to uint8_t: an error under bisheng/clang.
#include "kernel_operator.h"
using namespace AscendC;

class KernelScale {
public:
    __aicore__ inline KernelScale() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t n)
    {
        this->n = n;
        xGm.SetGlobalBuffer((__gm__ half*)x, n);
        yGm.SetGlobalBuffer((__gm__ half*)y, n);
        pipe.InitBuffer(inQ, 1, n * sizeof(half));
        pipe.InitBuffer(outQ, 1, n * sizeof(half));
    }
    __aicore__ inline void Process()
    {
        LocalTensor<half> xl = inQ.AllocTensor<half>();
        DataCopy(xl, xGm, n);
        inQ.EnQue(xl);
        xl = inQ.DeQue<half>();
        LocalTensor<half> yl = outQ.AllocTensor<half>();
        int stride = 8;
        BinaryRepeatParams params{1, 1, 1, stride, stride, stride};
        Add(yl, xl, xl, 128, static_cast<uint8_t>(n / 128), params);
        outQ.EnQue(yl);
        inQ.FreeTensor(xl);
        yl = outQ.DeQue<half>();
        DataCopy(yGm, yl, n);
        outQ.FreeTensor(yl);
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> inQ;
    TQue<QuePosition::VECOUT, 1> outQ;
    GlobalTensor<half> xGm, yGm;
    uint32_t n = 0;
};

extern "C" __global__ __aicore__ void narrowing_repeat_params(GM_ADDR x, GM_ADDR y, uint32_t n)
{
    KernelScale op;
    op.Init(x, y, n);
    op.Process();
}
