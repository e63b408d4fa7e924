// High-level element-wise math APIs (CANN 8.x lib/math and lib/activation): the exact overload
// set of each API (with/without sharedTmpBuffer, with/without calCount; the forms without
// calCount use src.GetSize()), fp32 numerics for half data.
#pragma once
#include "kw/highlevel/common.h"

namespace kw::hl {
// Sigmoid as CANN's SigmoidIntrinsicsImpl computes it: Muls(-1), Exp, Adds(1), Div(1, .), each a vector
// instruction on T, so half data is rounded after every step (as torch's half ops round each op's result)
template <class T> inline float sigmoid(float x) {
    auto r = [](float v) { return float(T(v)); };
    return 1.0f / r(1.0f + r(std::exp(-x)));
}
inline float sign(float x) { return x > 0 ? 1.0f : (x < 0 ? -1.0f : 0.0f); }
inline float frac(float x) { return x - std::trunc(x); }
// tanh-form GELU: x / (1 + exp(-2 * sqrt(2/pi) * (x + 0.044715 x^3)))
inline float gelu(float x) { return x / (1.0f + std::exp(-1.5957691216f * (x + 0.044715f * x * x * x))); }
inline float faster_gelu(float x) { return x / (1.0f + std::exp(-1.702f * x)); }
// FastGeluV2: x/2 * (1 + sgn(x) * (a * (min(|x|, -b) + b)^2 + 1)), a = -0.1444, b = -1.769
inline float faster_gelu_v2(float x) {
    const float a = -0.1444f, b = -1.769f;
    float c = std::fmin(std::fabs(x), -b) + b;
    float s = (x + 1e-12f) / std::fabs(x + 1e-12f);
    return x * 0.5f * (1.0f + s * (a * c * c + 1.0f));
}
// Exp with a Taylor expansion of the fractional part: e^floor(x) * sum_{k<=n} f^k / k!
inline float exp_taylor(float x, int n) {
    if (n == 0) return std::exp(x);
    float i = std::floor(x), f = x - i, term = 1.0f, sum = 1.0f;
    for (int k = 1; k <= n; ++k) term *= f / float(k), sum += term;
    return std::exp(i) * sum;
}
template <class T> inline T power(T base, T expo) {
    if constexpr (std::is_integral<T>::value) {
        if (expo < 0) return base == 1 ? 1 : (base == -1 ? ((expo & 1) ? -1 : 1) : 0);
        T r = 1;
        for (T k = 0; k < expo; ++k) r = T(uint32_t(r) * uint32_t(base));
        return r;
    } else {
        return T(std::pow(float(base), float(expo)));
    }
}
}  // namespace kw::hl

