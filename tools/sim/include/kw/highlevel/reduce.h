// Sum / Mean over the last axis of [outter, inner] (n real elements per row) and CumSum. Row sums
// follow the device's order: adjacent-pair trees over each 256-byte repeat, then trees over the
// repeat results, every add rounded to the accumulation type.
#pragma once
#include "kw/highlevel/common.h"
#include "kw/vec_reduce.h"

namespace AscendC {
struct SumParams {
    uint32_t outter = 1;
    uint32_t inner;  // n rounded up to 32 bytes
    uint32_t n;      // real row length
};
struct MeanParams {
    uint32_t outter = 1;
    uint32_t inner;
    uint32_t n;
};
struct CumSumInfo {
    uint32_t outter{0};
    uint32_t inner{0};  // 32-byte aligned
};
struct CumSumConfig {
    bool isLastAxis{true};
    bool isReuseSource{false};
    bool outputLastRow{false};
};
constexpr CumSumConfig defaultCumSumConfig = {true, false, true};
}  // namespace AscendC

namespace kw::hl {

// Sum of n values in the device's tree order, accumulating in A.
template <class A, class T> inline A tree_row_sum(const T* x, uint64_t n) {
    const uint64_t lanes = 256 / sizeof(A);
    std::vector<A> part;
    for (uint64_t i = 0; i < n; i += lanes) {
        std::vector<A> chunk(lanes, A(0));
        for (uint64_t k = 0; k < lanes && i + k < n; ++k) chunk[k] = A(x[i + k]);
        part.push_back(tree_sum(chunk));
    }
    return tree_rounds(part, lanes);
}

template <class T, class P> inline void check_reduce_params(const char* api, const P& p) {
    const uint64_t inner = (uint64_t(p.n) * sizeof(T) + 31) / 32 * 32 / sizeof(T);
    if (p.outter == 0 || p.n == 0 || p.n > p.inner || p.inner != inner)
        shape_error(api, "the params hold outter = " + std::to_string(p.outter) + ", inner = " + std::to_string(p.inner) + ", n = " +
                             std::to_string(p.n) + "; inner must be n rounded up to 32 bytes (" + std::to_string(inner) + ") and 1 <= n <= inner",
                    "set inner = (n * sizeof(T) + 31) / 32 * 32 / sizeof(T)");
}

// Row reduction shared by Sum and Mean: out[i] = finish(sum of row i in A).
template <class T, class A, class P, class F>
void rows_reduce(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>* tmp, const P& p, F finish) {
    check_reduce_params<T>(api, p);
    const uint64_t n = uint64_t(p.outter) * p.inner;
    tmp_or_stack(api, tmp, kMinTmpBytes, span_of(src, n), span_of(dst, p.outter));
    warn_overlap(api, dst, src, p.outter);
    read_span(api, src, n, "src");
    std::vector<T> out(p.outter);
    for (uint32_t i = 0; i < p.outter; ++i) out[i] = T(finish(tree_row_sum<A>(src.ptr() + uint64_t(i) * p.inner, p.n)));
    write_span(api, dst, p.outter, "dst");
    std::memcpy(dst.ptr(), out.data(), out.size() * sizeof(T));
    rt::count_vec(api, dtype_name<T>(), repeats_for(n, sizeof(T)), n);
}
}  // namespace kw::hl

