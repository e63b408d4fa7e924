// A uint16_t loop counter never reaches a bound above 65535: the core spins until the watchdog fires.
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
        uint32_t rounds = n * 1024;
        half acc = static_cast<half>(0.0f);
        for (uint16_t i = 0; i < rounds; i++) { acc = acc + xl.GetValue(i % 16); }
        Muls(yl, xl, acc, n);
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

extern "C" __global__ __aicore__ void infinite_loop_u16_counter(GM_ADDR x, GM_ADDR y, uint32_t n)
{
    KernelScale op;
    op.Init(x, y, n);
    op.Process();
}
