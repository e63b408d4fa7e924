// SoftMax, SimpleSoftMax, LogSoftMax, SoftmaxFlashV2 and AdjustSoftMaxRes (ND format). The input
// is viewed as [m, k] (all leading axes folded into m); the last axis must be 32-byte aligned;
// the max/sum tensors hold one 32-byte block per row with the row value broadcast (8 floats or 16
// halves), or one value per row with SoftmaxMode::SOFTMAX_OUTPUT_WITHOUT_BRC.
#pragma once
#include "kw/highlevel/common.h"

namespace AscendC {
struct SoftMaxShapeInfo {
    uint32_t srcM{0};
    uint32_t srcK{0};
    uint32_t oriSrcM{0};
    uint32_t oriSrcK{0};
};
enum class SoftmaxMode { SOFTMAX_NORMAL = 0, SOFTMAX_OUTPUT_WITHOUT_BRC = 1 };
struct SoftmaxConfig {
    constexpr SoftmaxConfig(const bool isCheckTilingIn) : isCheckTiling(isCheckTilingIn) {}
    constexpr SoftmaxConfig(const bool isCheckTilingIn, const uint32_t oriSrcMIn, const uint32_t oriSrcKIn)
        : isCheckTiling(isCheckTilingIn), oriSrcM(oriSrcMIn), oriSrcK(oriSrcKIn) {}
    constexpr SoftmaxConfig(const bool isCheckTilingIn, const uint32_t oriSrcMIn, const uint32_t oriSrcKIn, const SoftmaxMode modeIn)
        : isCheckTiling(isCheckTilingIn), oriSrcM(oriSrcMIn), oriSrcK(oriSrcKIn), mode(modeIn) {}
    bool isCheckTiling = true;
    uint32_t oriSrcM = 0;
    uint32_t oriSrcK = 0;
    SoftmaxMode mode = SoftmaxMode::SOFTMAX_NORMAL;
};
constexpr SoftmaxConfig SOFTMAX_DEFAULT_CFG = {true, 0, 0, SoftmaxMode::SOFTMAX_NORMAL};

// Kernel-side tiling of SoftmaxFlashV2 (the library's softmax_flashv2_base_impl.h / softmax_common_shape_process.h):
// flash-attention kernels re-tile per block with it. localWorkSpaceSize counts floats in the Impl form and
// bytes in SoftMaxFlashV2TilingFunc.
constexpr uint32_t kw_nd_split_m(uint32_t work, uint32_t typeSize, uint32_t reduceK, uint32_t m, uint32_t k, bool basic) {
    uint32_t splitM = typeSize == 2 ? work / (reduceK + k + 64) : work / (reduceK + 64);
    splitM = splitM < m ? splitM : m;
    if (basic && splitM > 8 && m % 8 == 0) {
        splitM = splitM / 8 * 8;
        while (splitM && m % splitM != 0) splitM -= 8;
        while (splitM && splitM * k >= 64 * 256) splitM /= 2;
    }
    return splitM;
}
constexpr SoftMaxTiling SoftMaxFlashV2TilingFuncImpl(const uint32_t srcM, const uint32_t srcK, const uint32_t dataTypeSize1,
                                                     const uint32_t dataTypeSize2, const uint32_t localWorkSpaceSize,
                                                     const bool isUpdate = false, const bool isBasicBlock = false,
                                                     const bool isDataFormatNZ = false, const bool isFlashOutputBrc = false) {
    (void)isUpdate;
    SoftMaxTiling t;
    const uint32_t perBlk = 32 / dataTypeSize2;
    t.srcM = srcM; t.srcK = srcK; t.srcSize = srcM * srcK;
    t.outMaxM = srcM; t.outMaxK = perBlk; t.outMaxSize = srcM * perBlk;
    if (isDataFormatNZ) {
        t.reduceM = localWorkSpaceSize / (16 * 3 + srcK);
    } else if (isBasicBlock && srcK % 64 == 0 && srcM % 8 == 0) {
        t.reduceM = kw_nd_split_m(localWorkSpaceSize, dataTypeSize1, perBlk, srcM, srcK, isBasicBlock);
    } else {
        t.reduceM = dataTypeSize1 == 2 ? localWorkSpaceSize / (2 * perBlk + srcK + 64) : localWorkSpaceSize / (perBlk + 64);
    }
    const uint32_t tile = isFlashOutputBrc && dataTypeSize1 == 2 ? 16 : 8;
    if (t.reduceM < srcM && t.reduceM > tile) t.reduceM = t.reduceM / tile * tile;
    t.reduceM = t.reduceM < srcM ? t.reduceM : srcM;
    t.reduceK = perBlk; t.reduceSize = t.reduceM * perBlk;
    t.splitM = t.reduceM; t.splitK = srcK; t.splitSize = t.reduceM * srcK;
    t.rangeM = t.reduceM ? srcM / t.reduceM : 0;
    t.tailM = t.reduceM ? srcM % t.reduceM : srcM;
    t.tailSplitSize = t.tailM * srcK; t.tailReduceSize = t.tailM * perBlk;
    return t;
}
constexpr SoftMaxTiling SoftMaxFlashV2TilingFunc(const SoftMaxShapeInfo& shapeInfo, const uint32_t dataTypeSize1,
                                                 const uint32_t dataTypeSize2, const uint32_t localWorkSpaceSize,
                                                 const bool isUpdate = false, const bool isBasicBlock = false,
                                                 const bool isDataFormatNZ = false, const bool isFlashOutputBrc = false) {
    return SoftMaxFlashV2TilingFuncImpl(shapeInfo.srcM, shapeInfo.srcK, dataTypeSize1, dataTypeSize2, localWorkSpaceSize / 4,
                                        isUpdate, isBasicBlock, isDataFormatNZ, isFlashOutputBrc);
}
}  // namespace AscendC

