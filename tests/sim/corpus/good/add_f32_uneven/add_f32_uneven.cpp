// z = x + y in fp32. The length is split over the cores in whole 32-byte units, so per-core
// lengths differ by one unit and the last core ends on a partial unit: that tail moves with
// DataCopyPad, everything else with DataCopy. Double-buffered queues.
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;
constexpr uint32_t UNIT = 32 / sizeof(float);  // elements per 32-byte unit

class AddUneven {
public:
    __aicore__ inline AddUneven() {}
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
        xGm.SetGlobalBuffer((__gm__ float*)x + start, length);
        yGm.SetGlobalBuffer((__gm__ float*)y + start, length);
        zGm.SetGlobalBuffer((__gm__ float*)z + start, length);
        pipe.InitBuffer(inX, BUFFER_NUM, tileLen * sizeof(float));
        pipe.InitBuffer(inY, BUFFER_NUM, tileLen * sizeof(float));
        pipe.InitBuffer(outZ, BUFFER_NUM, tileLen * sizeof(float));
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
    __aicore__ inline void Load(const LocalTensor<float>& dst, const GlobalTensor<float>& src, uint32_t n)
    {
        if (n % UNIT == 0) {
            DataCopy(dst, src, n);
        } else {
            DataCopyExtParams params{1, static_cast<uint32_t>(n * sizeof(float)), 0, 0, 0};
            DataCopyPadExtParams<float> pad{false, 0, 0, 0.0f};
            DataCopyPad(dst, src, params, pad);
        }
    }
    __aicore__ inline void CopyIn(uint32_t off, uint32_t n)
    {
        LocalTensor<float> xl = inX.AllocTensor<float>();
        LocalTensor<float> yl = inY.AllocTensor<float>();
        Load(xl, xGm[off], n);
        Load(yl, yGm[off], n);
        inX.EnQue(xl);
        inY.EnQue(yl);
    }
    __aicore__ inline void Compute(uint32_t n)
    {
        LocalTensor<float> xl = inX.DeQue<float>();
        LocalTensor<float> yl = inY.DeQue<float>();
        LocalTensor<float> zl = outZ.AllocTensor<float>();
        Add(zl, xl, yl, n);
        outZ.EnQue<float>(zl);
        inX.FreeTensor(xl);
        inY.FreeTensor(yl);
    }
    __aicore__ inline void CopyOut(uint32_t off, uint32_t n)
    {
        LocalTensor<float> zl = outZ.DeQue<float>();
        if (n % UNIT == 0) {
            DataCopy(zGm[off], zl, n);
        } else {
            DataCopyExtParams params{1, static_cast<uint32_t>(n * sizeof(float)), 0, 0, 0};
            DataCopyPad(zGm[off], zl, params);
        }
        outZ.FreeTensor(zl);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inX, inY;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outZ;
    GlobalTensor<float> xGm, yGm, zGm;
    uint32_t length = 0;
    uint32_t tileLen = 0;
};

extern "C" __global__ __aicore__ void add_f32_uneven(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t total, uint32_t tile)
{
    AddUneven op;
    op.Init(x, y, z, total, tile);
    op.Process();
}
