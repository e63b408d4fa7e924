// Symmetric int8 quantisation of fp16 data and the round trip back:
// q = round_half_away(x * scale) as int8 (Cast half->int8, CAST_ROUND; the hardware saturates),
// d = half(q) * (1 / scale) (Cast int8->half, CAST_NONE).
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

class QuantInt8 {
public:
    __aicore__ inline QuantInt8() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR q, GM_ADDR d, uint32_t total, uint32_t tile, float scale)
    {
        blockLen = total / GetBlockNum();
        tileLen = tile;
        uint32_t start = blockLen * GetBlockIdx();
        xGm.SetGlobalBuffer((__gm__ half*)x + start, blockLen);
        qGm.SetGlobalBuffer((__gm__ int8_t*)q + start, blockLen);
        dGm.SetGlobalBuffer((__gm__ half*)d + start, blockLen);
        pipe.InitBuffer(inQ, BUFFER_NUM, tileLen * sizeof(half));
        pipe.InitBuffer(qOut, BUFFER_NUM, tileLen * sizeof(int8_t));
        pipe.InitBuffer(dOut, BUFFER_NUM, tileLen * sizeof(half));
        pipe.InitBuffer(tmp, tileLen * sizeof(half));
        this->scale = static_cast<half>(scale);
        invScale = static_cast<half>(1.0f / scale);
    }
    __aicore__ inline void Process()
    {
        for (uint32_t off = 0; off < blockLen; off += tileLen) {
            LocalTensor<half> xl = inQ.AllocTensor<half>();
            DataCopy(xl, xGm[off], tileLen);
            inQ.EnQue(xl);
            Compute();
            LocalTensor<int8_t> ql = qOut.DeQue<int8_t>();
            DataCopy(qGm[off], ql, tileLen);
            qOut.FreeTensor(ql);
            LocalTensor<half> dl = dOut.DeQue<half>();
            DataCopy(dGm[off], dl, tileLen);
            dOut.FreeTensor(dl);
        }
    }

private:
    __aicore__ inline void Compute()
    {
        LocalTensor<half> xl = inQ.DeQue<half>();
        LocalTensor<half> scaled = tmp.Get<half>();
        LocalTensor<int8_t> ql = qOut.AllocTensor<int8_t>();
        LocalTensor<half> dl = dOut.AllocTensor<half>();
        Muls(scaled, xl, scale, tileLen);
        Cast(ql, scaled, RoundMode::CAST_ROUND, tileLen);
        Cast(dl, ql, RoundMode::CAST_NONE, tileLen);
        Muls(dl, dl, invScale, tileLen);
        qOut.EnQue(ql);
        dOut.EnQue(dl);
        inQ.FreeTensor(xl);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQ;
    TQue<QuePosition::VECOUT, BUFFER_NUM> qOut, dOut;
    TBuf<QuePosition::VECCALC> tmp;
    GlobalTensor<half> xGm, dGm;
    GlobalTensor<int8_t> qGm;
    uint32_t blockLen = 0, tileLen = 0;
    half scale, invScale;
};

extern "C" __global__ __aicore__ void quant_int8_f16(GM_ADDR x, GM_ADDR q, GM_ADDR d, uint32_t total, uint32_t tile, float scale)
{
    QuantInt8 op;
    op.Init(x, q, d, total, tile, scale);
    op.Process();
}
