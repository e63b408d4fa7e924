// Average pooling of NHWC images without padding. One output row (n, oh) at a time: the kh
// input rows it needs arrive in one DataCopy; each output pixel adds its kh*kw channel
// vectors in window order and scales by 1/(kh*kw).
#include "kernel_operator.h"
using namespace AscendC;

template <typename T>
class KernelAvgPool {
public:
    __aicore__ inline KernelAvgPool() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const AvgPool2dTiling& t)
    {
        h = t.height;
        w = t.width;
        c = t.channels;
        outH = t.outHeight;
        outW = t.outWidth;
        kh = t.window[0];
        kw = t.window[1];
        sh = t.stride[0];
        sw = t.stride[1];
        scale = static_cast<T>(t.invArea);
        uint32_t idx = GetBlockIdx();
        first = idx * t.rowsPerCore + (idx < t.extraRows ? idx : t.extraRows);
        count = t.rowsPerCore + (idx < t.extraRows ? 1 : 0);
        xGm.SetGlobalBuffer((__gm__ T*)x);
        yGm.SetGlobalBuffer((__gm__ T*)y);
        pipe.InitBuffer(inQ, 2, kh * w * c * sizeof(T));
        pipe.InitBuffer(outQ, 2, outW * c * sizeof(T));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t row = first; row < first + count; row++) {
            uint32_t img = row / outH;
            uint32_t oh = row % outH;
            LocalTensor<T> in = inQ.AllocTensor<T>();
            DataCopy(in, xGm[(img * h + oh * sh) * w * c], kh * w * c);
            inQ.EnQue(in);
            in = inQ.DeQue<T>();
            LocalTensor<T> out = outQ.AllocTensor<T>();
            for (uint32_t ow = 0; ow < outW; ow++) {
                LocalTensor<T> dst = out[ow * c];
                Add(dst, in[Tap(0, ow)], in[Tap(1, ow)], c);
                for (uint32_t k = 2; k < kh * kw; k++) {
                    Add(dst, dst, in[Tap(k, ow)], c);
                }
                Muls(dst, dst, scale, c);
            }
            outQ.EnQue(out);
            inQ.FreeTensor(in);
            out = outQ.DeQue<T>();
            DataCopy(yGm[row * outW * c], out, outW * c);
            outQ.FreeTensor(out);
        }
    }

private:
    // offset of window tap k (row-major over kh x kw) for output column ow, in the loaded rows
    __aicore__ inline uint32_t Tap(uint32_t k, uint32_t ow) const { return ((k / kw) * w + ow * sw + k % kw) * c; }

    TPipe pipe;
    TQue<QuePosition::VECIN, 2> inQ;
    TQue<QuePosition::VECOUT, 2> outQ;
    GlobalTensor<T> xGm, yGm;
    uint32_t h = 0, w = 0, c = 0, outH = 0, outW = 0, kh = 0, kw = 0, sh = 0, sw = 0, first = 0, count = 0;
    T scale;
};

extern "C" __global__ __aicore__ void avg_pool2d_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    KernelAvgPool<DTYPE_X> op;
    op.Init(x, y, t);
    op.Process();
}
