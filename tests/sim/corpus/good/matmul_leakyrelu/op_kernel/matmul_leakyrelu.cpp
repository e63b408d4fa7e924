#include "kernel_operator.h"
#include "lib/matmul_intf.h"

using namespace AscendC;
using namespace matmul;

class MatmulLeakyKernel {
public:
    using AType = MatmulType<TPosition::GM, CubeFormat::ND, half>;
    using CType = MatmulType<TPosition::VECIN, CubeFormat::ND, float>;
    using BiasType = MatmulType<TPosition::GM, CubeFormat::ND, float>;
    Matmul<AType, AType, CType, BiasType> mm;

    __aicore__ inline void Init(GM_ADDR x, GM_ADDR w, GM_ADDR bias, GM_ADDR y, const TCubeTiling& t, float alpha, TPipe* pipe)
    {
        tiling = t;
        this->alpha = alpha;
        const int32_t mBlocks = (t.M + t.singleCoreM - 1) / t.singleCoreM;
        const int32_t mi = GetBlockIdx() % mBlocks, ni = GetBlockIdx() / mBlocks;
        tailM = t.M - mi * t.singleCoreM < t.singleCoreM ? t.M - mi * t.singleCoreM : t.singleCoreM;
        tailN = t.N - ni * t.singleCoreN < t.singleCoreN ? t.N - ni * t.singleCoreN : t.singleCoreN;
        xGm.SetGlobalBuffer((__gm__ half*)x + mi * t.singleCoreM * t.Ka);
        wGm.SetGlobalBuffer((__gm__ half*)w + ni * t.singleCoreN);
        biasGm.SetGlobalBuffer((__gm__ float*)bias + ni * t.singleCoreN);
        yGm.SetGlobalBuffer((__gm__ float*)y + mi * t.singleCoreM * t.N + ni * t.singleCoreN);
        pipe->InitBuffer(outQ, 1, t.baseM * t.baseN * sizeof(float));
    }

    // One base block per Iterate: fetch it into UB, activate, write it to its place in y.
    __aicore__ inline void Process()
    {
        mm.SetTensorA(xGm);
        mm.SetTensorB(wGm);
        mm.SetBias(biasGm);
        mm.SetTail(tailM, tailN);
        uint32_t count = 0;
        while (mm.template Iterate<true>()) {
            LocalTensor<float> block = outQ.AllocTensor<float>();
            mm.template GetTensorC<true>(block, false, true);
            const uint32_t roundM = (tailM + tiling.baseM - 1) / tiling.baseM;
            const uint32_t mIdx = count % roundM, nIdx = count / roundM;
            const uint32_t rows = tailM - mIdx * tiling.baseM < (uint32_t)tiling.baseM ? tailM - mIdx * tiling.baseM : tiling.baseM;
            const uint32_t cols = tailN - nIdx * tiling.baseN < (uint32_t)tiling.baseN ? tailN - nIdx * tiling.baseN : tiling.baseN;
            const uint32_t rowElems = (cols + 7) / 8 * 8;  // a block row in UB is padded to 32 bytes
            LeakyRelu(block, block, alpha, rows * rowElems);
            outQ.EnQue(block);
            LocalTensor<float> out = outQ.DeQue<float>();
            DataCopyExtParams params(rows, cols * sizeof(float), 0, (tiling.N - cols) * sizeof(float), 0);
            DataCopyPad(yGm[mIdx * tiling.baseM * tiling.N + nIdx * tiling.baseN], out, params);
            outQ.FreeTensor(out);
            count++;
        }
        mm.End();
    }

private:
    TCubeTiling tiling;
    float alpha;
    uint32_t tailM, tailN;
    GlobalTensor<half> xGm, wGm;
    GlobalTensor<float> biasGm, yGm;
    TQue<QuePosition::VECOUT, 1> outQ;
};

extern "C" __global__ __aicore__ void matmul_leakyrelu(GM_ADDR x, GM_ADDR w, GM_ADDR bias, GM_ADDR y, GM_ADDR workspace,
                                                       GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    if (GetBlockIdx() >= tilingData.cubeTilingData.usedCoreNum) {
        return;
    }
    TPipe pipe;
    MatmulLeakyKernel op;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), op.mm, &tilingData.cubeTilingData);
    op.Init(x, w, bias, y, tilingData.cubeTilingData, tilingData.alpha, &pipe);
    op.Process();
}
