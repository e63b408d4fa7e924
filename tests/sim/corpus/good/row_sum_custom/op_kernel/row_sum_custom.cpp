// Sum over the last axis. Tiling key 1: rows of at most one 256-byte repeat, one
// WholeReduceSum per tile (mask = cols, one repeat per row, srcRepStride = the padded row).
// Tiling key 2: longer rows, a count-form ReduceSum per row into a scalar slot.
#include "kernel_operator.h"
using namespace AscendC;

template <typename T>
class KernelRowSum {
public:
    __aicore__ inline KernelRowSum() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t cols, uint32_t rowsPerCore, uint32_t extraRows, uint32_t tileRows)
    {
        uint32_t idx = GetBlockIdx();
        uint32_t first = idx * rowsPerCore + (idx < extraRows ? idx : extraRows);
        myRows = rowsPerCore + (idx < extraRows ? 1 : 0);
        this->cols = cols;
        this->tileRows = tileRows;
        padCols = (cols + 32 / sizeof(T) - 1) / (32 / sizeof(T)) * (32 / sizeof(T));
        xGm.SetGlobalBuffer((__gm__ T*)x + first * cols, myRows * cols);
        yGm.SetGlobalBuffer((__gm__ T*)y + first, myRows);
        pipe.InitBuffer(inQ, 2, tileRows * padCols * sizeof(T));
        pipe.InitBuffer(outQ, 2, (tileRows * sizeof(T) + 31) / 32 * 32);
        pipe.InitBuffer(workBuf, padCols * sizeof(T));
        pipe.InitBuffer(scalarBuf, 32);
    }
    template <bool ONE_REPEAT>
    __aicore__ inline void Process()
    {
        DataCopyPadExtParams<T> pad{false, 0, 0, 0};
        for (uint32_t r = 0; r < myRows; r += tileRows) {
            uint32_t n = myRows - r < tileRows ? myRows - r : tileRows;
            LocalTensor<T> xl = inQ.AllocTensor<T>();
            DataCopyPad(xl, xGm[r * cols], {static_cast<uint16_t>(n), static_cast<uint32_t>(cols * sizeof(T)), 0, 0, 0}, pad);
            inQ.EnQue(xl);
            xl = inQ.DeQue<T>();
            LocalTensor<T> yl = outQ.AllocTensor<T>();
            if constexpr (ONE_REPEAT) {
                WholeReduceSum<T>(yl, xl, static_cast<int32_t>(cols), static_cast<int32_t>(n), 1, 1,
                                  static_cast<int32_t>(padCols * sizeof(T) / 32));
            } else {
                LocalTensor<T> s = scalarBuf.Get<T>();
                for (uint32_t i = 0; i < n; i++) {
                    ReduceSum(s, xl[i * padCols], workBuf.Get<T>(), static_cast<int32_t>(cols));
                    yl.SetValue(i, s.GetValue(0));
                }
            }
            outQ.EnQue(yl);
            inQ.FreeTensor(xl);
            yl = outQ.DeQue<T>();
            DataCopyPad(yGm[r], yl, {1, static_cast<uint32_t>(n * sizeof(T)), 0, 0, 0});
            outQ.FreeTensor(yl);
        }
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, 2> inQ;
    TQue<QuePosition::VECOUT, 2> outQ;
    TBuf<QuePosition::VECCALC> workBuf, scalarBuf;
    GlobalTensor<T> xGm, yGm;
    uint32_t myRows = 0, cols = 0, padCols = 0, tileRows = 0;
};

extern "C" __global__ __aicore__ void row_sum_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    KernelRowSum<DTYPE_X> op;
    op.Init(x, y, t.cols, t.rowsPerCore, t.extraRows, t.tileRows);
    if (TILING_KEY_IS(1)) {
        op.Process<true>();
    } else if (TILING_KEY_IS(2)) {
        op.Process<false>();
    }
}
