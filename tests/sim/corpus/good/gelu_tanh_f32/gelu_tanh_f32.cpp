// GELU, tanh approximation, in fp32: gelu(x) = x / (1 + exp(-2u)), u = sqrt(2/pi) (x + 0.044715 x^3)
// (0.5 (1 + tanh u) = 1 / (1 + exp(-2u))). Mul/Muls/Adds/Exp/Div on one working buffer.
#include "kernel_operator.h"
using namespace AscendC;

constexpr float K = 0.7978845608f;  // sqrt(2 / pi)

class KernelGelu {
public:
    __aicore__ inline KernelGelu() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t total, uint32_t tile)
    {
        blockLen = total / GetBlockNum();
        tileLen = tile;
        xGm.SetGlobalBuffer((__gm__ float*)x + blockLen * GetBlockIdx(), blockLen);
        yGm.SetGlobalBuffer((__gm__ float*)y + blockLen * GetBlockIdx(), blockLen);
        pipe.InitBuffer(inQ, 2, tileLen * sizeof(float));
        pipe.InitBuffer(outQ, 2, tileLen * sizeof(float));
        pipe.InitBuffer(tmpBuf, tileLen * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t off = 0; off < blockLen; off += tileLen) {
            LocalTensor<float> xl = inQ.AllocTensor<float>();
            DataCopy(xl, xGm[off], tileLen);
            inQ.EnQue(xl);
            xl = inQ.DeQue<float>();
            LocalTensor<float> yl = outQ.AllocTensor<float>();
            LocalTensor<float> u = tmpBuf.Get<float>();
            int32_t n = static_cast<int32_t>(tileLen);
            Mul(u, xl, xl, n);               // x^2
            Muls(u, u, 0.044715f, n);        // 0.044715 x^2
            Adds(u, u, 1.0f, n);             // 1 + 0.044715 x^2
            Mul(u, u, xl, n);                // x + 0.044715 x^3
            Muls(u, u, -2.0f * K, n);        // -2u
            Exp(u, u, n);
            Adds(u, u, 1.0f, n);
            Div(yl, xl, u, n);
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
    TBuf<QuePosition::VECCALC> tmpBuf;
    GlobalTensor<float> xGm, yGm;
    uint32_t blockLen = 0, tileLen = 0;
};

extern "C" __global__ __aicore__ void gelu_tanh_f32(GM_ADDR x, GM_ADDR y, uint32_t total, uint32_t tile)
{
    KernelGelu op;
    op.Init(x, y, total, tile);
    op.Process();
}
