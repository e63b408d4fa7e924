// Per-row max and sum of an fp16 [rows, cols] matrix with cols <= 128 (one 256-byte repeat per
// row): a tile of rows arrives with DataCopyPad (rows padded to 32 bytes), then one
// WholeReduceMax (ORDER_ONLY_VALUE) and one WholeReduceSum give one value per row each.
#include "kernel_operator.h"
using namespace AscendC;

class RowStats {
public:
    __aicore__ inline RowStats() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR mx, GM_ADDR sm, uint32_t rows, uint32_t cols, uint32_t tileRows)
    {
        uint32_t blocks = GetBlockNum();
        uint32_t idx = GetBlockIdx();
        uint32_t per = rows / blocks;
        uint32_t extra = rows % blocks;
        uint32_t first = idx * per + (idx < extra ? idx : extra);
        myRows = per + (idx < extra ? 1 : 0);
        this->cols = cols;
        this->tileRows = tileRows;
        padCols = (cols + 15) / 16 * 16;
        xGm.SetGlobalBuffer((__gm__ half*)x + first * cols, myRows * cols);
        maxGm.SetGlobalBuffer((__gm__ half*)mx + first, myRows);
        sumGm.SetGlobalBuffer((__gm__ half*)sm + first, myRows);
        pipe.InitBuffer(inQ, 2, tileRows * padCols * sizeof(half));
        pipe.InitBuffer(outQ, 2, (tileRows * sizeof(half) + 31) / 32 * 32);
    }
    __aicore__ inline void Process()
    {
        int32_t repStride = static_cast<int32_t>(padCols * sizeof(half) / 32);
        for (uint32_t r = 0; r < myRows; r += tileRows) {
            uint32_t n = myRows - r < tileRows ? myRows - r : tileRows;
            LocalTensor<half> xl = inQ.AllocTensor<half>();
            DataCopyExtParams in{static_cast<uint16_t>(n), static_cast<uint32_t>(cols * sizeof(half)), 0, 0, 0};
            DataCopyPadExtParams<half> pad{false, 0, 0, 0};
            DataCopyPad(xl, xGm[r * cols], in, pad);
            inQ.EnQue(xl);
            xl = inQ.DeQue<half>();
            LocalTensor<half> mx = outQ.AllocTensor<half>();
            WholeReduceMax<half>(mx, xl, static_cast<int32_t>(cols), static_cast<int32_t>(n), 1, 1, repStride,
                                 ReduceOrder::ORDER_ONLY_VALUE);
            outQ.EnQue(mx);
            LocalTensor<half> sm = outQ.AllocTensor<half>();
            WholeReduceSum<half>(sm, xl, static_cast<int32_t>(cols), static_cast<int32_t>(n), 1, 1, repStride);
            outQ.EnQue(sm);
            inQ.FreeTensor(xl);
            DataCopyExtParams out{1, static_cast<uint32_t>(n * sizeof(half)), 0, 0, 0};
            mx = outQ.DeQue<half>();
            DataCopyPad(maxGm[r], mx, out);
            outQ.FreeTensor(mx);
            sm = outQ.DeQue<half>();
            DataCopyPad(sumGm[r], sm, out);
            outQ.FreeTensor(sm);
        }
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, 2> inQ;
    TQue<QuePosition::VECOUT, 2> outQ;
    GlobalTensor<half> xGm, maxGm, sumGm;
    uint32_t myRows = 0, cols = 0, padCols = 0, tileRows = 0;
};

extern "C" __global__ __aicore__ void row_stats_f16(GM_ADDR x, GM_ADDR mx, GM_ADDR sm, uint32_t rows, uint32_t cols, uint32_t tileRows)
{
    RowStats op;
    op.Init(x, mx, sm, rows, cols, tileRows);
    op.Process();
}
