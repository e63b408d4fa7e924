#include "kernel_operator.h"
using namespace AscendC;

// Each block computes 32 rows of C[M, N] = A[M, K] x B[K, N] (half in, float out) on the cube,
// with TBuf storage and explicit flags between the MTE2, MTE1, M and FIX pipes.
extern "C" __global__ __aicore__ void cube_tbuf_flags(GM_ADDR a, GM_ADDR b, GM_ADDR c, uint32_t n, uint32_t k)
{
    constexpr uint32_t ROWS = 32;
    constexpr uint32_t FRAC = 256;  // half elements per 512-byte fractal
    const uint32_t nA = (n + 15) / 16 * 16;
    const uint32_t kA = (k + 15) / 16 * 16;
    TPipe pipe;
    TBuf<TPosition::A1> a1Buf;
    TBuf<TPosition::B1> b1Buf;
    TBuf<TPosition::A2> a2Buf;
    TBuf<TPosition::B2> b2Buf;
    TBuf<TPosition::CO1> cBuf;
    pipe.InitBuffer(a1Buf, ROWS * kA * sizeof(half));
    pipe.InitBuffer(b1Buf, kA * nA * sizeof(half));
    pipe.InitBuffer(a2Buf, ROWS * kA * sizeof(half));
    pipe.InitBuffer(b2Buf, kA * nA * sizeof(half));
    pipe.InitBuffer(cBuf, ROWS * nA * sizeof(float));
    LocalTensor<half> a1 = a1Buf.Get<half>();
    LocalTensor<half> b1 = b1Buf.Get<half>();
    LocalTensor<half> a2 = a2Buf.Get<half>();
    LocalTensor<half> b2 = b2Buf.Get<half>();
    LocalTensor<float> c1 = cBuf.Get<float>();
    GlobalTensor<half> ag;
    GlobalTensor<half> bg;
    GlobalTensor<float> cg;
    ag.SetGlobalBuffer((__gm__ half*)a + GetBlockIdx() * ROWS * k);
    bg.SetGlobalBuffer((__gm__ half*)b);
    cg.SetGlobalBuffer((__gm__ float*)c + GetBlockIdx() * ROWS * n);

    DataCopy(a1, ag, Nd2NzParams(1, ROWS, k, 0, k, ROWS, 1, 0));
    DataCopy(b1, bg, Nd2NzParams(1, k, n, 0, n, kA, 1, 0));
    SetFlag<HardEvent::MTE2_MTE1>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_MTE1>(EVENT_ID0);
    for (uint32_t i = 0; i < ROWS / 16; ++i) {
        LoadData(a2[i * (kA / 16) * FRAC], a1[i * FRAC], LoadData2DParams(0, kA / 16, ROWS / 16, 0, 0, false, 0));
    }
    for (uint32_t i = 0; i < kA / 16; ++i) {
        LoadData(b2[i * (nA / 16) * FRAC], b1[i * FRAC], LoadData2DParams(0, nA / 16, kA / 16, 0, 0, true, 0));
    }
    SetFlag<HardEvent::MTE1_M>(EVENT_ID0);
    WaitFlag<HardEvent::MTE1_M>(EVENT_ID0);
    Mmad(c1, a2, b2, MmadParams(ROWS, n, k, 0, false, true));
    SetFlag<HardEvent::M_FIX>(EVENT_ID0);
    WaitFlag<HardEvent::M_FIX>(EVENT_ID0);
    Fixpipe(cg, c1, FixpipeParamsV220(n, ROWS, ROWS, n, false));
}
