// z = x * y + x for a [rows, cols] fp16 matrix whose rows are not 32-byte multiples.
// Several rows move per DataCopyPad burst: in GM they are packed, in UB each row starts
// on a 32-byte boundary (the padding the hardware inserts), and the way back drops it.
// Cores take whole rows; the first `rows % blocks` cores take one more.
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

class MulAddRows {
public:
    __aicore__ inline MulAddRows() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t rows, uint32_t cols, uint32_t tileRows)
    {
        uint32_t blocks = GetBlockNum();
        uint32_t idx = GetBlockIdx();
        uint32_t per = rows / blocks;
        uint32_t extra = rows % blocks;
        uint32_t firstRow = idx * per + (idx < extra ? idx : extra);
        myRows = per + (idx < extra ? 1 : 0);
        this->cols = cols;
        this->tileRows = tileRows;
        padCols = (cols + 15) / 16 * 16;
        uint64_t start = static_cast<uint64_t>(firstRow) * cols;
        xGm.SetGlobalBuffer((__gm__ half*)x + start, myRows * cols);
        yGm.SetGlobalBuffer((__gm__ half*)y + start, myRows * cols);
        zGm.SetGlobalBuffer((__gm__ half*)z + start, myRows * cols);
        uint32_t bytes = tileRows * padCols * sizeof(half);
        pipe.InitBuffer(inX, BUFFER_NUM, bytes);
        pipe.InitBuffer(inY, BUFFER_NUM, bytes);
        pipe.InitBuffer(outZ, BUFFER_NUM, bytes);
    }
    __aicore__ inline void Process()
    {
        for (uint32_t r = 0; r < myRows; r += tileRows) {
            uint32_t n = myRows - r < tileRows ? myRows - r : tileRows;
            CopyIn(r, n);
            Compute(n);
            CopyOut(r, n);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t row, uint32_t n)
    {
        LocalTensor<half> xl = inX.AllocTensor<half>();
        LocalTensor<half> yl = inY.AllocTensor<half>();
        DataCopyExtParams params{static_cast<uint16_t>(n), static_cast<uint32_t>(cols * sizeof(half)), 0, 0, 0};
        DataCopyPadExtParams<half> pad{true, 0, static_cast<uint8_t>(padCols - cols), static_cast<half>(0)};
        DataCopyPad(xl, xGm[row * cols], params, pad);
        DataCopyPad(yl, yGm[row * cols], params, pad);
        inX.EnQue(xl);
        inY.EnQue(yl);
    }
    __aicore__ inline void Compute(uint32_t n)
    {
        LocalTensor<half> xl = inX.DeQue<half>();
        LocalTensor<half> yl = inY.DeQue<half>();
        LocalTensor<half> zl = outZ.AllocTensor<half>();
        int32_t count = static_cast<int32_t>(n * padCols);
        Mul(zl, xl, yl, count);
        Add(zl, zl, xl, count);
        outZ.EnQue<half>(zl);
        inX.FreeTensor(xl);
        inY.FreeTensor(yl);
    }
    __aicore__ inline void CopyOut(uint32_t row, uint32_t n)
    {
        LocalTensor<half> zl = outZ.DeQue<half>();
        DataCopyExtParams params{static_cast<uint16_t>(n), static_cast<uint32_t>(cols * sizeof(half)), 0, 0, 0};
        DataCopyPad(zGm[row * cols], zl, params);
        outZ.FreeTensor(zl);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inX, inY;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outZ;
    GlobalTensor<half> xGm, yGm, zGm;
    uint32_t myRows = 0, cols = 0, padCols = 0, tileRows = 0;
};

extern "C" __global__ __aicore__ void muladd_f16_rows(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t rows, uint32_t cols,
                                                      uint32_t tileRows)
{
    MulAddRows op;
    op.Init(x, y, z, rows, cols, tileRows);
    op.Process();
}
