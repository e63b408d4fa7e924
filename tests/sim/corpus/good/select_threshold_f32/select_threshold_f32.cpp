// y = x > threshold ? x : fill in fp32: CompareScalar writes a bit mask (count form: a whole
// number of 256-byte repeats), then Select in tensor-scalar mode picks x or the fill value.
#include "kernel_operator.h"
using namespace AscendC;

class SelectThreshold {
public:
    __aicore__ inline SelectThreshold() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t total, uint32_t tile, float threshold, float fill)
    {
        blockLen = total / GetBlockNum();
        tileLen = tile;
        this->threshold = threshold;
        this->fill = fill;
        xGm.SetGlobalBuffer((__gm__ float*)x + blockLen * GetBlockIdx(), blockLen);
        yGm.SetGlobalBuffer((__gm__ float*)y + blockLen * GetBlockIdx(), blockLen);
        pipe.InitBuffer(inQ, 2, tileLen * sizeof(float));
        pipe.InitBuffer(outQ, 2, tileLen * sizeof(float));
        pipe.InitBuffer(maskBuf, tileLen / 8);
    }
    __aicore__ inline void Process()
    {
        for (uint32_t off = 0; off < blockLen; off += tileLen) {
            LocalTensor<float> xl = inQ.AllocTensor<float>();
            DataCopy(xl, xGm[off], tileLen);
            inQ.EnQue(xl);
            xl = inQ.DeQue<float>();
            LocalTensor<uint8_t> mask = maskBuf.Get<uint8_t>();
            LocalTensor<float> yl = outQ.AllocTensor<float>();
            CompareScalar(mask, xl, threshold, CMPMODE::GT, tileLen);
            Select(yl, mask, xl, fill, SELMODE::VSEL_TENSOR_SCALAR_MODE, tileLen);
            outQ.EnQue(yl);
            inQ.FreeTensor(xl);
            yl = outQ.DeQue<float>();
            DataCopy(yGm[off], yl, tileLen);
            outQ.FreeTensor(yl);
        }
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, 2> inQ;
    TQue<QuePosition::VECOUT, 2> outQ;
    TBuf<QuePosition::VECCALC> maskBuf;
    GlobalTensor<float> xGm, yGm;
    uint32_t blockLen = 0, tileLen = 0;
    float threshold = 0.0f, fill = 0.0f;
};

extern "C" __global__ __aicore__ void select_threshold_f32(GM_ADDR x, GM_ADDR y, uint32_t total, uint32_t tile, float threshold,
                                                           float fill)
{
    SelectThreshold op;
    op.Init(x, y, total, tile, threshold, fill);
    op.Process();
}
