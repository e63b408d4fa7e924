// Every overload form of the high-level APIs the emulation provides, as CANN 8.1.RC1 accepts them
// (checked with its headers); the emulation must accept them too.
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void hl(GM_ADDR) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 65536);
    LocalTensor<half> h = buf.Get<half>(4096);
    LocalTensor<half> h2 = buf.GetWithOffset<half>(1024, 8192);
    LocalTensor<float> f = buf.GetWithOffset<float>(2048, 16384);
    LocalTensor<float> f2 = buf.GetWithOffset<float>(1024, 24576);
    LocalTensor<uint8_t> tmp = buf.GetWithOffset<uint8_t>(8192, 32768);
    LocalTensor<int32_t> i32 = buf.GetWithOffset<int32_t>(1024, 40960);
    Tanh(h2, h, tmp, 256); Tanh(h2, h, 256); Tanh(h2, h, tmp); Tanh(h2, h);
    Sigmoid<float>(f2, f, 64); Log(f2, f, 64); Log(f2, f); Log2(f2, f, tmp, 64); Log10(f2, f);
    Exp<float, 10, false>(f2, f, 64); Exp<half, 0>(h2, h, tmp, 128);
    Erf(f2, f, 64); Erfc(f2, f, tmp); Sin(f2, f); Cos(f2, f, tmp, 64); Tan(f2, f, 64); Sinh(f2, f); Cosh(f2, f);
    Asin(f2, f); Acos(f2, f); Atan(f2, f); Sign(h2, h, 128); Floor(f2, f, 64); Ceil(f2, f, tmp, 64); Round(f2, f, 64);
    Trunc(f2, f); Frac(f2, f, tmp, 64);
    Gelu(h2, h, 128); FasterGelu(f2, f, tmp, 64); FasterGeluV2(f2, f, 64); Silu(f2, f, 64); Swish(h2, h, 128, (half)1.5);
    Power(f2, f, f, 64); Power(f2, f, 2.0f, 64); Power(f2, 2.0f, f, tmp, 64); Power(i32, i32, i32, 64); Power(f2, f, f);
    ClampMax(f2, f, tmp, 1.0f, 64); ClampMin(h2, h, (half)0, 128);
    Axpy<float, half>(f2, h, (half)2, tmp, 64);
    SoftMaxTiling st; SoftMaxShapeInfo si{8, 64, 8, 64};
    SoftMax<float>(f2, f, f, f, st, si);
    SoftMax<half>(h2, f, f, h, tmp, st, si);
    SoftMax<float>(f2, f, tmp, st);
    SoftMax<float, false, false>(f2, f, st, si);
    SimpleSoftMax<float>(f2, f, f, f, st, si);
    SimpleSoftMax<half>(h2, f2, f2, h, tmp, st);
    LogSoftMaxTiling lt; LogSoftMax<float>(f2, f, f, f, tmp, lt, si);
    SoftmaxFlashV2<float, true>(f2, f, f, f, f, f, f, st, si);
    SoftmaxFlashV2<half, false>(h2, f, f, h, h, f, f, tmp, st, si);
    LayerNormTiling lnt; LayerNorm(h2, h, h, h, h, h, tmp, (half)1e-5, lnt); LayerNorm<float>(f2, f, f, f, f, f, 1e-5f, lnt);
    LayerNormPara para{8, 64, 64}; LayerNormSeparateTiling lst;
    LayerNorm<float, half>(h2, f, f, h, f, f, 1e-5f, para, lst);
    LayerNorm<float, float>(f2, f, f, f, f, f, 1e-5f, tmp, para, lst);
    RmsNormTiling rt; RmsNorm(f2, f, f, tmp, 1e-5f, rt); RmsNorm<half, false>(h2, h, h, (half)1e-5, rt);
    BatchNormTiling bt; BatchNorm(f2, f, f, f, f, f, tmp, 1e-5f, bt); BatchNorm<float, false, false>(f2, f, f, f, f, f, 1e-5f, bt);
    GroupNormTiling gt; GroupNorm(f2, f, f, f, f, f, tmp, 1e-5f, gt); GroupNorm(f2, f, f, f, f, f, 1e-5f, gt);
    SumParams sp{1, 64, 64}; Sum(f2, f, tmp, sp); Sum(f2, f, sp);
    MeanParams mp{1, 64, 64}; Mean(f2, f, tmp, mp); Mean<half, float>(h2, h, mp);
    CumSumInfo ci{2, 64}; CumSum(f2, f2, f, tmp, ci); CumSum<float>(f2, f2, f, ci);
    // the pattern Reduce APIs, as MultiKernelBench answers call them (and the basic ReduceSum beside them)
    uint32_t shp[] = {8, 64};
    ReduceMax<float, Pattern::Reduce::RA>(f2, f, tmp, shp, true); ReduceMin<float, Pattern::Reduce::RA, true>(f2, f, shp, true);
    ReduceSum<float, Pattern::Reduce::AR>(f2, f, tmp, shp, true); ReduceProd<float, Pattern::Reduce::AR>(f2, f, tmp, shp, true);
    ReduceMean<float, Pattern::Reduce::AR>(f2, f, shp, true); ReduceMax<half, Pattern::Reduce::AR>(h2, h, tmp, shp, true);
    ReduceAny<float, Pattern::Reduce::RA>(f2, f, tmp, shp, true); ReduceAll<float, Pattern::Reduce::AR>(f2, f, shp, true);
    ReduceSum(f2, f, f2, 64); ReduceMax(f2, f, f2, 64, false);
    // kernel-side flash-softmax tiling (NPUKernelBench FlashAttentionScoreWithLargeHeadDim re-tiles per block)
    constexpr SoftMaxTiling ft = SoftMaxFlashV2TilingFuncImpl(8, 64, 4, 4, 2048, false, true);
    static_assert(ft.reduceM == 8 && ft.rangeM == 1 && ft.outMaxK == 8, "SoftMaxFlashV2TilingFuncImpl");
    SoftMaxTiling ft2 = SoftMaxFlashV2TilingFunc(SoftMaxShapeInfo{8, 64, 8, 64}, 2, 4, 8192, true);
    SoftmaxFlashV2<float, true>(f2, f, f, f, f, f, f, ft2, si);
}
