// Whole-tensor sum, one partial per core: each core adds its tiles into an fp32 accumulator
// vector, reduces it once with ReduceSum at the end, and writes its 4-byte partial with
// DataCopyPad. The split is in 32-byte units, so the last core may end on a partial unit.
#include "kernel_operator.h"
using namespace AscendC;

constexpr uint32_t UNIT = 8;

class SumPartials {
public:
    __aicore__ inline SumPartials() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR partials, uint32_t total, uint32_t tile)
    {
        uint32_t blocks = GetBlockNum();
        uint32_t idx = GetBlockIdx();
        uint32_t units = (total + UNIT - 1) / UNIT;
        uint32_t per = units / blocks;
        uint32_t extra = units % blocks;
        uint32_t start = (idx * per + (idx < extra ? idx : extra)) * UNIT;
        uint32_t mine = (per + (idx < extra ? 1 : 0)) * UNIT;
        length = start >= total ? 0 : (start + mine > total ? total - start : mine);
        tileLen = tile;
        xGm.SetGlobalBuffer((__gm__ float*)x + start, length);
        outGm.SetGlobalBuffer((__gm__ float*)partials + idx, 1);
        pipe.InitBuffer(inQ, 2, tileLen * sizeof(float));
        pipe.InitBuffer(outQ, 1, 32);
        pipe.InitBuffer(accBuf, tileLen * sizeof(float));
        pipe.InitBuffer(workBuf, tileLen * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        LocalTensor<float> acc = accBuf.Get<float>();
        Duplicate(acc, 0.0f, tileLen);
        for (uint32_t off = 0; off < length; off += tileLen) {
            uint32_t n = length - off < tileLen ? length - off : tileLen;
            LocalTensor<float> xl = inQ.AllocTensor<float>();
            DataCopyExtParams params{1, static_cast<uint32_t>(n * sizeof(float)), 0, 0, 0};
            DataCopyPadExtParams<float> pad{false, 0, 0, 0.0f};
            DataCopyPad(xl, xGm[off], params, pad);
            inQ.EnQue(xl);
            xl = inQ.DeQue<float>();
            Add(acc, acc, xl, n);
            inQ.FreeTensor(xl);
        }
        LocalTensor<float> sum = outQ.AllocTensor<float>();
        ReduceSum(sum, acc, workBuf.Get<float>(), tileLen);
        outQ.EnQue(sum);
        sum = outQ.DeQue<float>();
        DataCopyExtParams params{1, sizeof(float), 0, 0, 0};
        DataCopyPad(outGm, sum, params);
        outQ.FreeTensor(sum);
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, 2> inQ;
    TQue<QuePosition::VECOUT, 1> outQ;
    TBuf<QuePosition::VECCALC> accBuf, workBuf;
    GlobalTensor<float> xGm, outGm;
    uint32_t length = 0, tileLen = 0;
};

extern "C" __global__ __aicore__ void sum_partials_f32(GM_ADDR x, GM_ADDR partials, uint32_t total, uint32_t tile)
{
    SumPartials op;
    op.Init(x, partials, total, tile);
    op.Process();
}
