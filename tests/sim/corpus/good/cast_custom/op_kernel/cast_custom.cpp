// y = Cast(x) between the OpDef's dtype pairs (fp16 -> fp32, fp32 -> fp16, bf16 -> fp32); the
// RoundMode comes from the tiling at run time. Tails move with DataCopyPad.
#include "kernel_operator.h"
using namespace AscendC;

template <typename TX, typename TY>
class KernelCast {
public:
    __aicore__ inline KernelCast() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t total, uint32_t blockLength, uint32_t tileLength, uint32_t mode)
    {
        uint32_t start = blockLength * GetBlockIdx();
        length = start + blockLength > total ? total - start : blockLength;
        tileLen = tileLength;
        roundMode = static_cast<RoundMode>(mode);
        xGm.SetGlobalBuffer((__gm__ TX*)x + start, length);
        yGm.SetGlobalBuffer((__gm__ TY*)y + start, length);
        pipe.InitBuffer(inQ, 2, tileLen * sizeof(TX));
        pipe.InitBuffer(outQ, 2, tileLen * sizeof(TY));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t off = 0; off < length; off += tileLen) {
            uint32_t n = length - off < tileLen ? length - off : tileLen;
            LocalTensor<TX> xl = inQ.AllocTensor<TX>();
            DataCopyPad(xl, xGm[off], {1, static_cast<uint32_t>(n * sizeof(TX)), 0, 0, 0}, DataCopyPadExtParams<TX>{false, 0, 0, 0});
            inQ.EnQue(xl);
            xl = inQ.DeQue<TX>();
            LocalTensor<TY> yl = outQ.AllocTensor<TY>();
            Cast(yl, xl, roundMode, n);
            outQ.EnQue(yl);
            inQ.FreeTensor(xl);
            yl = outQ.DeQue<TY>();
            DataCopyPad(yGm[off], yl, {1, static_cast<uint32_t>(n * sizeof(TY)), 0, 0, 0});
            outQ.FreeTensor(yl);
        }
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, 2> inQ;
    TQue<QuePosition::VECOUT, 2> outQ;
    GlobalTensor<TX> xGm;
    GlobalTensor<TY> yGm;
    uint32_t length = 0, tileLen = 0;
    RoundMode roundMode = RoundMode::CAST_NONE;
};

extern "C" __global__ __aicore__ void cast_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    KernelCast<DTYPE_X, DTYPE_Y> op;
    op.Init(x, y, t.totalLength, t.blockLength, t.tileLength, t.roundMode);
    op.Process();
}
