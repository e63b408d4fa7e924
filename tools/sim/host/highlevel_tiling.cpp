// Host helpers of the high-level APIs (sizes and tiling structs). Temporary-space minimums match
// what the emulated kernels require (kw/highlevel/common.h): 256 bytes for element-wise work, one
// fp32 row for the SoftMax family and the norms.
#include "kwhost/highlevel_tiling.h"
#include <algorithm>
#include <cstdio>
#include <initializer_list>
#include "kw/reduce_pattern_tmp.h"

namespace {
constexpr uint32_t kMinTmp = 256;
uint32_t align32(uint64_t b) { return uint32_t((b + 31) / 32 * 32); }
uint32_t at_least_min(uint64_t b) { return b < kMinTmp ? kMinTmp : align32(b); }
uint64_t numel(const ge::Shape& s) { return s.GetDimNum() ? uint64_t(s.GetShapeSize()) : 0; }
uint64_t last_dim(const ge::Shape& s) { return s.GetDimNum() ? uint64_t(s.GetDim(s.GetDimNum() - 1)) : 0; }
uint64_t rows(const ge::Shape& s) {
    uint64_t k = last_dim(s);
    return k ? numel(s) / k : 0;
}

template <class T> void fill_softmax(T& t, const ge::Shape& shape, uint32_t dtsize, uint32_t workspace) {
    uint32_t m = uint32_t(rows(shape)), k = uint32_t(last_dim(shape));
    uint32_t blk = dtsize ? 32 / dtsize : 8;
    uint32_t row_bytes = k * 4 ? k * 4 : 4;
    uint32_t split = workspace / row_bytes;
    if (split == 0) split = 1;
    if (split > m) split = m ? m : 1;
    t.set_srcM(m);
    t.set_srcK(k);
    t.set_srcSize(m * k);
    t.set_outMaxM(m);
    t.set_outMaxK(blk);
    t.set_outMaxSize(m * blk);
    t.set_splitM(split);
    t.set_splitK(k);
    t.set_splitSize(split * k);
    t.set_reduceM(split);
    t.set_reduceK(blk);
    t.set_reduceSize(split * blk);
    t.set_rangeM(m / split);
    t.set_tailM(m % split);
    t.set_tailSplitSize((m % split) * k);
    t.set_tailReduceSize((m % split) * blk);
}
}  // namespace