namespace AscendC {

#define KW_HL_DTYPE(API, ...)                                                                                           \
    static_assert(SupportType<T, __VA_ARGS__>(), "Failed to check dtype in " #API ", current api support dtype combination is src and dst " \
                                                 "both: half / float.")

// Unary APIs with only the calCount forms: (dst, src[, sharedTmpBuffer], calCount).
#define KW_HL_UNARY2(API, EXPR)                                                                                         \
    template <typename T, bool isReuseSource = false>                                                                    \
    inline void API(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const LocalTensor<uint8_t>& sharedTmpBuffer, \
                    const uint32_t calCount) {                                                                           \
        KW_HL_DTYPE(API, half, float);                                                                                   \
        kw::hl::tmp_or_stack(#API, &sharedTmpBuffer, kw::hl::kMinTmpBytes, kw::hl::span_of(srcTensor, calCount),        \
                             kw::hl::span_of(dstTensor, calCount));                                                      \
        kw::hl::map1(#API, dstTensor, srcTensor, calCount, [](float x) { return EXPR; });                                \
    }                                                                                                                    \
    template <typename T, bool isReuseSource = false>                                                                    \
    inline void API(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const uint32_t calCount) {         \
        KW_HL_DTYPE(API, half, float);                                                                                   \
        kw::hl::use_stack(#API, kw::hl::kMinTmpBytes);                                                                   \
        kw::hl::map1(#API, dstTensor, srcTensor, calCount, [](float x) { return EXPR; });                                \
    }

// Unary APIs with all four forms: the calCount forms plus (dst, src[, sharedTmpBuffer]) over src.GetSize().
#define KW_HL_UNARY4(API, EXPR)                                                                                         \
    KW_HL_UNARY2(API, EXPR)                                                                                              \
    template <typename T, bool isReuseSource = false>                                                                    \
    inline void API(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const LocalTensor<uint8_t>& sharedTmpBuffer) { \
        API<T, isReuseSource>(dstTensor, srcTensor, sharedTmpBuffer, srcTensor.GetSize());                               \
    }                                                                                                                    \
    template <typename T, bool isReuseSource = false>                                                                    \
    inline void API(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor) {                                  \
        API<T, isReuseSource>(dstTensor, srcTensor, srcTensor.GetSize());                                                \
    }

KW_HL_UNARY4(Tanh, std::tanh(x))
KW_HL_UNARY4(Sigmoid, kw::hl::sigmoid<T>(x))
KW_HL_UNARY4(Log2, std::log2(x))
KW_HL_UNARY4(Erf, std::erf(x))
KW_HL_UNARY4(Erfc, std::erfc(x))
KW_HL_UNARY4(Sin, std::sin(x))
KW_HL_UNARY4(Cos, std::cos(x))
KW_HL_UNARY4(Tan, std::tan(x))
KW_HL_UNARY4(Sinh, std::sinh(x))
KW_HL_UNARY4(Cosh, std::cosh(x))
KW_HL_UNARY4(Asin, std::asin(x))
KW_HL_UNARY4(Acos, std::acos(x))
KW_HL_UNARY4(Atan, std::atan(x))
KW_HL_UNARY4(Asinh, std::asinh(x))
KW_HL_UNARY4(Acosh, std::acosh(x))
KW_HL_UNARY4(Atanh, std::atanh(x))
KW_HL_UNARY4(Sign, kw::hl::sign(x))
KW_HL_UNARY4(Frac, kw::hl::frac(x))
KW_HL_UNARY4(Trunc, std::trunc(x))
KW_HL_UNARY2(Floor, std::floor(x))
KW_HL_UNARY2(Ceil, std::ceil(x))
KW_HL_UNARY2(Round, std::nearbyint(x))  // ties to even, like Cast with CAST_RINT
#undef KW_HL_UNARY4
#undef KW_HL_UNARY2

// Log / Log10: no sharedTmpBuffer forms.
#define KW_HL_LOG(API, EXPR)                                                                                            \
    template <typename T, bool isReuseSource = false>                                                                    \
    inline void API(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, uint32_t calCount) {               \
        KW_HL_DTYPE(API, half, float);                                                                                   \
        kw::hl::map1(#API, dstTensor, srcTensor, calCount, [](float x) { return EXPR; });                                \
    }                                                                                                                    \
    template <typename T, bool isReuseSource = false>                                                                    \
    inline void API(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor) {                                  \
        API<T, isReuseSource>(dstTensor, srcTensor, srcTensor.GetSize());                                                \
    }
KW_HL_LOG(Log, std::log(x))
KW_HL_LOG(Log10, std::log10(x))
#undef KW_HL_LOG

// Exp with the Taylor-expansion level as a template argument (0: plain exp).
template <typename T, uint8_t taylorExpandLevel, bool isReuseSource = false>
inline void Exp(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t calCount) {
    KW_HL_DTYPE(Exp, half, float);
    kw::hl::tmp_or_stack("Exp", &sharedTmpBuffer, kw::hl::kMinTmpBytes, kw::hl::span_of(srcLocal, calCount), kw::hl::span_of(dstLocal, calCount));
    kw::hl::map1("Exp", dstLocal, srcLocal, calCount, [](float x) { return kw::hl::exp_taylor(x, taylorExpandLevel); });
}
template <typename T, uint8_t taylorExpandLevel, bool isReuseSource = false>
inline void Exp(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const uint32_t calCount) {
    KW_HL_DTYPE(Exp, half, float);
    kw::hl::use_stack("Exp", kw::hl::kMinTmpBytes);
    kw::hl::map1("Exp", dstLocal, srcLocal, calCount, [](float x) { return kw::hl::exp_taylor(x, taylorExpandLevel); });
}

// ---- activations with a dataSize argument ----
#define KW_HL_GELU(API, FN)                                                                                             \
    template <typename T, bool highPrecision = false, bool highPerformance = false>                                      \
    inline void API(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const LocalTensor<uint8_t>& sharedTmpBuffer, \
                    const uint32_t dataSize) {                                                                           \
        KW_HL_DTYPE(API, half, float);                                                                                   \
        kw::hl::tmp_or_stack(#API, &sharedTmpBuffer, kw::hl::kMinTmpBytes, kw::hl::span_of(srcLocal, dataSize),         \
                             kw::hl::span_of(dstLocal, dataSize));                                                       \
        kw::hl::map1(#API, dstLocal, srcLocal, dataSize, [](float x) { return FN(x); });                                 \
    }                                                                                                                    \
    template <typename T, bool highPrecision = false, bool highPerformance = false>                                      \
    inline void API(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const uint32_t dataSize) {           \
        KW_HL_DTYPE(API, half, float);                                                                                   \
        kw::hl::use_stack(#API, kw::hl::kMinTmpBytes);                                                                   \
        kw::hl::map1(#API, dstLocal, srcLocal, dataSize, [](float x) { return FN(x); });                                 \
    }
KW_HL_GELU(Gelu, kw::hl::gelu)
KW_HL_GELU(FasterGelu, kw::hl::faster_gelu)
KW_HL_GELU(FasterGeluV2, kw::hl::faster_gelu_v2)
#undef KW_HL_GELU

template <typename T, bool isReuseSource = false>
inline void Silu(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, uint32_t dataSize) {
    KW_HL_DTYPE(Silu, half, float);
    kw::hl::map1("Silu", dstLocal, srcLocal, dataSize, [](float x) { return x * kw::hl::sigmoid<float>(x); });
}
// Swish: x * sigmoid(beta * x); note the argument order (dataSize before the scalar).
template <typename T, bool isReuseSource = false>
inline void Swish(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, uint32_t dataSize, const T scalarValue) {
    KW_HL_DTYPE(Swish, half, float);
    const float beta = float(scalarValue);
    kw::hl::map1("Swish", dstLocal, srcLocal, dataSize, [beta](float x) { return x * kw::hl::sigmoid<float>(beta * x); });
}

// ---- Power: tensor^tensor, tensor^scalar, scalar^tensor, each with/without tmp and count ----
#define KW_POW_DTYPE()                                                                                                  \
    static_assert(SupportType<T, half, float, int32_t>(), "Failed to check dtype in Power, current api support dtype combination is " \
                                                          "src and dst both: half / float / int32_t.")
namespace kwpow {
template <typename T, class Base, class Expo>
inline void run(const LocalTensor<T>& dst, const LocalTensor<uint8_t>* tmp, uint32_t n, const LocalTensor<T>* tensor0,
                const LocalTensor<T>* tensor1, Base base, Expo expo) {
    const char* api = "Power";
    if (tensor0) kw::hl::warn_overlap(api, dst, *tensor0, n), kw::hl::read_span(api, *tensor0, n, "src0");
    if (tensor1) kw::hl::warn_overlap(api, dst, *tensor1, n), kw::hl::read_span(api, *tensor1, n, "src1");
    if (tmp) kw::hl::tmp_or_stack(api, tmp, kw::hl::kMinTmpBytes, kw::hl::span_of(dst, n));
    else kw::hl::use_stack(api, kw::hl::kMinTmpBytes);
    std::vector<T> out(n);
    for (uint32_t i = 0; i < n; ++i) out[i] = kw::hl::power<T>(base(i), expo(i));
    kw::hl::write_span(api, dst, n, "dst");
    std::memcpy(dst.ptr(), out.data(), size_t(n) * sizeof(T));
    kw::rt::count_vec(api, kw::dtype_name<T>(), kw::repeats_for(n, sizeof(T)), n);
}
}  // namespace kwpow
#define KW_POW_FORMS(SRC0, SRC1, T0, T1, B, E)                                                                         \
    template <typename T, bool isReuseSource = false>                                                                    \
    inline void Power(const LocalTensor<T>& dstTensor, SRC0, SRC1, const LocalTensor<uint8_t>& sharedTmpBuffer, uint32_t calCount) { \
        KW_POW_DTYPE();                                                                                                  \
        kwpow::run<T>(dstTensor, &sharedTmpBuffer, calCount, T0, T1, [&](uint32_t i) { return B; }, [&](uint32_t i) { return E; }); \
    }                                                                                                                    \
    template <typename T, bool isReuseSource = false>                                                                    \
    inline void Power(const LocalTensor<T>& dstTensor, SRC0, SRC1, uint32_t calCount) {                                  \
        KW_POW_DTYPE();                                                                                                  \
        kwpow::run<T>(dstTensor, nullptr, calCount, T0, T1, [&](uint32_t i) { return B; }, [&](uint32_t i) { return E; }); \
    }
#define KW_COMMA ,
KW_POW_FORMS(const LocalTensor<T>& src0Tensor, const LocalTensor<T>& src1Tensor, &src0Tensor, &src1Tensor, src0Tensor.ptr()[i],
             src1Tensor.ptr()[i])
KW_POW_FORMS(const LocalTensor<T>& src0Tensor, const T& src1Scalar, &src0Tensor, nullptr, src0Tensor.ptr()[i], (void(i) KW_COMMA src1Scalar))
KW_POW_FORMS(const T& src0Scalar, const LocalTensor<T>& src1Tensor, nullptr, &src1Tensor, (void(i) KW_COMMA src0Scalar), src1Tensor.ptr()[i])
#undef KW_COMMA
#undef KW_POW_FORMS
template <typename T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dstTensor, const LocalTensor<T>& src0Tensor, const LocalTensor<T>& src1Tensor,
                  const LocalTensor<uint8_t>& sharedTmpBuffer) {
    Power<T, isReuseSource>(dstTensor, src0Tensor, src1Tensor, sharedTmpBuffer, src0Tensor.GetSize());
}
template <typename T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dstTensor, const LocalTensor<T>& src0Tensor, const LocalTensor<T>& src1Tensor) {
    Power<T, isReuseSource>(dstTensor, src0Tensor, src1Tensor, src0Tensor.GetSize());
}
template <typename T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dstTensor, const LocalTensor<T>& src0Tensor, const T& src1Scalar, const LocalTensor<uint8_t>& sharedTmpBuffer) {
    Power<T, isReuseSource>(dstTensor, src0Tensor, src1Scalar, sharedTmpBuffer, src0Tensor.GetSize());
}
template <typename T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dstTensor, const LocalTensor<T>& src0Tensor, const T& src1Scalar) {
    Power<T, isReuseSource>(dstTensor, src0Tensor, src1Scalar, src0Tensor.GetSize());
}
template <typename T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dstTensor, const T& src0Scalar, const LocalTensor<T>& src1Tensor, const LocalTensor<uint8_t>& sharedTmpBuffer) {
    Power<T, isReuseSource>(dstTensor, src0Scalar, src1Tensor, sharedTmpBuffer, src1Tensor.GetSize());
}
template <typename T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dstTensor, const T& src0Scalar, const LocalTensor<T>& src1Tensor) {
    Power<T, isReuseSource>(dstTensor, src0Scalar, src1Tensor, src1Tensor.GetSize());
}
#undef KW_POW_DTYPE

// ---- ClampMax / ClampMin (`const T` scalar by value) ----
#define KW_CLAMP(API, EXPR)                                                                                             \
    template <typename T, bool isReuseSource = false>                                                                    \
    inline void API(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const LocalTensor<uint8_t>& sharedTmpBuffer, \
                    const T scalar, const uint32_t calCount) {                                                           \
        KW_HL_DTYPE(API, half, float);                                                                                   \
        kw::hl::tmp_or_stack(#API, &sharedTmpBuffer, kw::hl::kMinTmpBytes, kw::hl::span_of(srcTensor, calCount),        \
                             kw::hl::span_of(dstTensor, calCount));                                                      \
        const float s = float(scalar);                                                                                   \
        kw::hl::map1(#API, dstTensor, srcTensor, calCount, [s](float x) { return EXPR; });                               \
    }                                                                                                                    \
    template <typename T, bool isReuseSource = false>                                                                    \
    inline void API(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const T scalar, const uint32_t calCount) { \
        KW_HL_DTYPE(API, half, float);                                                                                   \
        kw::hl::use_stack(#API, kw::hl::kMinTmpBytes);                                                                   \
        const float s = float(scalar);                                                                                   \
        kw::hl::map1(#API, dstTensor, srcTensor, calCount, [s](float x) { return EXPR; });                               \
    }
KW_CLAMP(ClampMax, x > s ? s : x)
KW_CLAMP(ClampMin, x < s ? s : x)
#undef KW_CLAMP

// ---- Axpy (high-level form with sharedTmpBuffer): dst += src * scalar; (T, U) = (half, half),
// (float, float) or (float, half) ----
template <typename T, typename U, bool isReuseSource = false>
inline void Axpy(const LocalTensor<T>& dstTensor, const LocalTensor<U>& srcTensor, const U scalarValue, const LocalTensor<uint8_t>& sharedTmpBuffer,
                 const uint32_t calCount) {
    static_assert((IsSameType<T, U>::value && SupportType<T, half, float>()) || (IsSameType<T, float>::value && IsSameType<U, half>::value),
                  "Failed to check dtype in Axpy, current api support dtype combination is src: half, dst: half / float; src: float, dst: float.");
    const char* api = "Axpy";
    kw::hl::tmp_or_stack(api, &sharedTmpBuffer, kw::hl::kMinTmpBytes, kw::hl::span_of(srcTensor, calCount), kw::hl::span_of(dstTensor, calCount));
    kw::hl::read_span(api, srcTensor, calCount, "src");
    kw::hl::read_span(api, dstTensor, calCount, "dst");
    const float s = float(scalarValue);
    std::vector<T> out(calCount);
    for (uint32_t i = 0; i < calCount; ++i) out[i] = T(float(dstTensor.ptr()[i]) + float(srcTensor.ptr()[i]) * s);
    kw::hl::write_span(api, dstTensor, calCount, "dst");
    std::memcpy(dstTensor.ptr(), out.data(), size_t(calCount) * sizeof(T));
    kw::rt::count_vec(api, kw::dtype_name<T>(), kw::repeats_for(calCount, sizeof(T)), calCount);
}

#undef KW_HL_DTYPE
}  // namespace AscendC
