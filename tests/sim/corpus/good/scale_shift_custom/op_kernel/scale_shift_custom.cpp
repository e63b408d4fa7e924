// y = x * scale + shift, optionally followed by Relu; scale and shift are float attributes
// converted once to the element type (int32 truncates, as static_cast does).
#include "kernel_operator.h"
using namespace AscendC;

template <typename T>
class KernelScaleShift {
public:
    __aicore__ inline KernelScaleShift() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t total, uint32_t blockLength, uint32_t tileLength, float scale,
                                float shift, uint32_t relu)
    {
        uint32_t start = blockLength * GetBlockIdx();
        length = start + blockLength > total ? total - start : blockLength;
        tileLen = tileLength;
        this->scale = static_cast<T>(scale);
        this->shift = static_cast<T>(shift);
        this->relu = relu != 0;
        xGm.SetGlobalBuffer((__gm__ T*)x + start, length);
        yGm.SetGlobalBuffer((__gm__ T*)y + start, length);
        pipe.InitBuffer(inQ, 2, tileLen * sizeof(T));
        pipe.InitBuffer(outQ, 2, tileLen * sizeof(T));
    }
    __aicore__ inline void Process()
    {
        const uint32_t unit = 32 / sizeof(T);
        for (uint32_t off = 0; off < length; off += tileLen) {
            uint32_t n = length - off < tileLen ? length - off : tileLen;
            uint32_t whole = n / unit * unit;  // the 32-byte part moves with DataCopy, the rest with DataCopyPad
            LocalTensor<T> xl = inQ.AllocTensor<T>();
            if (whole > 0) {
                DataCopy(xl, xGm[off], whole);
            }
            if (n > whole) {
                DataCopyPad(xl[whole], xGm[off + whole], {1, static_cast<uint32_t>((n - whole) * sizeof(T)), 0, 0, 0},
                            DataCopyPadExtParams<T>{false, 0, 0, 0});
            }
            inQ.EnQue(xl);
            xl = inQ.DeQue<T>();
            LocalTensor<T> yl = outQ.AllocTensor<T>();
            Muls(yl, xl, scale, n);
            Adds(yl, yl, shift, n);
            if (relu) {
                Relu(yl, yl, n);
            }
            outQ.EnQue(yl);
            inQ.FreeTensor(xl);
            yl = outQ.DeQue<T>();
            if (whole > 0) {
                DataCopy(yGm[off], yl, whole);
            }
            if (n > whole) {
                DataCopyPad(yGm[off + whole], yl[whole], {1, static_cast<uint32_t>((n - whole) * sizeof(T)), 0, 0, 0});
            }
            outQ.FreeTensor(yl);
        }
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, 2> inQ;
    TQue<QuePosition::VECOUT, 2> outQ;
    GlobalTensor<T> xGm, yGm;
    uint32_t length = 0, tileLen = 0;
    T scale, shift;
    bool relu = false;
};

extern "C" __global__ __aicore__ void scale_shift_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    KernelScaleShift<DTYPE_X> op;
    op.Init(x, y, t.totalLength, t.blockLength, t.tileLength, t.scale, t.shift, t.relu);
    op.Process();
}