namespace AscendC {
uint32_t GetSoftMaxMaxTmpSize(const ge::Shape& s, const uint32_t, const bool) { return at_least_min(numel(s) * 4 + rows(s) * 64); }
uint32_t GetSoftMaxMinTmpSize(const ge::Shape& s, const uint32_t, const bool) { return at_least_min(last_dim(s) * 4); }
void SoftMaxTilingFunc(const ge::Shape& s, const uint32_t dtsize, const uint32_t ws, optiling::SoftMaxTiling& t) {
    fill_softmax(t, s, dtsize, ws);
}
uint32_t GetSoftMaxFlashV2MinTmpSize(const ge::Shape& s, const uint32_t, const uint32_t, const bool, const bool, const bool) {
    return at_least_min(last_dim(s) * 4);
}
uint32_t GetSoftMaxFlashV2MaxTmpSize(const ge::Shape& s, const uint32_t, const uint32_t, const bool, const bool, const bool) {
    return at_least_min(numel(s) * 4 + rows(s) * 64);
}
void SoftMaxFlashV2TilingFunc(const ge::Shape& s, const uint32_t dtsize, const uint32_t, const uint32_t ws, optiling::SoftMaxTiling& t,
                              const bool, const bool, const bool) {
    fill_softmax(t, s, dtsize, ws);
}
bool IsBasicBlockInSoftMax(optiling::SoftMaxTiling& t, const uint32_t) {
    return t.get_srcK() % 64 == 0 && t.get_srcK() <= 2048 && t.get_srcM() % 8 == 0;
}
uint32_t GetSoftMaxGradMaxTmpSize(const ge::Shape& s, const uint32_t d, const bool, const bool r) { return GetSoftMaxMaxTmpSize(s, d, r); }
uint32_t GetSoftMaxGradMinTmpSize(const ge::Shape& s, const uint32_t d, const bool, const bool r) { return GetSoftMaxMinTmpSize(s, d, r); }
void SoftMaxGradTilingFunc(const ge::Shape& s, const uint32_t dtsize, const uint32_t ws, optiling::SoftMaxTiling& t, const bool) {
    fill_softmax(t, s, dtsize, ws);
}
uint32_t GetLogSoftMaxMaxTmpSize(const ge::Shape s, const uint32_t d, const bool r) { return GetSoftMaxMaxTmpSize(s, d, r); }
uint32_t GetLogSoftMaxMinTmpSize(const ge::Shape s, const uint32_t d, const bool r) { return GetSoftMaxMinTmpSize(s, d, r); }
void LogSoftMaxTilingFunc(const ge::Shape s, const uint32_t dtsize, const uint32_t ws, optiling::LogSoftMaxTiling& t) {
    fill_softmax(t, s, dtsize, ws);
}

// ---- normalizations: shapes are [B, S, H] (LayerNorm, RmsNorm, BatchNorm) or [N, C, H, W] (GroupNorm) ----
void GetLayerNormMaxMinTmpSize(const ge::Shape& s, const uint32_t, const bool, uint32_t& maxV, uint32_t& minV) {
    minV = at_least_min(last_dim(s) * 4);
    maxV = at_least_min(numel(s) * 4 * 2);
}
void GetLayerNormNDTilingInfo(const ge::Shape& s, const uint32_t stack, const uint32_t, const bool, optiling::LayerNormTiling& t) {
    uint32_t b = s.GetDimNum() >= 3 ? uint32_t(s.GetDim(0)) : 1, h = uint32_t(last_dim(s));
    uint32_t sl = h ? uint32_t(numel(s) / h / (b ? b : 1)) : 0;
    t.set_bLength(b);
    t.set_sLength(sl);
    t.set_hLength(h);
    t.set_originalHLength(h);
    t.set_inputXSize(b * sl * h);
    t.set_meanVarSize(b * sl);
    t.set_numberOfTmpBuf(3);
    t.set_tmpBufSize(stack / 4);
    t.set_oneTmpSize(stack / 4 / 3);
    t.set_loopRound(1);
    t.set_inputRoundSize(b * sl * h);
    t.set_meanVarRoundSize(b * sl);
    t.set_bshCurLength(b * sl * h);
    t.set_bsCurLength(b * sl);
    t.set_lastDimValueBack(h ? 1.0f / float(h) : 0.0f);
}
void GetLayerNormNDTillingInfo(const ge::Shape& s, const uint32_t stack, const uint32_t ts, const bool r, optiling::LayerNormTiling& t) {
    GetLayerNormNDTilingInfo(s, stack, ts, r, t);
}
void GetLayerNormMaxMinTmpSize(const ge::Shape& s, const uint32_t ts, const bool r, const bool, const bool, uint32_t& maxV, uint32_t& minV) {
    GetLayerNormMaxMinTmpSize(s, ts, r, maxV, minV);
}
void GetLayerNormNDTilingInfo(const ge::Shape& s, const uint32_t stack, const uint32_t, const bool, const bool,
                              optiling::LayerNormSeparateTiling& t) {
    uint32_t r = uint32_t(last_dim(s)), a = uint32_t(rows(s));
    t.set_aLength(a);
    t.set_rLength(r);
    t.set_rHeadLength(r);
    t.set_k2Rec(r ? 1.0f / float(r) : 0.0f);
    t.set_k2RRec(r ? 1.0f / float(r) : 0.0f);
    t.set_inputXSize(a * r);
    t.set_meanVarSize(a);
    t.set_tmpBufSize(stack / 4);
    t.set_loopRound(1);
    t.set_arCurLength(a * r);
    t.set_aCurLength(a);
    t.set_rValueBack(r ? 1.0f / float(r) : 0.0f);
}
bool GetRmsNormMaxMinTmpSize(const ge::Shape& s, const uint32_t, uint32_t& maxV, uint32_t& minV, const bool) {
    minV = at_least_min(last_dim(s) * 4);
    maxV = at_least_min(numel(s) * 4);
    return last_dim(s) > 0;
}
bool GetRmsNormTilingInfo(const ge::Shape& s, const ge::Shape& origin, const uint32_t stack, const uint32_t, optiling::RmsNormTiling& t,
                          const bool) {
    uint32_t h = uint32_t(last_dim(s)), oh = uint32_t(last_dim(origin));
    if (h == 0 || oh == 0 || oh > h || stack < at_least_min(h * 4)) return false;
    uint32_t b = s.GetDimNum() >= 3 ? uint32_t(s.GetDim(0)) : 1;
    uint32_t sl = uint32_t(numel(s) / h / (b ? b : 1));
    t.set_bLength(b);
    t.set_sLength(sl);
    t.set_hLength(h);
    t.set_originalHLength(oh);
    t.set_reciprocalOfHLength(1.0f / float(oh));
    t.set_mainBshLength(b * sl * h);
    t.set_mainBsLength(b * sl);
    t.set_mainBsLengthAlign((b * sl + 7) / 8 * 8);
    t.set_loopRound(1);
    return true;
}
bool GetBatchNormMaxMinTmpSize(const ge::Shape& s, const ge::Shape&, const uint32_t, const bool, uint32_t& maxV, uint32_t& minV, const bool) {
    uint64_t b = s.GetDimNum() ? uint64_t(s.GetDim(0)) : 0;
    minV = at_least_min(b ? numel(s) / b * 4 : 0);
    maxV = at_least_min(numel(s) * 4 * 2);
    return b > 0;
}
bool GetBatchNormNDTilingInfo(const ge::Shape& s, const ge::Shape&, const uint32_t stack, const uint32_t, const bool,
                              optiling::BatchNormTiling& t, const bool) {
    uint32_t b = s.GetDimNum() ? uint32_t(s.GetDim(0)) : 0;
    if (b == 0) return false;
    uint32_t sh = uint32_t(numel(s) / b);
    if (stack < at_least_min(uint64_t(sh) * 4)) return false;
    t.set_originalBLength(b);
    t.set_meanVarSize(sh);
    t.set_tmpBufSize(stack / 4);
    t.set_loopRound(1);
    t.set_bshCurLength(b * sh);
    t.set_shCurLength(sh);
    t.set_firstDimValueBack(1.0f / float(b));
    return true;
}
void GetGroupNormMaxMinTmpSize(const ge::Shape& s, const uint32_t, const bool, const uint32_t g, uint32_t& maxV, uint32_t& minV) {
    uint64_t n = s.GetDimNum() ? uint64_t(s.GetDim(0)) : 1;
    uint64_t per_group = g && n ? numel(s) / n / g : 0;
    minV = at_least_min(per_group * 4);
    maxV = at_least_min(numel(s) * 4 * 2);
}
void GetGroupNormNDTilingInfo(const ge::Shape& s, const uint32_t stack, const uint32_t, const bool, const uint32_t g,
                              optiling::GroupNormTiling& t) {
    uint32_t n = s.GetDimNum() > 0 ? uint32_t(s.GetDim(0)) : 1, c = s.GetDimNum() > 1 ? uint32_t(s.GetDim(1)) : 1;
    uint32_t hw = (n && c) ? uint32_t(numel(s) / n / c) : 0;
    uint32_t d = g ? c / g : 0;
    t.set_n(n);
    t.set_c(c);
    t.set_hw(hw);
    t.set_g(g);
    t.set_d(d);
    t.set_hwAlignSize(hw);
    t.set_dhwAlignSize(d * hw);
    t.set_inputXSize(n * c * hw);
    t.set_meanVarSize(n * g);
    t.set_tmpBufSize(stack / 4);
    t.set_loopRound(1);
    t.set_factor(d * hw ? 1.0f / float(d * hw) : 0.0f);
    t.set_smallShape(d * hw * 4 <= stack);
}

// ---- element-wise ----
#define KW_TMP_IMPL(Name)                                                                                          \
    void Get##Name##MaxMinTmpSize(const ge::Shape& s, const uint32_t, const bool, uint32_t& maxV, uint32_t& minV) { \
        minV = kMinTmp;                                                                                            \
        maxV = at_least_min(numel(s) * 4 * 2);                                                                     \
    }                                                                                                              \
    void Get##Name##TmpBufferFactorSize(const uint32_t typeSize, uint32_t& maxLive, uint32_t& extra) {             \
        maxLive = typeSize ? 8 / typeSize : 2;                                                                     \
        extra = kMinTmp;                                                                                           \
    }
