// Misuses the linter must catch; `// expect: RULE` marks every line that must be reported (and only those).
#include "kernel_operator.h"
using namespace AscendC;
constexpr int32_t BUFFER_NUM = 2;
class KernelBroken {
public:
    __aicore__ inline void Init(GM_ADDR x, uint32_t n)
    {
        xGm.SetGlobalBuffer((__gm__ float16*)x, n);  // expect: dtype-name
        xGm.SetGlobalBufer((__gm__ half*)x, n);  // expect: unknown-member
        pipe.InitBuffer(inQueue, BUFFER_NUM, n * sizeof(half));
        pipe.InitBuffer(outQueue, BUFFER_NUM, n * sizeof(half));
    }
    __aicore__ inline void Compute(uint32_t n)
    {
        LocalTensor<half> x = inQueue.DeQue<half>();
        LocalTensor<half> y = outQueue.AllocTensor();  // expect: missing-template
        AscendC::Softmax(y, x, n);  // expect: invented-api
        AscendC::Divs(y, x, (half)2.0, n);  // expect: cann9-only
        Exp2(y, x, n);  // expect: invented-api
        AscendC::Add(y, x, n);  // expect: arity
        AscendC::Cast(y, x, n);  // expect: arity
        AscendC::DataCopyParams params{1, 256, 0, 0, 0};  // expect: arity
        AscendC::PipeBarrier<AscendC::HardEvent::V_MTE3>();  // expect: template-arg
        AscendC::SetFlag(0);  // expect: missing-template
        AscendC::ReduceMeen(y, x, n);  // expect: unknown-api
        LocalTensor<bool_t> mask;  // expect: dtype-name
        bfloat16 v = 0;  // expect: dtype-name
        x.SetValue(0, v, 1);  // expect: arity
        outQueue.EnQue<half>(y);
        inQueue.FreeTensor(x);
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> inQueue;
    TQue<QuePosition::VECOUT, 1> outQueue;
    GlobalTensor<half> xGm;
};
