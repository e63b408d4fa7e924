// SyncAll skipped by the last core (a block-dependent condition): the other cores wait forever.
#include "kernel_operator.h"
using namespace AscendC;

constexpr uint32_t SLOT = 8;  // floats per 32-byte workspace slot

class GlobalSum {
public:
    __aicore__ inline GlobalSum() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, uint32_t total, uint32_t tile)
    {
        blocks = GetBlockNum();
        idx = GetBlockIdx();
        uint32_t units = (total + SLOT - 1) / SLOT;
        uint32_t per = units / blocks;
        uint32_t extra = units % blocks;
        uint32_t start = (idx * per + (idx < extra ? idx : extra)) * SLOT;
        uint32_t mine = (per + (idx < extra ? 1 : 0)) * SLOT;
        length = start >= total ? 0 : (start + mine > total ? total - start : mine);
        tileLen = tile;
        xGm.SetGlobalBuffer((__gm__ float*)x + start, length);
        yGm.SetGlobalBuffer((__gm__ float*)y, 1);
        wsGm.SetGlobalBuffer((__gm__ float*)workspace, blocks * SLOT);
        pipe.InitBuffer(inQ, 2, tileLen * sizeof(float));
        pipe.InitBuffer(slotQ, 1, (blocks > 1 ? blocks : 1) * SLOT * sizeof(float));
        pipe.InitBuffer(accBuf, tileLen * sizeof(float));
        pipe.InitBuffer(workBuf, tileLen * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        LocalTensor<float> acc = accBuf.Get<float>();
        Duplicate(acc, 0.0f, tileLen);
        for (uint32_t off = 0; off < length; off += tileLen) {
            uint32_t n = length - off < tileLen ? length - off : tileLen;
            LocalTensor<float> xl = inQ.AllocTensor<float>();
            DataCopyExtParams params{1, static_cast<uint32_t>(n * sizeof(float)), 0, 0, 0};
            DataCopyPadExtParams<float> pad{false, 0, 0, 0.0f};
            DataCopyPad(xl, xGm[off], params, pad);
            inQ.EnQue(xl);
            xl = inQ.DeQue<float>();
            Add(acc, acc, xl, n);
            inQ.FreeTensor(xl);
        }
        LocalTensor<float> slot = slotQ.AllocTensor<float>();
        Duplicate(slot, 0.0f, SLOT);
        ReduceSum(slot, acc, workBuf.Get<float>(), tileLen);
        slotQ.EnQue(slot);
        slot = slotQ.DeQue<float>();
        DataCopy(wsGm[idx * SLOT], slot, SLOT);
        slotQ.FreeTensor(slot);

        if (idx + 1 < blocks) {
            SyncAll();
        }

        if (idx == 0) {
            LocalTensor<float> all = inQ.AllocTensor<float>();
            DataCopy(all, wsGm, blocks * SLOT);
            inQ.EnQue(all);
            all = inQ.DeQue<float>();
            LocalTensor<float> total = slotQ.AllocTensor<float>();
            ReduceSum(total, all, workBuf.Get<float>(), blocks * SLOT);
            inQ.FreeTensor(all);
            slotQ.EnQue(total);
            total = slotQ.DeQue<float>();
            DataCopyExtParams one{1, sizeof(float), 0, 0, 0};
            DataCopyPad(yGm, total, one);
            slotQ.FreeTensor(total);
        }
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, 2> inQ;
    TQue<QuePosition::VECOUT, 1> slotQ;
    TBuf<QuePosition::VECCALC> accBuf, workBuf;
    GlobalTensor<float> xGm, yGm, wsGm;
    uint32_t blocks = 1, idx = 0, length = 0, tileLen = 0;
};

extern "C" __global__ __aicore__ void global_sum_syncall(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, uint32_t total, uint32_t tile)
{
    GlobalSum op;
    op.Init(x, y, workspace, total, tile);
    op.Process();
}
