// y = 1 / (1 + exp(-x)), computed in fp32 whatever the I/O type (half and bf16 are widened
// with CAST_NONE and rounded back with CAST_RINT).
#include "kernel_operator.h"
using namespace AscendC;

template <typename T>
class KernelSigmoid {
public:
    __aicore__ inline KernelSigmoid() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint64_t total, uint32_t tilesPerCore, uint32_t extraTiles, uint32_t tile)
    {
        uint32_t idx = GetBlockIdx();
        uint64_t start = uint64_t(idx * tilesPerCore + (idx < extraTiles ? idx : extraTiles)) * tile;
        uint64_t mine = uint64_t(tilesPerCore + (idx < extraTiles ? 1 : 0)) * tile;
        length = start >= total ? 0 : static_cast<uint32_t>(start + mine > total ? total - start : mine);
        tileLen = tile;
        xGm.SetGlobalBuffer((__gm__ T*)x + start, length);
        yGm.SetGlobalBuffer((__gm__ T*)y + start, length);
        pipe.InitBuffer(inQ, 2, tileLen * sizeof(T));
        pipe.InitBuffer(outQ, 2, tileLen * sizeof(T));
        pipe.InitBuffer(work, tileLen * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t off = 0; off < length; off += tileLen) {
            uint32_t n = length - off < tileLen ? length - off : tileLen;
            DataCopyExtParams params{1, static_cast<uint32_t>(n * sizeof(T)), 0, 0, 0};
            DataCopyPadExtParams<T> pad{false, 0, 0, 0};
            LocalTensor<T> xl = inQ.AllocTensor<T>();
            DataCopyPad(xl, xGm[off], params, pad);
            inQ.EnQue(xl);
            Compute(n);
            LocalTensor<T> yl = outQ.DeQue<T>();
            DataCopyPad(yGm[off], yl, params);
            outQ.FreeTensor(yl);
        }
    }

private:
    __aicore__ inline void Sigmoid(const LocalTensor<float>& dst, const LocalTensor<float>& src, int32_t n)
    {
        Muls(dst, src, -1.0f, n);
        Exp(dst, dst, n);
        Adds(dst, dst, 1.0f, n);
        Reciprocal(dst, dst, n);
    }
    __aicore__ inline void Compute(uint32_t n)
    {
        LocalTensor<T> xl = inQ.DeQue<T>();
        LocalTensor<T> yl = outQ.AllocTensor<T>();
        if constexpr (IsSameType<T, float>::value) {
            Sigmoid(yl, xl, n);
        } else {
            LocalTensor<float> f = work.Get<float>();
            Cast(f, xl, RoundMode::CAST_NONE, n);
            Sigmoid(f, f, n);
            Cast(yl, f, RoundMode::CAST_RINT, n);
        }
        outQ.EnQue(yl);
        inQ.FreeTensor(xl);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, 2> inQ;
    TQue<QuePosition::VECOUT, 2> outQ;
    TBuf<QuePosition::VECCALC> work;
    GlobalTensor<T> xGm, yGm;
    uint32_t length = 0, tileLen = 0;
};

extern "C" __global__ __aicore__ void sigmoid_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    KernelSigmoid<DTYPE_X> op;
    op.Init(x, y, t.totalLength, t.tilesPerCore, t.extraTiles, t.tileLength);
    op.Process();
}