namespace kw::hl {
using AscendC::SoftMaxShapeInfo;

struct RowShape {
    uint32_t m, k, valid_k;  // rows, 32-byte aligned row length, real row length
};

// Shape from the SoftMaxShapeInfo argument, else from the tiling (srcM, srcK).
template <class T, class Tiling>
inline RowShape softmax_shape(const char* api, const Tiling& tiling, const SoftMaxShapeInfo& info, bool basic_block, bool nz) {
    if (nz) shape_error(api, "isDataFormatNZ = true (NZ layout) is not supported by the CPU emulation", "use the ND layout");
    RowShape s{info.srcM, info.srcK, info.oriSrcK};
    if (s.m == 0 || s.k == 0) s = {tiling.srcM, tiling.srcK, tiling.srcK};
    if (s.valid_k == 0 || s.valid_k > s.k) s.valid_k = s.k;
    if (s.m == 0 || s.k == 0)
        shape_error(api, "the shape is empty: SoftMaxShapeInfo is {0,...} and the tiling has srcM = " + std::to_string(tiling.srcM) +
                             ", srcK = " + std::to_string(tiling.srcK),
                    "fill the tiling on the host (SoftMaxTilingFunc) and pass it through the tiling data, or pass SoftMaxShapeInfo{m, k, m, k}");
    if (uint64_t(s.k) * sizeof(T) % 32 != 0)
        shape_error(api, "the last axis has " + std::to_string(s.k) + " elements = " + std::to_string(uint64_t(s.k) * sizeof(T)) +
                             " bytes, which is not 32-byte aligned",
                    "pad each row to a multiple of " + std::to_string(32 / sizeof(T)) + " elements and pass the real length as oriSrcK");
    if (basic_block && (s.k % 64 != 0 || s.m % 8 != 0 || s.k >= 2048))
        shape_error(api, "isBasicBlock = true needs the row length to be a multiple of 64 below 2048 and the row count a multiple of 8 (got m = " +
                             std::to_string(s.m) + ", k = " + std::to_string(s.k) + ")",
                    "set isBasicBlock = false for this shape");
    return s;
}

// Per-row statistics tensors: one block per row (broadcast) or one value per row.
template <class R> struct RowStat {
    const LocalTensor<R>& t;
    bool packed;
    uint32_t stride() const { return packed ? 1 : 32 / sizeof(R); }
    uint64_t elems(uint32_t m) const { return uint64_t(m) * stride(); }
    float get(uint32_t row) const { return float(t.ptr()[uint64_t(row) * stride()]); }
    void put(std::vector<R>& out, uint32_t row, float v) const {
        for (uint32_t j = 0; j < stride(); ++j) out[uint64_t(row) * stride() + j] = R(v);
    }
};

template <class R> inline RowStat<R> row_stat(const LocalTensor<R>& t, bool packed) { return RowStat<R>{t, packed}; }

template <class R> inline void store_stat(const char* api, const RowStat<R>& s, const std::vector<R>& v, const char* name) {
    write_span(api, s.t, v.size(), name);
    std::memcpy(s.t.ptr(), v.data(), v.size() * sizeof(R));
}

// Row-wise soft-max kernels. kind: 0 softmax, 1 log-softmax, 2 flash-v2 (unnormalised exp),
// 3 simple softmax (uses the given max/sum). sum/max are null when the caller keeps no statistics;
// for flash-v2 with update, inMax/inSum/expMax are set.
template <class T, class R, class E>
void softmax_rows(const char* api, int kind, const LocalTensor<T>& dst, const LocalTensor<T>& src, const RowShape& s, const RowStat<R>* sum,
                  const RowStat<R>* max, const RowStat<R>* inSum, const RowStat<R>* inMax, const RowStat<E>* expMax) {
    const uint64_t n = uint64_t(s.m) * s.k;
    read_span(api, src, n, "src");
    if (kind == 3) read_span(api, sum->t, sum->elems(s.m), "inSumTensor"), read_span(api, max->t, max->elems(s.m), "inMaxTensor");
    if (inSum) read_span(api, inSum->t, inSum->elems(s.m), "inExpSumTensor"), read_span(api, inMax->t, inMax->elems(s.m), "inMaxTensor");
    std::vector<T> out(n, T(0));
    std::vector<R> sums(sum ? sum->elems(s.m) : 0), maxs(max ? max->elems(s.m) : 0);
    std::vector<E> emax(expMax ? expMax->elems(s.m) : 0);
    for (uint32_t r = 0; r < s.m; ++r) {
        const T* x = src.ptr() + uint64_t(r) * s.k;
        float mx, total = 0.0f;
        if (kind == 3) {
            mx = max->get(r);
        } else {
            mx = -INFINITY;
            for (uint32_t j = 0; j < s.valid_k; ++j) mx = std::fmax(mx, float(x[j]));
            if (inMax) mx = std::fmax(mx, inMax->get(r));
            mx = float(R(mx));  // the row max is stored (and reused) in R
        }
        std::vector<float> e(s.valid_k);
        for (uint32_t j = 0; j < s.valid_k; ++j) e[j] = std::exp(float(x[j]) - mx), total += e[j];
        if (kind == 3) total = sum->get(r);
        if (inSum) {
            float scale = std::exp(inMax->get(r) - mx);
            total += scale * inSum->get(r);
            expMax->put(emax, r, scale);
        }
        T* d = out.data() + uint64_t(r) * s.k;
        for (uint32_t j = 0; j < s.valid_k; ++j)
            d[j] = kind == 1 ? T(float(x[j]) - mx - std::log(total)) : kind == 2 ? T(e[j]) : T(e[j] / total);
        if (kind != 3 && sum) sum->put(sums, r, total), max->put(maxs, r, mx);
    }
    if (kind != 3 && sum) store_stat(api, *sum, sums, "sumTensor"), store_stat(api, *max, maxs, "maxTensor");
    if (expMax) store_stat(api, *expMax, emax, "expMaxTensor");
    write_span(api, dst, n, "dst");
    std::memcpy(dst.ptr(), out.data(), n * sizeof(T));
    rt::count_vec(api, dtype_name<T>(), repeats_for(n, sizeof(T)) * 4, n);
}

template <class T>
inline void softmax_tmp(const char* api, const LocalTensor<uint8_t>* tmp, const RowShape& s, const LocalTensor<T>& dst, const LocalTensor<T>& src) {
    const uint64_t n = uint64_t(s.m) * s.k;
    tmp_or_stack(api, tmp, row_tmp_bytes(s.k), span_of(src, n), span_of(dst, n));
}
}  // namespace kw::hl

