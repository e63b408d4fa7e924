// The input tensor is EnQue'd and never DeQue'd (a barrier orders the copy instead): its event flag is still set
// when the kernel ends, so a later wait on that event id passes early.
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
        inQ.EnQue(xl);                 // never DeQue'd: the barrier stands in for it, the EnQue's flag stays set
        PipeBarrier<PIPE_ALL>();
        LocalTensor<half> yl = outQ.AllocTensor<half>();
        Muls(yl, xl, static_cast<half>(2.0f), n);
        outQ.EnQue(yl);
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

extern "C" __global__ __aicore__ void leaked_queue_slot(GM_ADDR x, GM_ADDR y, uint32_t n)
{
    KernelScale op;
    op.Init(x, y, n);
    op.Process();
}
