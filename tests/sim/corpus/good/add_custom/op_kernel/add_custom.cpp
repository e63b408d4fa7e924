#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

template <typename T>
class KernelAdd {
public:
    __aicore__ inline KernelAdd() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t total, uint32_t unitsPerCore, uint32_t extraUnits,
                                uint32_t tileLength)
    {
        const uint32_t unit = 32 / sizeof(T);
        uint32_t idx = GetBlockIdx();
        uint32_t start = (idx * unitsPerCore + (idx < extraUnits ? idx : extraUnits)) * unit;
        uint32_t mine = (unitsPerCore + (idx < extraUnits ? 1 : 0)) * unit;
        length = start >= total ? 0 : (start + mine > total ? total - start : mine);
        tileLen = tileLength;
        xGm.SetGlobalBuffer((__gm__ T*)x + start, length);
        yGm.SetGlobalBuffer((__gm__ T*)y + start, length);
        zGm.SetGlobalBuffer((__gm__ T*)z + start, length);
        pipe.InitBuffer(inX, BUFFER_NUM, tileLen * sizeof(T));
        pipe.InitBuffer(inY, BUFFER_NUM, tileLen * sizeof(T));
        pipe.InitBuffer(outZ, BUFFER_NUM, tileLen * sizeof(T));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t off = 0; off < length; off += tileLen) {
            uint32_t n = length - off < tileLen ? length - off : tileLen;
            DataCopyExtParams params{1, static_cast<uint32_t>(n * sizeof(T)), 0, 0, 0};
            DataCopyPadExtParams<T> pad{false, 0, 0, 0};
            LocalTensor<T> xl = inX.AllocTensor<T>();
            LocalTensor<T> yl = inY.AllocTensor<T>();
            DataCopyPad(xl, xGm[off], params, pad);
            DataCopyPad(yl, yGm[off], params, pad);
            inX.EnQue(xl);
            inY.EnQue(yl);
            xl = inX.DeQue<T>();
            yl = inY.DeQue<T>();
            LocalTensor<T> zl = outZ.AllocTensor<T>();
            Add(zl, xl, yl, n);
            outZ.EnQue<T>(zl);
            inX.FreeTensor(xl);
            inY.FreeTensor(yl);
            zl = outZ.DeQue<T>();
            DataCopyPad(zGm[off], zl, params);
            outZ.FreeTensor(zl);
        }
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inX, inY;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outZ;
    GlobalTensor<T> xGm, yGm, zGm;
    uint32_t length = 0, tileLen = 0;
};

extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelAdd<DTYPE_X> op;
    op.Init(x, y, z, tilingData.totalLength, tilingData.unitsPerCore, tilingData.extraUnits, tilingData.tileLength);
    op.Process();
}
