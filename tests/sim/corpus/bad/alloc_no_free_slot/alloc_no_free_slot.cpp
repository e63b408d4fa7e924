// A queue with one buffer hands out a second tensor before the first is freed: the NPU waits forever.
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
        LocalTensor<half> spare = inQ.AllocTensor<half>();
        DataCopy(xl, xGm, n);
        inQ.EnQue(xl);
        xl = inQ.DeQue<half>();
        LocalTensor<half> yl = outQ.AllocTensor<half>();
        Muls(yl, xl, static_cast<half>(2.0f), n);
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

extern "C" __global__ __aicore__ void alloc_no_free_slot(GM_ADDR x, GM_ADDR y, uint32_t n)
{
    KernelScale op;
    op.Init(x, y, n);
    op.Process();
}