namespace AscendC {
template <typename T, int32_t reduceDim = -1, bool isReuseSource = false, bool isBasicBlock = false>
inline void Sum(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const LocalTensor<uint8_t>& sharedTmpBuffer, const SumParams& sumParams) {
    static_assert(SupportType<T, half, float>(), "Failed to check dtype in Sum, current api support dtype combination is src and dst both: half / float.");
    kw::hl::rows_reduce<T, T>("Sum", dstTensor, srcTensor, &sharedTmpBuffer, sumParams, [](T s) { return s; });
}
template <typename T, int32_t reduceDim = -1, bool isReuseSource = false, bool isBasicBlock = false>
inline void Sum(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const SumParams& sumParams) {
    static_assert(SupportType<T, half, float>(), "Failed to check dtype in Sum, current api support dtype combination is src and dst both: half / float.");
    kw::hl::rows_reduce<T, T>("Sum", dstTensor, srcTensor, nullptr, sumParams, [](T s) { return s; });
}

// Mean: the row sum in accType, times 1/n in accType.
#define KW_MEAN_DTYPE()                                                                                                 \
    static_assert(SupportType<T, half, float>() && (IsSameType<accType, T>::value || IsSameType<accType, float>::value), \
                  "Failed to check dtype in Mean, current api support dtype combination is T: half / float, accType: T or float.")
template <typename T, typename accType = T, bool isReuseSource = false, bool isBasicBlock = false, int32_t reduceDim = -1>
inline void Mean(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const LocalTensor<uint8_t>& sharedTmpBuffer, const MeanParams& meanParams) {
    KW_MEAN_DTYPE();
    const accType inv = accType(1.0f / float(meanParams.n));
    kw::hl::rows_reduce<T, accType>("Mean", dstTensor, srcTensor, &sharedTmpBuffer, meanParams, [inv](accType s) { return accType(s * inv); });
}
template <typename T, typename accType = T, bool isReuseSource = false, bool isBasicBlock = false, int32_t reduceDim = -1>
inline void Mean(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const MeanParams& meanParams) {
    KW_MEAN_DTYPE();
    const accType inv = accType(1.0f / float(meanParams.n));
    kw::hl::rows_reduce<T, accType>("Mean", dstTensor, srcTensor, nullptr, meanParams, [inv](accType s) { return accType(s * inv); });
}
#undef KW_MEAN_DTYPE

// ---- CumSum over [outter, inner]: along the last axis (isLastAxis) or the first; every add
// rounded to T; lastRowTensor receives the last row of the result when outputLastRow ----
namespace kwcs {
template <typename T, const CumSumConfig& config>
inline void run(LocalTensor<T>& dst, LocalTensor<T>& lastRow, const LocalTensor<T>& src, const LocalTensor<uint8_t>* tmp, const CumSumInfo& info) {
    static_assert(SupportType<T, half, float>(), "Failed to check dtype in CumSum, current api support dtype combination is src and dst both: half / float.");
    const char* api = "CumSum";
    const uint64_t rows = info.outter, cols = info.inner, n = rows * cols;
    if (rows == 0 || cols == 0 || cols * sizeof(T) % 32 != 0)
        kw::hl::shape_error(api, "CumSumInfo holds outter = " + std::to_string(rows) + ", inner = " + std::to_string(cols) +
                                     "; both must be positive and inner * sizeof(T) a multiple of 32",
                            "pad the inner axis to a multiple of " + std::to_string(32 / sizeof(T)) + " elements");
    kw::hl::tmp_or_stack(api, tmp, kw::hl::kMinTmpBytes, kw::hl::span_of(src, n), kw::hl::span_of(dst, n));
    kw::hl::warn_overlap(api, dst, src, n);
    kw::hl::read_span(api, src, n, "src");
    std::vector<T> y(src.ptr(), src.ptr() + n);
    for (uint64_t i = 0; i < rows; ++i)
        for (uint64_t j = 0; j < cols; ++j) {
            const uint64_t prev = config.isLastAxis ? (j ? i * cols + j - 1 : ~0ull) : (i ? (i - 1) * cols + j : ~0ull);
            if (prev != ~0ull) y[i * cols + j] = kw::add_rounded(y[prev], y[i * cols + j]);
        }
    kw::hl::write_span(api, dst, n, "dst");
    std::memcpy(dst.ptr(), y.data(), n * sizeof(T));
    if (config.outputLastRow) {
        kw::hl::write_span(api, lastRow, cols, "lastRowTensor");
        std::memcpy(lastRow.ptr(), y.data() + (rows - 1) * cols, cols * sizeof(T));
    }
    kw::rt::count_vec(api, kw::dtype_name<T>(), kw::repeats_for(n, sizeof(T)) * 2, n);
}
}  // namespace kwcs
template <typename T, const CumSumConfig& config = defaultCumSumConfig>
inline void CumSum(LocalTensor<T>& dstTensor, LocalTensor<T>& lastRowTensor, const LocalTensor<T>& srcTensor, LocalTensor<uint8_t>& sharedTmpBuffer,
                   const CumSumInfo& cumSumInfo) {
    kwcs::run<T, config>(dstTensor, lastRowTensor, srcTensor, &sharedTmpBuffer, cumSumInfo);
}
template <typename T, const CumSumConfig& config = defaultCumSumConfig>
inline void CumSum(LocalTensor<T>& dstTensor, LocalTensor<T>& lastRowTensor, const LocalTensor<T>& srcTensor, const CumSumInfo& cumSumInfo) {
    kwcs::run<T, config>(dstTensor, lastRowTensor, srcTensor, nullptr, cumSumInfo);
}
}  // namespace AscendC
