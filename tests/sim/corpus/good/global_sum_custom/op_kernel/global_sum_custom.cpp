// Sum of all elements into a one-element output. Each core accumulates its share in fp32
// and parks its partial in its own 32-byte slot of the user workspace; after SyncAll,
// core 0 reduces the slots and writes the result in the output type.
#include "kernel_operator.h"
using namespace AscendC;

constexpr uint32_t SLOT = 8;  // floats per 32-byte slot

template <typename T>
class KernelGlobalSum {
public:
    __aicore__ inline KernelGlobalSum() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, uint32_t total, uint32_t unitsPerCore, uint32_t extraUnits,
                                uint32_t tile)
    {
        const uint32_t unit = 64;
        uint32_t idx = GetBlockIdx();
        uint32_t start = (idx * unitsPerCore + (idx < extraUnits ? idx : extraUnits)) * unit;
        uint32_t mine = (unitsPerCore + (idx < extraUnits ? 1 : 0)) * unit;
        length = start >= total ? 0 : (start + mine > total ? total - start : mine);
        tileLen = tile;
        blocks = GetBlockNum();
        xGm.SetGlobalBuffer((__gm__ T*)x + start, length);
        yGm.SetGlobalBuffer((__gm__ T*)y, 1);
        slotGm.SetGlobalBuffer((__gm__ float*)GetUserWorkspace(workspace), blocks * SLOT);
        pipe.InitBuffer(inQ, 2, tileLen * sizeof(T));
        pipe.InitBuffer(slotQ, 1, blocks * SLOT * sizeof(float));
        pipe.InitBuffer(outQ, 1, 32);
        pipe.InitBuffer(partQ, 1, SLOT * sizeof(float));
        pipe.InitBuffer(accBuf, tileLen * sizeof(float));
        pipe.InitBuffer(castBuf, tileLen * sizeof(float));
        pipe.InitBuffer(workBuf, tileLen * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        LocalTensor<float> acc = accBuf.Get<float>();
        Duplicate(acc, 0.0f, tileLen);
        DataCopyPadExtParams<T> pad{false, 0, 0, 0};
        for (uint32_t off = 0; off < length; off += tileLen) {
            uint32_t n = length - off < tileLen ? length - off : tileLen;
            LocalTensor<T> xl = inQ.AllocTensor<T>();
            DataCopyPad(xl, xGm[off], {1, static_cast<uint32_t>(n * sizeof(T)), 0, 0, 0}, pad);
            inQ.EnQue(xl);
            xl = inQ.DeQue<T>();
            if constexpr (IsSameType<T, float>::value) {
                Add(acc, acc, xl, n);
            } else {
                LocalTensor<float> f = castBuf.Get<float>();
                Cast(f, xl, RoundMode::CAST_NONE, n);
                Add(acc, acc, f, n);
            }
            inQ.FreeTensor(xl);
        }
        LocalTensor<float> slot = partQ.AllocTensor<float>();
        Duplicate(slot, 0.0f, SLOT);
        ReduceSum(slot, acc, workBuf.Get<float>(), tileLen);
        partQ.EnQue(slot);
        slot = partQ.DeQue<float>();
        DataCopy(slotGm[GetBlockIdx() * SLOT], slot, SLOT);
        partQ.FreeTensor(slot);

        SyncAll();
        if (GetBlockIdx() != 0) {
            return;
        }
        LocalTensor<float> all = slotQ.AllocTensor<float>();
        DataCopy(all, slotGm, blocks * SLOT);
        slotQ.EnQue(all);
        all = slotQ.DeQue<float>();
        LocalTensor<float> total = accBuf.Get<float>();
        ReduceSum(total, all, workBuf.Get<float>(), blocks * SLOT);
        slotQ.FreeTensor(all);
        LocalTensor<T> out = outQ.AllocTensor<T>();
        if constexpr (IsSameType<T, float>::value) {
            DataCopy(out, total, SLOT);
        } else {
            Cast(out, total, RoundMode::CAST_RINT, 1);
        }
        outQ.EnQue(out);
        out = outQ.DeQue<T>();
        DataCopyPad(yGm, out, {1, sizeof(T), 0, 0, 0});
        outQ.FreeTensor(out);
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, 2> inQ;
    TQue<QuePosition::VECIN, 1> slotQ;
    TQue<QuePosition::VECOUT, 1> outQ, partQ;
    TBuf<QuePosition::VECCALC> accBuf, castBuf, workBuf;
    GlobalTensor<T> xGm, yGm;
    GlobalTensor<float> slotGm;
    uint32_t length = 0, tileLen = 0, blocks = 1;
};

extern "C" __global__ __aicore__ void global_sum_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    KernelGlobalSum<DTYPE_X> op;
    op.Init(x, y, workspace, t.totalLength, t.unitsPerCore, t.extraUnits, t.tileLength);
    op.Process();
}
