#include "kernel_operator.h"
#include "lib/matmul_intf.h"

using namespace AscendC;
using namespace matmul;

// Each vector core runs the Matmul on its singleCoreM x singleCoreN piece of C; the last piece in
// each direction is a tail.
extern "C" __global__ __aicore__ void matmul_custom(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c, GM_ADDR workspace,
                                                    GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    const TCubeTiling& t = tilingData.cubeTilingData;
    const int32_t idx = GetBlockIdx();
    if (idx >= t.usedCoreNum) {
        return;
    }
    const int32_t mBlocks = (t.M + t.singleCoreM - 1) / t.singleCoreM;
    const int32_t mi = idx % mBlocks;
    const int32_t ni = idx / mBlocks;
    const int32_t tailM = t.M - mi * t.singleCoreM < t.singleCoreM ? t.M - mi * t.singleCoreM : t.singleCoreM;
    const int32_t tailN = t.N - ni * t.singleCoreN < t.singleCoreN ? t.N - ni * t.singleCoreN : t.singleCoreN;
    const uint64_t offsetA = tilingData.transA ? mi * t.singleCoreM : uint64_t(mi) * t.singleCoreM * t.Ka;
    const uint64_t offsetB = tilingData.transB ? uint64_t(ni) * t.singleCoreN * t.Kb : ni * t.singleCoreN;
    const uint64_t offsetC = uint64_t(mi) * t.singleCoreM * t.N + ni * t.singleCoreN;

    GlobalTensor<DTYPE_A> aGm;
    GlobalTensor<DTYPE_B> bGm;
    GlobalTensor<float> biasGm;
    GlobalTensor<float> cGm;
    aGm.SetGlobalBuffer((__gm__ DTYPE_A*)a);
    bGm.SetGlobalBuffer((__gm__ DTYPE_B*)b);
    biasGm.SetGlobalBuffer((__gm__ float*)bias);
    cGm.SetGlobalBuffer((__gm__ float*)c);

    TPipe pipe;
    Matmul<MatmulType<TPosition::GM, CubeFormat::ND, DTYPE_A>, MatmulType<TPosition::GM, CubeFormat::ND, DTYPE_B>,
           MatmulType<TPosition::GM, CubeFormat::ND, float>, MatmulType<TPosition::GM, CubeFormat::ND, float>>
        mm;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    mm.SetTensorA(aGm[offsetA], tilingData.transA);
    mm.SetTensorB(bGm[offsetB], tilingData.transB);
    if (tilingData.useBias) {
        mm.SetBias(biasGm[ni * t.singleCoreN]);
    }
    mm.SetTail(tailM, tailN);
    mm.IterateAll(cGm[offsetC]);
    mm.End();
}