KW_TMP_IMPL(Tanh) KW_TMP_IMPL(Sigmoid) KW_TMP_IMPL(Log) KW_TMP_IMPL(Log2) KW_TMP_IMPL(Log10) KW_TMP_IMPL(Erf) KW_TMP_IMPL(Erfc)
KW_TMP_IMPL(Sin) KW_TMP_IMPL(Cos) KW_TMP_IMPL(Tan) KW_TMP_IMPL(Sinh) KW_TMP_IMPL(Cosh) KW_TMP_IMPL(Asin) KW_TMP_IMPL(Acos) KW_TMP_IMPL(Atan)
KW_TMP_IMPL(Asinh) KW_TMP_IMPL(Acosh) KW_TMP_IMPL(Atanh) KW_TMP_IMPL(Sign) KW_TMP_IMPL(Floor) KW_TMP_IMPL(Ceil) KW_TMP_IMPL(Trunc)
KW_TMP_IMPL(Frac) KW_TMP_IMPL(Clamp) KW_TMP_IMPL(Axpy) KW_TMP_IMPL(Silu) KW_TMP_IMPL(Swish) KW_TMP_IMPL(Digamma) KW_TMP_IMPL(Lgamma)
KW_TMP_IMPL(Fmod) KW_TMP_IMPL(GeGLU) KW_TMP_IMPL(SwiGLU) KW_TMP_IMPL(ReGlu) KW_TMP_IMPL(Xor)
#undef KW_TMP_IMPL
bool GetExpMaxMinTmpSize(const ge::Shape& s, const uint32_t, const bool, uint32_t& maxV, uint32_t& minV) {
    minV = kMinTmp;
    maxV = at_least_min(numel(s) * 4 * 2);
    return true;
}
void GetExpTmpBufferFactorSize(const uint32_t typeSize, uint32_t& maxLive, uint32_t& extra) {
    maxLive = typeSize ? 8 / typeSize : 2;
    extra = kMinTmp;
}
void GetRoundMaxMinTmpSize(const platform_ascendc::PlatformAscendC&, const ge::Shape& s, const uint32_t, const bool, uint32_t& maxV,
                           uint32_t& minV) {
    minV = kMinTmp;
    maxV = at_least_min(numel(s) * 4 * 2);
}
uint32_t GetGeluMinTmpSize(const ge::Shape&, const uint32_t) { return kMinTmp; }
uint32_t GetGeluMaxTmpSize(const ge::Shape& s, const uint32_t) { return at_least_min(numel(s) * 4 * 2); }
void GetGeluMaxMinTmpSize(const ge::Shape& s, const uint32_t ts, uint32_t& maxV, uint32_t& minV) {
    minV = GetGeluMinTmpSize(s, ts);
    maxV = GetGeluMaxTmpSize(s, ts);
}
void GetPowerMaxMinTmpSize(const ge::Shape& s1, const ge::Shape& s2, const bool, const uint32_t, const bool, uint32_t& maxV, uint32_t& minV) {
    minV = kMinTmp;
    maxV = at_least_min((numel(s1) > numel(s2) ? numel(s1) : numel(s2)) * 4 * 3);
}
void GetSumMaxMinTmpSize(const uint32_t n, const uint32_t, const bool, uint32_t& maxS, uint32_t& minS) {
    minS = kMinTmp;
    maxS = at_least_min(uint64_t(n) * 4);
}
void GetMeanMaxMinTmpSize(const uint32_t n, const uint32_t, const uint32_t, const bool, uint32_t& maxS, uint32_t& minS) {
    minS = kMinTmp;
    maxS = at_least_min(uint64_t(n) * 4);
}
void GetCumSumMaxMinTmpSize(const ge::Shape& s, const uint32_t, const bool, const bool, uint32_t& maxV, uint32_t& minV) {
    minV = kMinTmp;
    maxV = at_least_min(numel(s) * 4 * 2);
}

