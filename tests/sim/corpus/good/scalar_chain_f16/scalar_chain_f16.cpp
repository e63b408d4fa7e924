// y = clamp(leaky_relu(x * scale + bias, slope), lo, hi) in fp16 with tensor-scalar ops.
// The scalars arrive as float kernel parameters and are converted to half once: the
// tensor-scalar APIs deduce T from both the tensor and the scalar.
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

class ScalarChain {
public:
    __aicore__ inline ScalarChain() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t total, uint32_t tile, float scale, float bias, float slope,
                                float lo, float hi)
    {
        blockLen = total / GetBlockNum();
        tileLen = tile;
        xGm.SetGlobalBuffer((__gm__ half*)x + blockLen * GetBlockIdx(), blockLen);
        yGm.SetGlobalBuffer((__gm__ half*)y + blockLen * GetBlockIdx(), blockLen);
        pipe.InitBuffer(inQ, BUFFER_NUM, tileLen * sizeof(half));
        pipe.InitBuffer(outQ, BUFFER_NUM, tileLen * sizeof(half));
        this->scale = static_cast<half>(scale);
        this->bias = static_cast<half>(bias);
        this->slope = static_cast<half>(slope);
        this->lo = static_cast<half>(lo);
        this->hi = static_cast<half>(hi);
    }
    __aicore__ inline void Process()
    {
        uint32_t tiles = blockLen / tileLen;
        for (uint32_t i = 0; i < tiles; i++) {
            LocalTensor<half> xl = inQ.AllocTensor<half>();
            DataCopy(xl, xGm[i * tileLen], tileLen);
            inQ.EnQue(xl);
            Compute();
            LocalTensor<half> yl = outQ.DeQue<half>();
            DataCopy(yGm[i * tileLen], yl, tileLen);
            outQ.FreeTensor(yl);
        }
    }

private:
    __aicore__ inline void Compute()
    {
        LocalTensor<half> xl = inQ.DeQue<half>();
        LocalTensor<half> yl = outQ.AllocTensor<half>();
        int32_t n = static_cast<int32_t>(tileLen);
        Muls(yl, xl, scale, n);
        Adds(yl, yl, bias, n);
        LeakyRelu(yl, yl, slope, n);
        Maxs(yl, yl, lo, n);
        Mins(yl, yl, hi, n);
        outQ.EnQue(yl);
        inQ.FreeTensor(xl);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQ;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQ;
    GlobalTensor<half> xGm, yGm;
    uint32_t blockLen = 0, tileLen = 0;
    half scale, bias, slope, lo, hi;
};

extern "C" __global__ __aicore__ void scalar_chain_f16(GM_ADDR x, GM_ADDR y, uint32_t total, uint32_t tile, float scale,
                                                       float bias, float slope, float lo, float hi)
{
    ScalarChain op;
    op.Init(x, y, total, tile, scale, bias, slope, lo, hi);
    op.Process();
}
