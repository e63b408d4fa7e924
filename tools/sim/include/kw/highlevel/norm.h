// LayerNorm (mean/variance form and mean/rstd form), RmsNorm, BatchNorm and GroupNorm. Statistics
// are computed in fp32 over the real (unpadded) length; variances are population variances.
#pragma once
#include "kw/highlevel/common.h"

namespace AscendC {
struct LayerNormPara {
    uint32_t aLength;
    uint32_t rLength;
    uint32_t rLengthWithPadding;
};
struct LayerNormConfig {
    bool isNoBeta = false;
    bool isNoGamma = false;
    bool isOnlyOutput = false;
};
constexpr LayerNormConfig GetLayerNormNormalConfig() { return {false, false, false}; }
constexpr LayerNormConfig LNCFG_NORM = GetLayerNormNormalConfig();
}  // namespace AscendC

namespace kw::hl {

// Rows of `stride` elements of which the first `len` are real.
struct Rows {
    uint64_t rows, stride, len;
};

inline void check_rows(const char* api, const Rows& r, size_t esize, const char* what) {
    if (r.rows == 0 || r.len == 0 || r.stride == 0)
        shape_error(api, std::string("the ") + what + " in the tiling is empty (rows " + std::to_string(r.rows) + ", length " +
                             std::to_string(r.len) + ")",
                    "fill the tiling on the host with the API's tiling function and pass it through the tiling data");
    if (r.len > r.stride || r.stride * esize % 32 != 0)
        shape_error(api, std::string("the padded ") + what + " length " + std::to_string(r.stride) + " must be 32-byte aligned and at least the real length " +
                             std::to_string(r.len),
                    "pad the last axis to a multiple of " + std::to_string(32 / esize) + " elements");
}

struct MeanVar {
    float mean, var;
};
template <class T> inline MeanVar mean_var(const T* x, uint64_t n, uint64_t step = 1) {
    double s = 0, q = 0;
    for (uint64_t i = 0; i < n; ++i) s += double(float(x[i * step]));
    const double m = s / double(n);
    for (uint64_t i = 0; i < n; ++i) {
        double d = double(float(x[i * step])) - m;
        q += d * d;
    }
    return {float(m), float(q / double(n))};
}

// y = (x - mean) * rstd * gamma + beta over rows; gamma/beta may be absent.
template <class T, class U>
void normalize_rows(const char* api, const LocalTensor<T>& out, const LocalTensor<T>& x, const LocalTensor<U>* gamma, const LocalTensor<U>* beta,
                    const Rows& r, float eps, std::vector<float>& means, std::vector<float>& vars) {
    const uint64_t n = r.rows * r.stride;
    read_span(api, x, n, "inputX");
    if (gamma) read_span(api, *gamma, r.len, "gamma");
    if (beta) read_span(api, *beta, r.len, "beta");
    std::vector<T> y(n, T(0));
    means.resize(r.rows), vars.resize(r.rows);
    for (uint64_t i = 0; i < r.rows; ++i) {
        const T* row = x.ptr() + i * r.stride;
        MeanVar mv = mean_var(row, r.len);
        means[i] = mv.mean, vars[i] = mv.var;
        const float rstd = 1.0f / std::sqrt(mv.var + eps);
        for (uint64_t j = 0; j < r.len; ++j) {
            float v = (float(row[j]) - mv.mean) * rstd;
            if (gamma) v *= float(gamma->ptr()[j]);
            if (beta) v += float(beta->ptr()[j]);
            y[i * r.stride + j] = T(v);
        }
    }
    write_span(api, out, n, "output");
    std::memcpy(out.ptr(), y.data(), n * sizeof(T));
    rt::count_vec(api, dtype_name<T>(), repeats_for(n, sizeof(T)) * 6, n);
}

template <class D> inline void store_vec(const char* api, const LocalTensor<D>& t, const std::vector<float>& v, const char* name, bool rstd = false,
                                         float eps = 0) {
    write_span(api, t, v.size(), name);
    for (size_t i = 0; i < v.size(); ++i) t.ptr()[i] = D(rstd ? 1.0f / std::sqrt(v[i] + eps) : v[i]);
}
}  // namespace kw::hl

