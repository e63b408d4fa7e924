// Row-wise softmax of a [rows, cols] fp32 matrix by hand: ReduceMax, Adds(-max), Exp,
// ReduceSum, Muls(1/sum). Rows of any length arrive with DataCopyPad into 32-byte aligned
// UB rows; each core owns a contiguous range of rows (the first rows % blocks get one more).
#include "kernel_operator.h"
using namespace AscendC;

class SoftmaxRows {
public:
    __aicore__ inline SoftmaxRows() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t rows, uint32_t cols, uint32_t tileRows)
    {
        uint32_t blocks = GetBlockNum();
        uint32_t idx = GetBlockIdx();
        uint32_t per = rows / blocks;
        uint32_t extra = rows % blocks;
        uint32_t first = idx * per + (idx < extra ? idx : extra);
        myRows = per + (idx < extra ? 1 : 0);
        this->cols = cols;
        this->tileRows = tileRows;
        padCols = (cols + 7) / 8 * 8;
        xGm.SetGlobalBuffer((__gm__ float*)x + first * cols, myRows * cols);
        yGm.SetGlobalBuffer((__gm__ float*)y + first * cols, myRows * cols);
        pipe.InitBuffer(inQ, 2, tileRows * padCols * sizeof(float));
        pipe.InitBuffer(outQ, 2, tileRows * padCols * sizeof(float));
        pipe.InitBuffer(workBuf, padCols * sizeof(float));
        pipe.InitBuffer(scalarBuf, 32);
    }
    __aicore__ inline void Process()
    {
        for (uint32_t r = 0; r < myRows; r += tileRows) {
            uint32_t n = myRows - r < tileRows ? myRows - r : tileRows;
            DataCopyExtParams params{static_cast<uint16_t>(n), static_cast<uint32_t>(cols * sizeof(float)), 0, 0, 0};
            LocalTensor<float> xl = inQ.AllocTensor<float>();
            DataCopyPadExtParams<float> pad{false, 0, 0, 0.0f};
            DataCopyPad(xl, xGm[r * cols], params, pad);
            inQ.EnQue(xl);
            Compute(n);
            LocalTensor<float> yl = outQ.DeQue<float>();
            DataCopyPad(yGm[r * cols], yl, params);
            outQ.FreeTensor(yl);
        }
    }

private:
    __aicore__ inline void Compute(uint32_t n)
    {
        LocalTensor<float> xl = inQ.DeQue<float>();
        LocalTensor<float> yl = outQ.AllocTensor<float>();
        LocalTensor<float> work = workBuf.Get<float>();
        LocalTensor<float> s = scalarBuf.Get<float>();
        int32_t c = static_cast<int32_t>(cols);
        for (uint32_t i = 0; i < n; i++) {
            LocalTensor<float> src = xl[i * padCols];
            LocalTensor<float> dst = yl[i * padCols];
            ReduceMax(s, src, work, c);
            float rowMax = s.GetValue(0);
            Adds(dst, src, -rowMax, c);
            Exp(dst, dst, c);
            ReduceSum(s, dst, work, c);
            float rowSum = s.GetValue(0);
            Muls(dst, dst, 1.0f / rowSum, c);
        }
        outQ.EnQue(yl);
        inQ.FreeTensor(xl);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, 2> inQ;
    TQue<QuePosition::VECOUT, 2> outQ;
    TBuf<QuePosition::VECCALC> workBuf, scalarBuf;
    GlobalTensor<float> xGm, yGm;
    uint32_t myRows = 0, cols = 0, padCols = 0, tileRows = 0;
};

extern "C" __global__ __aicore__ void softmax_rows_f32(GM_ADDR x, GM_ADDR y, uint32_t rows, uint32_t cols, uint32_t tileRows)
{
    SoftmaxRows op;
    op.Init(x, y, rows, cols, tileRows);
    op.Process();
}