// ---- pattern Reduce APIs ----
namespace {
bool reduce_tmp_args(const char* api, const ge::Shape& s, ge::DataType dt, std::initializer_list<ge::DataType> types,
                     ReducePattern pattern, bool pad) {
    const char* why = nullptr;
    if (std::find(types.begin(), types.end(), dt) == types.end()) why = "the data type is not supported on this platform";
    else if (s.GetDimNum() != 2) why = "srcShape dims must be 2";
    else if (!pad) why = "isSrcInnerPad must be true on this platform";
    else if (pattern != ReducePattern::AR && pattern != ReducePattern::RA) why = "Currently only support AR and RA pattern";
    else if (s.GetDim(0) <= 0 || s.GetDim(1) <= 0) why = "both first and last axis must be greater than 0";
    if (why) std::fprintf(stderr, "[ERROR] [%s][Get%sMaxMinTmpSize] %s.\n", api, api, why);
    return why == nullptr;
}
void reduce_tmp(const char* api, kw::reduce_tmp::Kind kind, const ge::Shape& s, ge::DataType dt,
                std::initializer_list<ge::DataType> types, ReducePattern pattern, bool pad, bool reuse, uint32_t& maxV,
                uint32_t& minV) {
    if (!reduce_tmp_args(api, s, dt, types, pattern, pad)) return;
    const uint32_t size = dt == ge::DT_FLOAT || dt == ge::DT_INT32 ? 4 : dt == ge::DT_FLOAT16 ? 2 : 1;
    if (kind == kw::reduce_tmp::Kind::AnyAllU8 && dt != ge::DT_UINT8) kind = kw::reduce_tmp::Kind::MaxMin;
    maxV = minV = kw::reduce_tmp::min_bytes(kind, uint32_t(s.GetDim(0)), uint32_t(s.GetDim(1)), pattern == ReducePattern::AR,
                                            size, reuse);
}
}  // namespace
#define KW_REDUCE_TMP_IMPL(Name, K, ...)                                                                              \
    void Get##Name##MaxMinTmpSize(const ge::Shape& s, const ge::DataType dt, ReducePattern p, bool pad, bool reuse,      \
                                  uint32_t& maxV, uint32_t& minV) {                                                      \
        reduce_tmp(#Name, kw::reduce_tmp::Kind::K, s, dt, {__VA_ARGS__}, p, pad, reuse, maxV, minV);                  \
    }
KW_REDUCE_TMP_IMPL(ReduceSum, SumMean, ge::DT_FLOAT)
KW_REDUCE_TMP_IMPL(ReduceMean, SumMean, ge::DT_FLOAT)
KW_REDUCE_TMP_IMPL(ReduceProd, Prod, ge::DT_FLOAT)
KW_REDUCE_TMP_IMPL(ReduceMax, MaxMin, ge::DT_FLOAT, ge::DT_FLOAT16)
KW_REDUCE_TMP_IMPL(ReduceMin, MaxMin, ge::DT_FLOAT, ge::DT_FLOAT16)
KW_REDUCE_TMP_IMPL(ReduceAny, AnyAllU8, ge::DT_FLOAT, ge::DT_UINT8)
KW_REDUCE_TMP_IMPL(ReduceAll, AnyAllU8, ge::DT_FLOAT, ge::DT_UINT8)
#undef KW_REDUCE_TMP_IMPL
}  // namespace AscendC
