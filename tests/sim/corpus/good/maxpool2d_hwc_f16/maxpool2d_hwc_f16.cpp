// 2-D max pooling of a channels-last [H, W, C] fp16 image (window kh x kw, stride sh x sw, no
// padding). Per output row: one DataCopy of the kh input rows it needs, then for every output
// column the element-wise Max of its kh*kw channel vectors. Output rows split over cores.
#include "kernel_operator.h"
using namespace AscendC;

class MaxPool2d {
public:
    __aicore__ inline MaxPool2d() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t h, uint32_t w, uint32_t c, uint32_t kh, uint32_t kw, uint32_t sh,
                                uint32_t sw)
    {
        this->w = w;
        this->c = c;
        this->kh = kh;
        this->kw = kw;
        this->sh = sh;
        this->sw = sw;
        outH = (h - kh) / sh + 1;
        outW = (w - kw) / sw + 1;
        uint32_t blocks = GetBlockNum();
        uint32_t idx = GetBlockIdx();
        uint32_t per = outH / blocks;
        uint32_t extra = outH % blocks;
        first = idx * per + (idx < extra ? idx : extra);
        count = per + (idx < extra ? 1 : 0);
        xGm.SetGlobalBuffer((__gm__ half*)x, h * w * c);
        yGm.SetGlobalBuffer((__gm__ half*)y, outH * outW * c);
        pipe.InitBuffer(inQ, 2, kh * w * c * sizeof(half));
        pipe.InitBuffer(outQ, 2, outW * c * sizeof(half));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t oh = first; oh < first + count; oh++) {
            LocalTensor<half> rows = inQ.AllocTensor<half>();
            DataCopy(rows, xGm[oh * sh * w * c], kh * w * c);
            inQ.EnQue(rows);
            rows = inQ.DeQue<half>();
            LocalTensor<half> out = outQ.AllocTensor<half>();
            for (uint32_t ow = 0; ow < outW; ow++) {
                LocalTensor<half> dst = out[ow * c];
                Max(dst, rows[At(0, ow, 0)], rows[At(0, ow, 1)], c);
                for (uint32_t k = 2; k < kh * kw; k++) {
                    Max(dst, dst, rows[At(k / kw, ow, k % kw)], c);
                }
            }
            outQ.EnQue(out);
            inQ.FreeTensor(rows);
            out = outQ.DeQue<half>();
            DataCopy(yGm[oh * outW * c], out, outW * c);
            outQ.FreeTensor(out);
        }
    }

private:
    // element offset of window tap (i, j) of output column ow inside the loaded rows
    __aicore__ inline uint32_t At(uint32_t i, uint32_t ow, uint32_t j) const { return (i * w + ow * sw + j) * c; }

    TPipe pipe;
    TQue<QuePosition::VECIN, 2> inQ;
    TQue<QuePosition::VECOUT, 2> outQ;
    GlobalTensor<half> xGm, yGm;
    uint32_t w = 0, c = 0, kh = 0, kw = 0, sh = 0, sw = 0, outH = 0, outW = 0, first = 0, count = 0;
};

extern "C" __global__ __aicore__ void maxpool2d_hwc_f16(GM_ADDR x, GM_ADDR y, uint32_t h, uint32_t w, uint32_t c, uint32_t kh,
                                                        uint32_t kw, uint32_t sh, uint32_t sw)
{
    MaxPool2d op;
    op.Init(x, y, h, w, c, kh, kw, sh, sw);
    op.Process();
}
