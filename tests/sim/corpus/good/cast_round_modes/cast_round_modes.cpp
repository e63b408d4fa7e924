// fp32 -> int32 with each integer RoundMode (FLOOR, CEIL, ROUND, TRUNC, RINT) and fp32 -> fp16
// with CAST_ODD, one output per mode. Tiles of `tile` elements, blocks split evenly.
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t MODES = 5;

class CastModes {
public:
    __aicore__ inline CastModes() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR ints, GM_ADDR odd, uint32_t total, uint32_t tile)
    {
        blockLen = total / GetBlockNum();
        this->total = total;
        tileLen = tile;
        uint32_t start = blockLen * GetBlockIdx();
        xGm.SetGlobalBuffer((__gm__ float*)x + start, blockLen);
        intGm.SetGlobalBuffer((__gm__ int32_t*)ints, MODES * total);
        oddGm.SetGlobalBuffer((__gm__ half*)odd + start, blockLen);
        this->start = start;
        pipe.InitBuffer(inQ, 1, tileLen * sizeof(float));
        pipe.InitBuffer(intQ, 2, tileLen * sizeof(int32_t));
        pipe.InitBuffer(oddQ, 1, tileLen * sizeof(half));
    }
    __aicore__ inline void Process()
    {
        const RoundMode modes[MODES] = {RoundMode::CAST_FLOOR, RoundMode::CAST_CEIL, RoundMode::CAST_ROUND,
                                        RoundMode::CAST_TRUNC, RoundMode::CAST_RINT};
        for (uint32_t off = 0; off < blockLen; off += tileLen) {
            LocalTensor<float> xl = inQ.AllocTensor<float>();
            DataCopy(xl, xGm[off], tileLen);
            inQ.EnQue(xl);
            xl = inQ.DeQue<float>();
            for (int32_t m = 0; m < MODES; m++) {
                LocalTensor<int32_t> il = intQ.AllocTensor<int32_t>();
                Cast(il, xl, modes[m], tileLen);
                intQ.EnQue(il);
                il = intQ.DeQue<int32_t>();
                DataCopy(intGm[m * total + start + off], il, tileLen);
                intQ.FreeTensor(il);
            }
            LocalTensor<half> hl = oddQ.AllocTensor<half>();
            Cast(hl, xl, RoundMode::CAST_ODD, tileLen);
            oddQ.EnQue(hl);
            inQ.FreeTensor(xl);
            hl = oddQ.DeQue<half>();
            DataCopy(oddGm[off], hl, tileLen);
            oddQ.FreeTensor(hl);
        }
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> inQ;
    TQue<QuePosition::VECOUT, 1> intQ;
    TQue<QuePosition::VECOUT, 1> oddQ;
    GlobalTensor<float> xGm;
    GlobalTensor<int32_t> intGm;
    GlobalTensor<half> oddGm;
    uint32_t blockLen = 0, tileLen = 0, total = 0, start = 0;
};

extern "C" __global__ __aicore__ void cast_round_modes(GM_ADDR x, GM_ADDR ints, GM_ADDR odd, uint32_t total, uint32_t tile)
{
    CastModes op;
    op.Init(x, ints, odd, total, tile);
    op.Process();
}
