// z = max((x << shift) + y, floor) on int32: ShiftLeft and Maxs take an int32 scalar, Add adds
// the two tensors; 32-byte tiles, uneven split of whole tiles over the cores.
#include "kernel_operator.h"
using namespace AscendC;

class ShiftAdd {
public:
    __aicore__ inline ShiftAdd() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t tiles, uint32_t tile, int32_t shift, int32_t floor)
    {
        uint32_t blocks = GetBlockNum();
        uint32_t idx = GetBlockIdx();
        uint32_t per = tiles / blocks;
        uint32_t extra = tiles % blocks;
        uint32_t first = idx * per + (idx < extra ? idx : extra);
        myTiles = per + (idx < extra ? 1 : 0);
        tileLen = tile;
        xGm.SetGlobalBuffer((__gm__ int32_t*)x + first * tile, myTiles * tile);
        yGm.SetGlobalBuffer((__gm__ int32_t*)y + first * tile, myTiles * tile);
        zGm.SetGlobalBuffer((__gm__ int32_t*)z + first * tile, myTiles * tile);
        pipe.InitBuffer(inX, 2, tile * sizeof(int32_t));
        pipe.InitBuffer(inY, 2, tile * sizeof(int32_t));
        pipe.InitBuffer(outZ, 2, tile * sizeof(int32_t));
        this->shift = shift;
        this->floor = floor;
    }
    __aicore__ inline void Process()
    {
        for (uint32_t t = 0; t < myTiles; t++) {
            LocalTensor<int32_t> xl = inX.AllocTensor<int32_t>();
            LocalTensor<int32_t> yl = inY.AllocTensor<int32_t>();
            DataCopy(xl, xGm[t * tileLen], tileLen);
            DataCopy(yl, yGm[t * tileLen], tileLen);
            inX.EnQue(xl);
            inY.EnQue(yl);
            xl = inX.DeQue<int32_t>();
            yl = inY.DeQue<int32_t>();
            LocalTensor<int32_t> zl = outZ.AllocTensor<int32_t>();
            int32_t n = static_cast<int32_t>(tileLen);
            ShiftLeft(zl, xl, shift, n);
            Add(zl, zl, yl, n);
            Maxs(zl, zl, floor, n);
            outZ.EnQue(zl);
            inX.FreeTensor(xl);
            inY.FreeTensor(yl);
            zl = outZ.DeQue<int32_t>();
            DataCopy(zGm[t * tileLen], zl, tileLen);
            outZ.FreeTensor(zl);
        }
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, 2> inX, inY;
    TQue<QuePosition::VECOUT, 2> outZ;
    GlobalTensor<int32_t> xGm, yGm, zGm;
    uint32_t myTiles = 0, tileLen = 0;
    int32_t shift = 0, floor = 0;
};

extern "C" __global__ __aicore__ void int32_shift_add(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t tiles, uint32_t tile, int32_t shift,
                                                      int32_t floor)
{
    ShiftAdd op;
    op.Init(x, y, z, tiles, tile, shift, floor);
    op.Process();
}