namespace AscendC {
#define KW_SOFTMAX_DTYPE(API)                                                                                           \
    static_assert(SupportType<T, half, float>(), "Failed to check dtype in " #API ", current api support dtype combination is src and dst both: half / float.")
#define KW_STAT(TENSOR) kw::hl::row_stat(TENSOR, config.mode == SoftmaxMode::SOFTMAX_OUTPUT_WITHOUT_BRC)

// ---- SoftMax: dst, sum and max; (half, float, float, half) mixed form; dst/src-only forms ----
#define KW_SOFTMAX_FULL(DT, RT, TMP_P, TMP_A)                                                                           \
    template <typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,           \
              const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>                                                         \
    inline void SoftMax(const LocalTensor<DT>& dstTensor, const LocalTensor<RT>& sumTensor, const LocalTensor<RT>& maxTensor,   \
                        const LocalTensor<DT>& srcTensor TMP_P, const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {}) { \
        KW_SOFTMAX_DTYPE(SoftMax);                                                                                       \
        kw::hl::RowShape s = kw::hl::softmax_shape<DT>("SoftMax", tiling, softmaxShapeInfo, isBasicBlock, isDataFormatNZ); \
        kw::hl::softmax_tmp<DT>("SoftMax", TMP_A, s, dstTensor, srcTensor);                                              \
        const kw::hl::RowStat<RT> sum = KW_STAT(sumTensor), max = KW_STAT(maxTensor);                                    \
        kw::hl::softmax_rows<DT, RT, RT>("SoftMax", 0, dstTensor, srcTensor, s, &sum, &max, nullptr, nullptr, nullptr);    \
    }
#define KW_COMMA ,
KW_SOFTMAX_FULL(T, T, , nullptr)
KW_SOFTMAX_FULL(half, float, , nullptr)
KW_SOFTMAX_FULL(T, T, KW_COMMA const LocalTensor<uint8_t>& sharedTmpBuffer, &sharedTmpBuffer)
KW_SOFTMAX_FULL(half, float, KW_COMMA const LocalTensor<uint8_t>& sharedTmpBuffer, &sharedTmpBuffer)
#undef KW_SOFTMAX_FULL

namespace kwsm {
template <typename T, bool isBasicBlock>
inline void dst_only(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>* tmp, const SoftMaxTiling& tiling,
                     const SoftMaxShapeInfo& info) {
    kw::hl::RowShape s = kw::hl::softmax_shape<T>("SoftMax", tiling, info, isBasicBlock, false);
    kw::hl::softmax_tmp<T>("SoftMax", tmp, s, dst, src);
    kw::hl::softmax_rows<T, T, T>("SoftMax", 0, dst, src, s, nullptr, nullptr, nullptr, nullptr, nullptr);
}
}  // namespace kwsm
template <typename T, bool isReuseSource = false, bool isBasicBlock = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const SoftMaxTiling& tiling,
                    const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
    KW_SOFTMAX_DTYPE(SoftMax);
    kwsm::dst_only<T, isBasicBlock>(dstTensor, srcTensor, nullptr, tiling, softmaxShapeInfo);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const LocalTensor<uint8_t>& sharedTmpBuffer,
                    const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
    KW_SOFTMAX_DTYPE(SoftMax);
    kwsm::dst_only<T, isBasicBlock>(dstTensor, srcTensor, &sharedTmpBuffer, tiling, softmaxShapeInfo);
}

// ---- SimpleSoftMax: dst = exp(src - inMax) / inSum with the row statistics given ----
#define KW_SIMPLE_SOFTMAX(DT, RT, TMP_P, TMP_A)                                                                         \
    template <typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,           \
              const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>                                                         \
    inline void SimpleSoftMax(const LocalTensor<DT>& dstTensor, const LocalTensor<RT>& inSumTensor, const LocalTensor<RT>& inMaxTensor, \
                              const LocalTensor<DT>& srcTensor TMP_P, const SoftMaxTiling& tiling,                      \
                              const SoftMaxShapeInfo& softmaxShapeInfo = {}) {                                           \
        KW_SOFTMAX_DTYPE(SimpleSoftMax);                                                                                 \
        kw::hl::RowShape s = kw::hl::softmax_shape<DT>("SimpleSoftMax", tiling, softmaxShapeInfo, isBasicBlock, isDataFormatNZ); \
        kw::hl::softmax_tmp<DT>("SimpleSoftMax", TMP_A, s, dstTensor, srcTensor);                                        \
        const kw::hl::RowStat<RT> sum = KW_STAT(inSumTensor), max = KW_STAT(inMaxTensor);                                \
        kw::hl::softmax_rows<DT, RT, RT>("SimpleSoftMax", 3, dstTensor, srcTensor, s, &sum, &max, nullptr, nullptr, nullptr); \
    }
KW_SIMPLE_SOFTMAX(T, T, , nullptr)
KW_SIMPLE_SOFTMAX(half, float, , nullptr)
KW_SIMPLE_SOFTMAX(T, T, KW_COMMA const LocalTensor<uint8_t>& sharedTmpBuffer, &sharedTmpBuffer)
KW_SIMPLE_SOFTMAX(half, float, KW_COMMA const LocalTensor<uint8_t>& sharedTmpBuffer, &sharedTmpBuffer)
#undef KW_SIMPLE_SOFTMAX

// ---- LogSoftMax: dst = src - max - log(sum), also writing sum and max (dst is a non-const reference) ----
template <typename T, bool isReuseSource = false, bool isDataFormatNZ = false>
inline void LogSoftMax(LocalTensor<T>& dst, const LocalTensor<T>& sumTensor, const LocalTensor<T>& maxTensor, const LocalTensor<T>& src,
                       const LocalTensor<uint8_t>& sharedTmpBuffer, const LogSoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
    KW_SOFTMAX_DTYPE(LogSoftMax);
    kw::hl::RowShape s = kw::hl::softmax_shape<T>("LogSoftMax", tiling, softmaxShapeInfo, false, isDataFormatNZ);
    kw::hl::softmax_tmp<T>("LogSoftMax", &sharedTmpBuffer, s, dst, src);
    const kw::hl::RowStat<T> sum{sumTensor, false}, max{maxTensor, false};
    kw::hl::softmax_rows<T, T, T>("LogSoftMax", 1, dst, src, s, &sum, &max, nullptr, nullptr, nullptr);
}

// ---- SoftmaxFlashV2: dst = exp(src - max) (not normalised); with isUpdate the running max/sum
// (inMax/inExpSum) are folded in and expMax = exp(inMax - max) ----
#define KW_FLASHV2(DT, RT, TMP_P, TMP_A)                                                                                \
    template <typename T, bool isUpdate = false, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false, \
              const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>                                                         \
    inline void SoftmaxFlashV2(const LocalTensor<DT>& dstTensor, const LocalTensor<RT>& expSumTensor, const LocalTensor<RT>& maxTensor, \
                               const LocalTensor<DT>& srcTensor, const LocalTensor<DT>& expMaxTensor, const LocalTensor<RT>& inExpSumTensor, \
                               const LocalTensor<RT>& inMaxTensor TMP_P, const SoftMaxTiling& tiling,                   \
                               const SoftMaxShapeInfo& softmaxShapeInfo = {}) {                                          \
        KW_SOFTMAX_DTYPE(SoftmaxFlashV2);                                                                                \
        const char* api = "SoftmaxFlashV2";                                                                              \
        kw::hl::RowShape s = kw::hl::softmax_shape<DT>(api, tiling, softmaxShapeInfo, isBasicBlock, isDataFormatNZ);    \
        kw::hl::softmax_tmp<DT>(api, TMP_A, s, dstTensor, srcTensor);                                                    \
        const kw::hl::RowStat<RT> inSum = KW_STAT(inExpSumTensor), inMax = KW_STAT(inMaxTensor);                         \
        const kw::hl::RowStat<RT> sum = KW_STAT(expSumTensor), max = KW_STAT(maxTensor);                                 \
        const kw::hl::RowStat<DT> expMax = KW_STAT(expMaxTensor);                                                        \
        kw::hl::softmax_rows<DT, RT, DT>(api, 2, dstTensor, srcTensor, s, &sum, &max,                                     \
                                         isUpdate ? &inSum : nullptr, isUpdate ? &inMax : nullptr, isUpdate ? &expMax : nullptr); \
    }
KW_FLASHV2(T, T, , nullptr)
KW_FLASHV2(half, float, , nullptr)
KW_FLASHV2(T, T, KW_COMMA const LocalTensor<uint8_t>& sharedTmpBuffer, &sharedTmpBuffer)
KW_FLASHV2(half, float, KW_COMMA const LocalTensor<uint8_t>& sharedTmpBuffer, &sharedTmpBuffer)
#undef KW_FLASHV2
#undef KW_COMMA

// ---- AdjustSoftMaxRes: rows whose max equals `from` (bitwise) get every result set to `to` ----
template <typename T1, typename T2, bool isDataFormatNZ = false, uint8_t stepSizeMode = 0>
inline bool AdjustSoftMaxRes(const LocalTensor<T1>& softMaxRes, const LocalTensor<T2>& maxTensor, const uint32_t from, const T1 to,
                             const SoftMaxShapeInfo& softmaxShapeInfo) {
    const char* api = "AdjustSoftMaxRes";
    const uint32_t m = softmaxShapeInfo.srcM, k = softmaxShapeInfo.srcK, stride = stepSizeMode ? 1 : 32 / sizeof(T2);
    kw::hl::read_span(api, maxTensor, uint64_t(m) * stride, "maxTensor");
    kw::hl::read_span(api, softMaxRes, uint64_t(m) * k, "softMaxRes");
    bool any = false;
    for (uint32_t r = 0; r < m; ++r) {
        uint32_t bits = 0;
        std::memcpy(&bits, maxTensor.ptr() + uint64_t(r) * stride, sizeof(T2));
        if (bits != from) continue;
        any = true;
        for (uint32_t j = 0; j < k; ++j) softMaxRes.ptr()[uint64_t(r) * k + j] = to;
    }
    kw::hl::write_span(api, softMaxRes, uint64_t(m) * k, "softMaxRes");
    return any;
}

#undef KW_STAT
#undef KW_SOFTMAX_DTYPE
}  // namespace AscendC