namespace AscendC {
#define KW_NORM_DTYPE(API)                                                                                              \
    static_assert(SupportType<T, half, float>(), "Failed to check dtype in " #API ", current api support dtype combination is src and dst both: half / float.")

// ---- LayerNorm over H of [B, S, H]: mean and variance outputs of [B*S] ----
namespace kwln {
template <typename T>
inline void run(const LocalTensor<T>& output, const LocalTensor<T>& outputMean, const LocalTensor<T>& outputVariance, const LocalTensor<T>& inputX,
                const LocalTensor<T>& gamma, const LocalTensor<T>& beta, const LocalTensor<uint8_t>* tmp, const T epsilon, const LayerNormTiling& tiling) {
    const char* api = "LayerNorm";
    const kw::hl::Rows r{uint64_t(tiling.bLength) * tiling.sLength, tiling.hLength, tiling.originalHLength};
    kw::hl::check_rows(api, r, sizeof(T), "H axis (bLength, sLength, hLength, originalHLength)");
    kw::hl::tmp_or_stack(api, tmp, kw::hl::row_tmp_bytes(r.stride), kw::hl::span_of(inputX, r.rows * r.stride), kw::hl::span_of(output, r.rows * r.stride));
    std::vector<float> means, vars;
    kw::hl::normalize_rows<T, T>(api, output, inputX, &gamma, &beta, r, float(epsilon), means, vars);
    kw::hl::store_vec(api, outputMean, means, "outputMean");
    kw::hl::store_vec(api, outputVariance, vars, "outputVariance");
}
}  // namespace kwln
template <typename T, bool isReuseSource = false>
inline void LayerNorm(const LocalTensor<T>& output, const LocalTensor<T>& outputMean, const LocalTensor<T>& outputVariance, const LocalTensor<T>& inputX,
                      const LocalTensor<T>& gamma, const LocalTensor<T>& beta, const LocalTensor<uint8_t>& sharedTmpBuffer, const T epsilon,
                      LayerNormTiling& tiling) {
    KW_NORM_DTYPE(LayerNorm);
    kwln::run(output, outputMean, outputVariance, inputX, gamma, beta, &sharedTmpBuffer, epsilon, tiling);
}
template <typename T, bool isReuseSource = false>
inline void LayerNorm(const LocalTensor<T>& output, const LocalTensor<T>& outputMean, const LocalTensor<T>& outputVariance, const LocalTensor<T>& inputX,
                      const LocalTensor<T>& gamma, const LocalTensor<T>& beta, const T epsilon, LayerNormTiling& tiling) {
    KW_NORM_DTYPE(LayerNorm);
    kwln::run(output, outputMean, outputVariance, inputX, gamma, beta, nullptr, epsilon, tiling);
}

// ---- LayerNorm, mean/rstd form: shape from LayerNormPara (rows aLength, real length rLength,
// padded length rLengthWithPadding); gamma/beta of type U; mean and rstd in float ----
namespace kwln {
template <typename U, typename T, const LayerNormConfig& config>
inline void run_rstd(const LocalTensor<T>& output, const LocalTensor<float>& outputMean, const LocalTensor<float>& outputRstd, const LocalTensor<T>& inputX,
                     const LocalTensor<U>& gamma, const LocalTensor<U>& beta, const float epsilon, const LocalTensor<uint8_t>* tmp, const LayerNormPara& para) {
    static_assert((SupportType<T, half, float>() && IsSameType<T, U>::value) || (IsSameType<T, half>::value && IsSameType<U, float>::value),
                  "Failed to check dtype in LayerNorm, current api support dtype combination is inputX: half, gamma/beta: half / float; "
                  "inputX: float, gamma/beta: float.");
    const char* api = "LayerNorm";
    const kw::hl::Rows r{para.aLength, para.rLengthWithPadding, para.rLength};
    kw::hl::check_rows(api, r, sizeof(T), "R axis (LayerNormPara)");
    kw::hl::tmp_or_stack(api, tmp, kw::hl::row_tmp_bytes(r.stride), kw::hl::span_of(inputX, r.rows * r.stride), kw::hl::span_of(output, r.rows * r.stride));
    std::vector<float> means, vars;
    kw::hl::normalize_rows<T, U>(api, output, inputX, config.isNoGamma ? nullptr : &gamma, config.isNoBeta ? nullptr : &beta, r, epsilon, means, vars);
    if (config.isOnlyOutput) return;
    kw::hl::store_vec(api, outputMean, means, "outputMean");
    kw::hl::store_vec(api, outputRstd, vars, "outputRstd", true, epsilon);
}
}  // namespace kwln
template <typename U, typename T, bool isReuseSource = false, const LayerNormConfig& config = LNCFG_NORM>
inline void LayerNorm(const LocalTensor<T>& output, const LocalTensor<float>& outputMean, const LocalTensor<float>& outputRstd, const LocalTensor<T>& inputX,
                      const LocalTensor<U>& gamma, const LocalTensor<U>& beta, const float epsilon, const LayerNormPara& para,
                      const LayerNormSeparateTiling& tiling) {
    (void)tiling;
    kwln::run_rstd<U, T, config>(output, outputMean, outputRstd, inputX, gamma, beta, epsilon, nullptr, para);
}
template <typename U, typename T, bool isReuseSource = false, const LayerNormConfig& config = LNCFG_NORM>
inline void LayerNorm(const LocalTensor<T>& output, const LocalTensor<float>& outputMean, const LocalTensor<float>& outputRstd, const LocalTensor<T>& inputX,
                      const LocalTensor<U>& gamma, const LocalTensor<U>& beta, const float epsilon, const LocalTensor<uint8_t>& sharedTmpBuffer,
                      const LayerNormPara& para, const LayerNormSeparateTiling& tiling) {
    (void)tiling;
    kwln::run_rstd<U, T, config>(output, outputMean, outputRstd, inputX, gamma, beta, epsilon, &sharedTmpBuffer, para);
}

// ---- RmsNorm: dst = src / sqrt(mean(src^2) + epsilon) * gamma over H of [B, S, H] ----
namespace kwrms {
template <typename T>
inline void run(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& gamma, const LocalTensor<uint8_t>* tmp, const T epsilon,
                const RmsNormTiling& tiling) {
    const char* api = "RmsNorm";
    const kw::hl::Rows r{uint64_t(tiling.bLength) * tiling.sLength, tiling.hLength, tiling.originalHLength};
    kw::hl::check_rows(api, r, sizeof(T), "H axis (bLength, sLength, hLength, originalHLength)");
    const uint64_t n = r.rows * r.stride;
    kw::hl::tmp_or_stack(api, tmp, kw::hl::row_tmp_bytes(r.stride), kw::hl::span_of(src, n), kw::hl::span_of(dst, n));
    kw::hl::read_span(api, src, n, "src");
    kw::hl::read_span(api, gamma, r.len, "gamma");
    std::vector<T> y(n, T(0));
    for (uint64_t i = 0; i < r.rows; ++i) {
        const T* row = src.ptr() + i * r.stride;
        double q = 0;
        for (uint64_t j = 0; j < r.len; ++j) q += double(float(row[j])) * double(float(row[j]));
        const float rstd = 1.0f / std::sqrt(float(q / double(r.len)) + float(epsilon));
        for (uint64_t j = 0; j < r.len; ++j) y[i * r.stride + j] = T(float(row[j]) * rstd * float(gamma.ptr()[j]));
    }
    kw::hl::write_span(api, dst, n, "dst");
    std::memcpy(dst.ptr(), y.data(), n * sizeof(T));
    kw::rt::count_vec(api, kw::dtype_name<T>(), kw::repeats_for(n, sizeof(T)) * 4, n);
}
}  // namespace kwrms
template <typename T, bool isBasicBlock = false>
inline void RmsNorm(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const LocalTensor<T>& gammaLocal, const LocalTensor<uint8_t>& sharedTmpBuffer,
                    const T epsilon, const RmsNormTiling& tiling) {
    KW_NORM_DTYPE(RmsNorm);
    kwrms::run(dstLocal, srcLocal, gammaLocal, &sharedTmpBuffer, epsilon, tiling);
}
template <typename T, bool isBasicBlock = false>
inline void RmsNorm(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const LocalTensor<T>& gammaLocal, const T epsilon,
                    const RmsNormTiling& tiling) {
    KW_NORM_DTYPE(RmsNorm);
    kwrms::run(dstLocal, srcLocal, gammaLocal, nullptr, epsilon, tiling);
}

// ---- BatchNorm over B of [B, S*H]: mean/variance of [S*H], gamma/beta of [B] ----
namespace kwbn {
template <typename T, bool isBasicBlock>
inline void run(const LocalTensor<T>& output, const LocalTensor<T>& outputMean, const LocalTensor<T>& outputVariance, const LocalTensor<T>& inputX,
                const LocalTensor<T>& gamm, const LocalTensor<T>& beta, const LocalTensor<uint8_t>* tmp, const T epsilon, const BatchNormTiling& tiling) {
    const char* api = "BatchNorm";
    const uint64_t b = tiling.originalBLength, sh = tiling.meanVarSize;
    kw::hl::check_rows(api, {b, sh, sh}, sizeof(T), "S*H axis (originalBLength, meanVarSize)");
    if (isBasicBlock && (b % 8 != 0 || sh % 64 != 0 || sh >= 2048))
        kw::hl::shape_error(api, "isBasicBlock = true needs B to be a multiple of 8 and S*H a multiple of 64 below 2048 (got B = " +
                                     std::to_string(b) + ", S*H = " + std::to_string(sh) + ")",
                            "set isBasicBlock = false for this shape");
    const uint64_t n = b * sh;
    kw::hl::tmp_or_stack(api, tmp, kw::hl::row_tmp_bytes(sh), kw::hl::span_of(inputX, n));
    kw::hl::read_span(api, inputX, n, "inputX");
    kw::hl::read_span(api, gamm, b, "gamm");
    kw::hl::read_span(api, beta, b, "beta");
    std::vector<float> means(sh), vars(sh);
    for (uint64_t p = 0; p < sh; ++p) {
        kw::hl::MeanVar mv = kw::hl::mean_var(inputX.ptr() + p, b, sh);
        means[p] = mv.mean, vars[p] = mv.var;
    }
    std::vector<T> y(n);
    for (uint64_t i = 0; i < b; ++i)
        for (uint64_t p = 0; p < sh; ++p)
            y[i * sh + p] = T((float(inputX.ptr()[i * sh + p]) - means[p]) / std::sqrt(vars[p] + float(epsilon)) * float(gamm.ptr()[i]) +
                              float(beta.ptr()[i]));
    kw::hl::write_span(api, output, n, "output");  // output may alias inputX (documented as allowed)
    std::memcpy(output.ptr(), y.data(), n * sizeof(T));
    kw::hl::store_vec(api, outputMean, means, "outputMean");
    kw::hl::store_vec(api, outputVariance, vars, "outputVariance");
    kw::rt::count_vec(api, kw::dtype_name<T>(), kw::repeats_for(n, sizeof(T)) * 6, n);
}
}  // namespace kwbn
template <typename T, bool isReuseSource = false, bool isBasicBlock = false>
inline void BatchNorm(const LocalTensor<T>& output, const LocalTensor<T>& outputMean, const LocalTensor<T>& outputVariance, const LocalTensor<T>& inputX,
                      const LocalTensor<T>& gamm, const LocalTensor<T>& beta, const LocalTensor<uint8_t>& sharedTmpBuffer, const T epsilon,
                      BatchNormTiling& tiling) {
    KW_NORM_DTYPE(BatchNorm);
    kwbn::run<T, isBasicBlock>(output, outputMean, outputVariance, inputX, gamm, beta, &sharedTmpBuffer, epsilon, tiling);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false>
inline void BatchNorm(const LocalTensor<T>& output, const LocalTensor<T>& outputMean, const LocalTensor<T>& outputVariance, const LocalTensor<T>& inputX,
                      const LocalTensor<T>& gamm, const LocalTensor<T>& beta, const T epsilon, BatchNormTiling& tiling) {
    KW_NORM_DTYPE(BatchNorm);
    kwbn::run<T, isBasicBlock>(output, outputMean, outputVariance, inputX, gamm, beta, nullptr, epsilon, tiling);
}

// ---- GroupNorm over [N, C, H*W] in g groups of d = C/g channels: mean/variance of [N, g] ----
namespace kwgn {
template <typename T>
inline void run(const LocalTensor<T>& output, const LocalTensor<T>& outputMean, const LocalTensor<T>& outputVariance, const LocalTensor<T>& inputX,
                const LocalTensor<T>& gamma, const LocalTensor<T>& beta, const LocalTensor<uint8_t>* tmp, const T epsilon, const GroupNormTiling& tiling) {
    const char* api = "GroupNorm";
    const uint64_t n = tiling.n, c = tiling.c, hw = tiling.hw, g = tiling.g;
    if (n == 0 || c == 0 || hw == 0 || g == 0 || c % g != 0)
        kw::hl::shape_error(api, "the tiling holds n = " + std::to_string(n) + ", c = " + std::to_string(c) + ", hw = " + std::to_string(hw) + ", g = " +
                                     std::to_string(g) + "; all must be positive and c a multiple of g",
                            "fill GroupNormTiling on the host (GetGroupNormNDTilingInfo) and pass it through the tiling data");
    const uint64_t d = c / g, total = n * c * hw, group = d * hw;
    kw::hl::tmp_or_stack(api, tmp, kw::hl::row_tmp_bytes(group), kw::hl::span_of(inputX, total), kw::hl::span_of(output, total));
    kw::hl::read_span(api, inputX, total, "inputX");
    kw::hl::read_span(api, gamma, c, "gamma");
    kw::hl::read_span(api, beta, c, "beta");
    std::vector<float> means(n * g), vars(n * g);
    std::vector<T> y(total);
    for (uint64_t i = 0; i < n * g; ++i) {
        const T* x = inputX.ptr() + i * group;
        kw::hl::MeanVar mv = kw::hl::mean_var(x, group);
        means[i] = mv.mean, vars[i] = mv.var;
        const float rstd = 1.0f / std::sqrt(mv.var + float(epsilon));
        for (uint64_t k = 0; k < group; ++k) {
            const uint64_t ch = (i % g) * d + k / hw;
            y[i * group + k] = T((float(x[k]) - mv.mean) * rstd * float(gamma.ptr()[ch]) + float(beta.ptr()[ch]));
        }
    }
    kw::hl::write_span(api, output, total, "output");
    std::memcpy(output.ptr(), y.data(), total * sizeof(T));
    kw::hl::store_vec(api, outputMean, means, "outputMean");
    kw::hl::store_vec(api, outputVariance, vars, "outputVariance");
    kw::rt::count_vec(api, kw::dtype_name<T>(), kw::repeats_for(total, sizeof(T)) * 6, total);
}
}  // namespace kwgn
template <typename T, bool isReuseSource = false>
inline void GroupNorm(const LocalTensor<T>& output, const LocalTensor<T>& outputMean, const LocalTensor<T>& outputVariance, const LocalTensor<T>& inputX,
                      const LocalTensor<T>& gamma, const LocalTensor<T>& beta, const LocalTensor<uint8_t>& sharedTmpBuffer, const T epsilon,
                      GroupNormTiling& tiling) {
    KW_NORM_DTYPE(GroupNorm);
    kwgn::run(output, outputMean, outputVariance, inputX, gamma, beta, &sharedTmpBuffer, epsilon, tiling);
}
template <typename T, bool isReuseSource = false>
inline void GroupNorm(const LocalTensor<T>& output, const LocalTensor<T>& outputMean, const LocalTensor<T>& outputVariance, const LocalTensor<T>& inputX,
                      const LocalTensor<T>& gamma, const LocalTensor<T>& beta, const T epsilon, GroupNormTiling& tiling) {
    KW_NORM_DTYPE(GroupNorm);
    kwgn::run(output, outputMean, outputVariance, inputX, gamma, beta, nullptr, epsilon, tiling);
}

#undef KW_NORM_DTYPE
}  // namespace AscendC
