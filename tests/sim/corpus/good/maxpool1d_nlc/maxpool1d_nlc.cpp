// 1-D max pooling over L of a channels-last [N, L, C] fp32 tensor (window k, stride s, no
// padding): each output row is the element-wise Max of k input rows of C channels, so the
// vector unit works on whole channel rows (C is a multiple of 8). Output rows are split over
// the cores, the first (N*Lo) % blocks cores taking one more.
#include "kernel_operator.h"
using namespace AscendC;

class MaxPool1d {
public:
    __aicore__ inline MaxPool1d() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t n, uint32_t len, uint32_t ch, uint32_t k, uint32_t s)
    {
        outLen = (len - k) / s + 1;
        this->len = len;
        this->ch = ch;
        this->k = k;
        this->s = s;
        uint32_t outRows = n * outLen;
        uint32_t blocks = GetBlockNum();
        uint32_t idx = GetBlockIdx();
        uint32_t per = outRows / blocks;
        uint32_t extra = outRows % blocks;
        first = idx * per + (idx < extra ? idx : extra);
        count = per + (idx < extra ? 1 : 0);
        xGm.SetGlobalBuffer((__gm__ float*)x, n * len * ch);
        yGm.SetGlobalBuffer((__gm__ float*)y, outRows * ch);
        pipe.InitBuffer(inQ, 2, k * ch * sizeof(float));
        pipe.InitBuffer(outQ, 2, ch * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t r = first; r < first + count; r++) {
            uint32_t batch = r / outLen;
            uint32_t pos = r % outLen;
            LocalTensor<float> window = inQ.AllocTensor<float>();
            DataCopy(window, xGm[(batch * len + pos * s) * ch], k * ch);
            inQ.EnQue(window);
            window = inQ.DeQue<float>();
            LocalTensor<float> out = outQ.AllocTensor<float>();
            Max(out, window, window[ch], ch);
            for (uint32_t j = 2; j < k; j++) {
                Max(out, out, window[j * ch], ch);
            }
            outQ.EnQue(out);
            inQ.FreeTensor(window);
            out = outQ.DeQue<float>();
            DataCopy(yGm[r * ch], out, ch);
            outQ.FreeTensor(out);
        }
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, 2> inQ;
    TQue<QuePosition::VECOUT, 2> outQ;
    GlobalTensor<float> xGm, yGm;
    uint32_t len = 0, ch = 0, k = 0, s = 0, outLen = 0, first = 0, count = 0;
};

extern "C" __global__ __aicore__ void maxpool1d_nlc(GM_ADDR x, GM_ADDR y, uint32_t n, uint32_t len, uint32_t ch, uint32_t k,
                                                    uint32_t s)
{
    MaxPool1d op;
    op.Init(x, y, n, len, ch, k, s);
    op.Process();
}
