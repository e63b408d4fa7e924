// z = relu_on_even_lanes((x + y) * scale) in fp32, written with the level-0 vector forms:
// Add with a continuous mask and repeatTimes (full repeats, then the tail), Muls in counter
// mode (SetMaskCount + SetVectorMask, isSetMask=false), and Relu with a bit mask.
#include "kernel_operator.h"
using namespace AscendC;

constexpr uint32_t LANES = 256 / sizeof(float);  // elements per repeat
constexpr uint32_t MAX_REPEAT = 255;

class MaskRepeat {
public:
    __aicore__ inline MaskRepeat() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t total, uint32_t tile, float scale)
    {
        blockLen = total / GetBlockNum();
        tileLen = tile;
        uint32_t start = blockLen * GetBlockIdx();
        xGm.SetGlobalBuffer((__gm__ float*)x + start, blockLen);
        yGm.SetGlobalBuffer((__gm__ float*)y + start, blockLen);
        zGm.SetGlobalBuffer((__gm__ float*)z + start, blockLen);
        pipe.InitBuffer(inX, 2, tileLen * sizeof(float));
        pipe.InitBuffer(inY, 2, tileLen * sizeof(float));
        pipe.InitBuffer(outZ, 2, tileLen * sizeof(float));
        this->scale = scale;
    }
    __aicore__ inline void Process()
    {
        for (uint32_t off = 0; off < blockLen; off += tileLen) {
            LocalTensor<float> xl = inX.AllocTensor<float>();
            LocalTensor<float> yl = inY.AllocTensor<float>();
            DataCopy(xl, xGm[off], tileLen);
            DataCopy(yl, yGm[off], tileLen);
            inX.EnQue(xl);
            inY.EnQue(yl);
            Compute();
            LocalTensor<float> zl = outZ.DeQue<float>();
            DataCopy(zGm[off], zl, tileLen);
            outZ.FreeTensor(zl);
        }
    }

private:
    __aicore__ inline void Compute()
    {
        LocalTensor<float> xl = inX.DeQue<float>();
        LocalTensor<float> yl = inY.DeQue<float>();
        LocalTensor<float> zl = outZ.AllocTensor<float>();
        uint32_t full = tileLen / LANES;
        uint32_t tail = tileLen % LANES;
        BinaryRepeatParams binary;
        for (uint32_t done = 0; done < full; done += MAX_REPEAT) {
            uint32_t rep = full - done < MAX_REPEAT ? full - done : MAX_REPEAT;
            uint32_t at = done * LANES;
            Add(zl[at], xl[at], yl[at], LANES, static_cast<uint8_t>(rep), binary);
        }
        if (tail > 0) {
            Add(zl[full * LANES], xl[full * LANES], yl[full * LANES], tail, 1, binary);
        }

        UnaryRepeatParams unary;
        SetMaskCount();
        SetVectorMask<float, MaskMode::COUNTER>(0, tileLen);
        Muls<float, false>(zl, zl, scale, MASK_PLACEHOLDER, 1, unary);
        SetMaskNorm();
        ResetMask();

        uint64_t even[2] = {0x5555555555555555ULL, 0};
        if (full > 0) {
            Relu(zl, zl, even, static_cast<uint8_t>(full), unary);
        }
        if (tail > 0) {
            uint64_t evenTail[2] = {even[0] & ((1ULL << tail) - 1), 0};
            Relu(zl[full * LANES], zl[full * LANES], evenTail, 1, unary);
        }
        outZ.EnQue<float>(zl);
        inX.FreeTensor(xl);
        inY.FreeTensor(yl);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, 2> inX, inY;
    TQue<QuePosition::VECOUT, 2> outZ;
    GlobalTensor<float> xGm, yGm, zGm;
    uint32_t blockLen = 0, tileLen = 0;
    float scale = 1.0f;
};

extern "C" __global__ __aicore__ void mask_repeat_f32(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t total, uint32_t tile, float scale)
{
    MaskRepeat op;
    op.Init(x, y, z, total, tile, scale);
    op.Process();
}
