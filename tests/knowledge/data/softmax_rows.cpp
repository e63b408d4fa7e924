// Row softmax in float with TBuf scratch, manual flags, a helper named like an API (Min), DataCopyPad
// tails and scalar reads: the constructs a linter must not mistake for API misuse.
#include "kernel_operator.h"
using namespace AscendC;

struct SoftmaxTiling {
    uint32_t rows;
    uint32_t cols;
    uint32_t pitch;
};

__aicore__ inline uint32_t Min(uint32_t a, uint32_t b) { return a < b ? a : b; }

template <typename T>
__aicore__ inline T CeilDiv(T a, T b) { return (a + b - 1) / b; }

class KernelSoftmaxRows {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const SoftmaxTiling& t)
    {
        tiling = t;
        uint32_t perCore = CeilDiv(t.rows, static_cast<uint32_t>(GetBlockNum()));
        rowStart = perCore * GetBlockIdx();
        rowCount = Min(perCore, t.rows > rowStart ? t.rows - rowStart : 0);
        xGm.SetGlobalBuffer((__gm__ float*)x, t.rows * t.cols);
        yGm.SetGlobalBuffer((__gm__ float*)y, t.rows * t.cols);
        pipe.InitBuffer(rowBuf, t.pitch * sizeof(float));
        pipe.InitBuffer(workBuf, t.pitch * sizeof(float));
        pipe.InitBuffer(scalarBuf, 32);
    }
    __aicore__ inline void Process()
    {
        for (uint32_t r = 0; r < rowCount; ++r) {
            this->Row(rowStart + r);
        }
    }

private:
    __aicore__ inline void Row(uint32_t row)
    {
        LocalTensor<float> x = rowBuf.Get<float>();
        LocalTensor<float> work = workBuf.Get<float>();
        LocalTensor<float> one = scalarBuf.Get<float>();
        DataCopyExtParams copyParams{1, static_cast<uint32_t>(tiling.cols * sizeof(float)), 0, 0, 0};
        DataCopyPadExtParams<float> padParams{false, 0, 0, 0.0f};
        DataCopyPad(x, xGm[row * tiling.cols], copyParams, padParams);
        event_t inEvent = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::MTE2_V));
        SetFlag<HardEvent::MTE2_V>(inEvent);
        WaitFlag<HardEvent::MTE2_V>(inEvent);
        ReduceMax(one, x, work, tiling.cols);
        float rowMax = one.GetValue(0);
        Adds(x, x, -rowMax, tiling.cols);
        Exp(x, x, tiling.cols);
        PipeBarrier<PIPE_V>();
        ReduceSum(one, x, work, tiling.cols);
        float rowSum = one.GetValue(0);
        Muls(x, x, 1.0f / rowSum, tiling.cols);
        event_t outEvent = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::V_MTE3));
        SetFlag<HardEvent::V_MTE3>(outEvent);
        WaitFlag<HardEvent::V_MTE3>(outEvent);
        DataCopyPad(yGm[row * tiling.cols], x, copyParams);
        event_t reuse = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::MTE3_MTE2));
        SetFlag<HardEvent::MTE3_MTE2>(reuse);
        WaitFlag<HardEvent::MTE3_MTE2>(reuse);
    }

    TPipe pipe;
    TBuf<TPosition::VECCALC> rowBuf, workBuf, scalarBuf;
    GlobalTensor<float> xGm, yGm;
    SoftmaxTiling tiling;
    uint32_t rowStart = 0;
    uint32_t rowCount = 0;
};

extern "C" __global__ __aicore__ void softmax_rows(GM_ADDR x, GM_ADDR y, GM_ADDR tilingGm)
{
    SoftmaxTiling t;
    t.rows = ((__gm__ uint32_t*)tilingGm)[0];
    t.cols = ((__gm__ uint32_t*)tilingGm)[1];
    t.pitch = ((__gm__ uint32_t*)tilingGm)[2];
    KernelSoftmaxRows op;
    op.Init(x, y, t);
    op.Process();
}
