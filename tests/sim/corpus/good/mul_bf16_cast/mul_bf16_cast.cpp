// z = x * y + x in bf16. A2 has no bf16 arithmetic, so each tile is widened to fp32
// (CAST_NONE), computed, and rounded back with CAST_RINT. Uneven split in 32-byte units;
// the partial last unit moves with DataCopyPad.
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;
constexpr uint32_t UNIT = 32 / sizeof(bfloat16_t);

class MulBf16 {
public:
    __aicore__ inline MulBf16() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t total, uint32_t tile)
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
        xGm.SetGlobalBuffer((__gm__ bfloat16_t*)x + start, length);
        yGm.SetGlobalBuffer((__gm__ bfloat16_t*)y + start, length);
        zGm.SetGlobalBuffer((__gm__ bfloat16_t*)z + start, length);
        pipe.InitBuffer(inX, BUFFER_NUM, tileLen * sizeof(bfloat16_t));
        pipe.InitBuffer(inY, BUFFER_NUM, tileLen * sizeof(bfloat16_t));
        pipe.InitBuffer(outZ, BUFFER_NUM, tileLen * sizeof(bfloat16_t));
        pipe.InitBuffer(xf, tileLen * sizeof(float));
        pipe.InitBuffer(yf, tileLen * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t off = 0; off < length; off += tileLen) {
            uint32_t n = length - off < tileLen ? length - off : tileLen;
            CopyIn(off, n);
            Compute(n);
            CopyOut(off, n);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t off, uint32_t n)
    {
        LocalTensor<bfloat16_t> xl = inX.AllocTensor<bfloat16_t>();
        LocalTensor<bfloat16_t> yl = inY.AllocTensor<bfloat16_t>();
        DataCopyExtParams params{1, static_cast<uint32_t>(n * sizeof(bfloat16_t)), 0, 0, 0};
        DataCopyPadExtParams<bfloat16_t> pad{false, 0, 0, 0};
        DataCopyPad(xl, xGm[off], params, pad);
        DataCopyPad(yl, yGm[off], params, pad);
        inX.EnQue(xl);
        inY.EnQue(yl);
    }
    __aicore__ inline void Compute(uint32_t n)
    {
        LocalTensor<bfloat16_t> xl = inX.DeQue<bfloat16_t>();
        LocalTensor<bfloat16_t> yl = inY.DeQue<bfloat16_t>();
        LocalTensor<bfloat16_t> zl = outZ.AllocTensor<bfloat16_t>();
        LocalTensor<float> a = xf.Get<float>();
        LocalTensor<float> b = yf.Get<float>();
        Cast(a, xl, RoundMode::CAST_NONE, n);
        Cast(b, yl, RoundMode::CAST_NONE, n);
        Mul(b, a, b, n);
        Add(b, b, a, n);
        Cast(zl, b, RoundMode::CAST_RINT, n);
        outZ.EnQue<bfloat16_t>(zl);
        inX.FreeTensor(xl);
        inY.FreeTensor(yl);
    }
    __aicore__ inline void CopyOut(uint32_t off, uint32_t n)
    {
        LocalTensor<bfloat16_t> zl = outZ.DeQue<bfloat16_t>();
        if (n % UNIT == 0) {
            DataCopy(zGm[off], zl, n);
        } else {
            DataCopyExtParams params{1, static_cast<uint32_t>(n * sizeof(bfloat16_t)), 0, 0, 0};
            DataCopyPad(zGm[off], zl, params);
        }
        outZ.FreeTensor(zl);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inX, inY;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outZ;
    TBuf<QuePosition::VECCALC> xf, yf;
    GlobalTensor<bfloat16_t> xGm, yGm, zGm;
    uint32_t length = 0;
    uint32_t tileLen = 0;
};

extern "C" __global__ __aicore__ void mul_bf16_cast(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t total, uint32_t tile)
{
    MulBf16 op;
    op.Init(x, y, z, total, tile);
    op.Process();
}
