// y = 2 * |x[:, c0:c0+w]| for an fp16 [rows, width] matrix: DataCopyPad reads a column window
// of each row (GM-side gap of width-w elements between rows, in bytes), pads every UB row to
// 32 bytes with zeros, and writes the compact [rows, w] result back with DataCopyPad.
#include "kernel_operator.h"
using namespace AscendC;

class PadWindow {
public:
    __aicore__ inline PadWindow() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t rows, uint32_t width, uint32_t c0, uint32_t w, uint32_t tileRows)
    {
        uint32_t blocks = GetBlockNum();
        uint32_t idx = GetBlockIdx();
        uint32_t per = rows / blocks;
        uint32_t extra = rows % blocks;
        uint32_t first = idx * per + (idx < extra ? idx : extra);
        myRows = per + (idx < extra ? 1 : 0);
        this->width = width;
        this->w = w;
        this->tileRows = tileRows;
        padW = (w + 15) / 16 * 16;
        xGm.SetGlobalBuffer((__gm__ half*)x + first * width + c0, myRows * width);
        yGm.SetGlobalBuffer((__gm__ half*)y + first * w, myRows * w);
        pipe.InitBuffer(inQ, 2, tileRows * padW * sizeof(half));
        pipe.InitBuffer(outQ, 2, tileRows * padW * sizeof(half));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t r = 0; r < myRows; r += tileRows) {
            uint32_t n = myRows - r < tileRows ? myRows - r : tileRows;
            LocalTensor<half> xl = inQ.AllocTensor<half>();
            DataCopyExtParams in{static_cast<uint16_t>(n), static_cast<uint32_t>(w * sizeof(half)),
                                 static_cast<uint32_t>((width - w) * sizeof(half)), 0, 0};
            DataCopyPadExtParams<half> pad{true, 0, static_cast<uint8_t>(padW - w), static_cast<half>(0)};
            DataCopyPad(xl, xGm[r * width], in, pad);
            inQ.EnQue(xl);
            xl = inQ.DeQue<half>();
            LocalTensor<half> yl = outQ.AllocTensor<half>();
            Abs(yl, xl, static_cast<int32_t>(n * padW));
            Muls(yl, yl, static_cast<half>(2.0f), static_cast<int32_t>(n * padW));
            outQ.EnQue(yl);
            inQ.FreeTensor(xl);
            yl = outQ.DeQue<half>();
            DataCopyExtParams out{static_cast<uint16_t>(n), static_cast<uint32_t>(w * sizeof(half)), 0, 0, 0};
            DataCopyPad(yGm[r * w], yl, out);
            outQ.FreeTensor(yl);
        }
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, 2> inQ;
    TQue<QuePosition::VECOUT, 2> outQ;
    GlobalTensor<half> xGm, yGm;
    uint32_t myRows = 0, width = 0, w = 0, padW = 0, tileRows = 0;
};

extern "C" __global__ __aicore__ void pad_window_f16(GM_ADDR x, GM_ADDR y, uint32_t rows, uint32_t width, uint32_t c0, uint32_t w,
                                                     uint32_t tileRows)
{
    PadWindow op;
    op.Init(x, y, rows, width, c0, w, tileRows);
    op.Process();
}
