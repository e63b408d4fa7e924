// Softmax over the last axis. Rows move in tiles with DataCopyPad (rows padded to 32 bytes in
// UB); each row is normalised in fp32: ReduceMax, Adds(-max), Exp, ReduceSum, Muls(1/sum).
#include "kernel_operator.h"
using namespace AscendC;

template <typename T>
class KernelSoftmax {
public:
    __aicore__ inline KernelSoftmax() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t cols, uint32_t rowsPerCore, uint32_t extraRows, uint32_t tileRows)
    {
        uint32_t idx = GetBlockIdx();
        uint32_t first = idx * rowsPerCore + (idx < extraRows ? idx : extraRows);
        myRows = rowsPerCore + (idx < extraRows ? 1 : 0);
        this->cols = cols;
        this->tileRows = tileRows;
        padCols = (cols + 32 / sizeof(T) - 1) / (32 / sizeof(T)) * (32 / sizeof(T));
        xGm.SetGlobalBuffer((__gm__ T*)x + first * cols, myRows * cols);
        yGm.SetGlobalBuffer((__gm__ T*)y + first * cols, myRows * cols);
        pipe.InitBuffer(inQ, 2, tileRows * padCols * sizeof(T));
        pipe.InitBuffer(outQ, 2, tileRows * padCols * sizeof(T));
        pipe.InitBuffer(floatBuf, tileRows * padCols * sizeof(float));
        pipe.InitBuffer(workBuf, padCols * sizeof(float));
        pipe.InitBuffer(scalarBuf, 32);
    }
    __aicore__ inline void Process()
    {
        for (uint32_t r = 0; r < myRows; r += tileRows) {
            uint32_t n = myRows - r < tileRows ? myRows - r : tileRows;
            DataCopyExtParams params{static_cast<uint16_t>(n), static_cast<uint32_t>(cols * sizeof(T)), 0, 0, 0};
            DataCopyPadExtParams<T> pad{false, 0, 0, 0};
            LocalTensor<T> xl = inQ.AllocTensor<T>();
            DataCopyPad(xl, xGm[r * cols], params, pad);
            inQ.EnQue(xl);
            Compute(n);
            LocalTensor<T> yl = outQ.DeQue<T>();
            DataCopyPad(yGm[r * cols], yl, params);
            outQ.FreeTensor(yl);
        }
    }

private:
    __aicore__ inline void Compute(uint32_t n)
    {
        LocalTensor<T> xl = inQ.DeQue<T>();
        LocalTensor<T> yl = outQ.AllocTensor<T>();
        LocalTensor<float> f = floatBuf.Get<float>();
        LocalTensor<float> work = workBuf.Get<float>();
        LocalTensor<float> s = scalarBuf.Get<float>();
        int32_t all = static_cast<int32_t>(n * padCols);
        int32_t c = static_cast<int32_t>(cols);
        if constexpr (IsSameType<T, float>::value) {
            DataCopy(f, xl, all);
        } else {
            Cast(f, xl, RoundMode::CAST_NONE, all);
        }
        for (uint32_t i = 0; i < n; i++) {
            LocalTensor<float> row = f[i * padCols];
            ReduceMax(s, row, work, c);
            float rowMax = s.GetValue(0);
            Adds(row, row, -rowMax, c);
            Exp(row, row, c);
            ReduceSum(s, row, work, c);
            float rowSum = s.GetValue(0);
            Muls(row, row, 1.0f / rowSum, c);
        }
        if constexpr (IsSameType<T, float>::value) {
            DataCopy(yl, f, all);
        } else {
            Cast(yl, f, RoundMode::CAST_RINT, all);
        }
        outQ.EnQue(yl);
        inQ.FreeTensor(xl);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, 2> inQ;
    TQue<QuePosition::VECOUT, 2> outQ;
    TBuf<QuePosition::VECCALC> floatBuf, workBuf, scalarBuf;
    GlobalTensor<T> xGm, yGm;
    uint32_t myRows = 0, cols = 0, padCols = 0, tileRows = 0;
};

extern "C" __global__ __aicore__ void softmax_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    KernelSoftmax<DTYPE_X> op;
    op.Init(x, y, t.cols, t.rowsPerCore, t.extraRows, t.tileRows);
    op.Process();
}
