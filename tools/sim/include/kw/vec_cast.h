// Cast with every RoundMode, and Duplicate. Unsupported type pairs fail to compile (as the
// NPU's intrinsic lookup does); an unsupported mode for a supported pair fails at run time
// with the CPU twin's wording.
#pragma once
#include "kw/vec_engine.h"

namespace kw {
using AscendC::RoundMode;

// Bits of a finite float type, for stepping to the neighbouring representable value.
template <class F> struct FloatBits;
template <> struct FloatBits<float> { using U = uint32_t; };
template <> struct FloatBits<half> { using U = uint16_t; };
template <> struct FloatBits<bfloat16_t> { using U = uint16_t; };

template <class F> inline F next_toward(F v, bool up) {
    using U = typename FloatBits<F>::U;
    U b;
    std::memcpy(&b, &v, sizeof(U));
    const U sign = U(U(1) << (sizeof(U) * 8 - 1));
    if ((b & U(~sign)) == 0) {  // +-0
        b = up ? U(1) : U(sign | 1);
    } else if (((b & sign) == 0) == up) {
        b = U(b + 1);
    } else {
        b = U(b - 1);
    }
    F r;
    std::memcpy(&r, &b, sizeof(U));
    return r;
}

// Rounds an exact value to float type F with the given mode.
template <class F> inline F round_float(double x, RoundMode mode) {
    F n = F(static_cast<float>(x));  // round-to-nearest-even (float first; exact for our sources)
    if (std::isnan(x) || std::isinf(x) || mode == RoundMode::CAST_NONE || mode == RoundMode::CAST_RINT) return n;
    double nd = double(float(n));
    if (nd == x || std::isinf(nd)) return n;
    F lo = nd < x ? n : next_toward(n, false);
    F hi = nd > x ? n : next_toward(n, true);
    switch (mode) {
        case RoundMode::CAST_FLOOR: return lo;
        case RoundMode::CAST_CEIL: return hi;
        case RoundMode::CAST_TRUNC: return x < 0 ? hi : lo;
        case RoundMode::CAST_ROUND: {
            double dl = x - double(float(lo)), dh = double(float(hi)) - x;
            if (dl == dh) return x < 0 ? lo : hi;  // ties away from zero
            return dl < dh ? lo : hi;
        }
        case RoundMode::CAST_ODD: {  // round to odd: the neighbour whose last mantissa bit is set
            typename FloatBits<F>::U bl;
            std::memcpy(&bl, &lo, sizeof(bl));
            return (bl & 1) ? lo : hi;
        }
        default: return n;
    }
}

template <class I> inline I round_int(double x, RoundMode mode) {
    if (std::isnan(x)) return I(0);
    double r;
    switch (mode) {
        case RoundMode::CAST_FLOOR: r = std::floor(x); break;
        case RoundMode::CAST_CEIL: r = std::ceil(x); break;
        case RoundMode::CAST_TRUNC: r = std::trunc(x); break;
        case RoundMode::CAST_ROUND: r = std::round(x); break;
        default: r = std::nearbyint(x); break;  // RINT / NONE: ties to even
    }
    const double lo = double(std::numeric_limits<I>::min()), hi = double(std::numeric_limits<I>::max());
    if (r <= lo) return std::numeric_limits<I>::min();  // the hardware saturates
    if (r >= hi) return std::numeric_limits<I>::max();
    return static_cast<I>(r);
}

template <class D> inline D cast_value(double x, RoundMode mode) {
    if constexpr (std::is_integral<D>::value) return round_int<D>(x, mode);
    else return round_float<D>(x, mode);
}

// Supported (src, dst) pairs on A2/A3 and the modes each accepts (bit per RoundMode).
constexpr uint8_t M(RoundMode m) { return uint8_t(1u << static_cast<int>(m)); }
constexpr uint8_t kRFCRT = M(RoundMode::CAST_RINT) | M(RoundMode::CAST_FLOOR) | M(RoundMode::CAST_CEIL) | M(RoundMode::CAST_ROUND) |
                           M(RoundMode::CAST_TRUNC);
constexpr uint8_t kNone = M(RoundMode::CAST_NONE);
template <class S, class D> constexpr uint8_t cast_modes() {
    using AscendC::IsSameType;
    if (IsSameType<S, half>::value && IsSameType<D, float>::value) return kNone;
    if (IsSameType<S, float>::value && IsSameType<D, half>::value) return kRFCRT | kNone | M(RoundMode::CAST_ODD);
    if (IsSameType<S, float>::value && IsSameType<D, float>::value) return kRFCRT;
    if (IsSameType<S, bfloat16_t>::value && IsSameType<D, float>::value) return kNone;
    if (IsSameType<S, float>::value && IsSameType<D, bfloat16_t>::value) return kRFCRT;
    if (IsSameType<S, bfloat16_t>::value && IsSameType<D, int32_t>::value) return kRFCRT;
    if (IsSameType<S, float>::value && (IsSameType<D, int32_t>::value || IsSameType<D, int16_t>::value || IsSameType<D, int64_t>::value)) return kRFCRT;
    if (IsSameType<S, half>::value && (IsSameType<D, int32_t>::value || IsSameType<D, int16_t>::value)) return kRFCRT;
    if (IsSameType<S, half>::value && (IsSameType<D, int8_t>::value || IsSameType<D, uint8_t>::value)) return kRFCRT | kNone;
    if (IsSameType<S, int8_t>::value && IsSameType<D, half>::value) return kNone;
    if (IsSameType<S, uint8_t>::value && IsSameType<D, half>::value) return kNone;
    if (IsSameType<S, int16_t>::value && IsSameType<D, half>::value) return kRFCRT | kNone;
    if (IsSameType<S, int16_t>::value && IsSameType<D, float>::value) return kNone;
    if (IsSameType<S, int32_t>::value && IsSameType<D, float>::value) return kRFCRT | kNone;
    if (IsSameType<S, int32_t>::value && IsSameType<D, half>::value) return 0x7f;  // uses SetDeqScale; the mode is ignored
    if (IsSameType<S, int32_t>::value && IsSameType<D, int16_t>::value) return kNone;
    if (IsSameType<S, int32_t>::value && IsSameType<D, int64_t>::value) return kNone;
    if (IsSameType<S, int64_t>::value && IsSameType<D, int32_t>::value) return kNone;
    if (IsSameType<S, int64_t>::value && IsSameType<D, float>::value) return kRFCRT;
    return 0;
}

// The DEQSCALE register (SetDeqScale): an int32 -> half Cast multiplies by it before rounding.
struct DeqRegister {
    float scale = 1.0f;
    int16_t offset = 0;
    bool sign = false;
};
inline DeqRegister& deq_register() {
    static DeqRegister d;
    return d;
}

template <class D, class S> inline D cast_elem(S x, RoundMode m) {
    if constexpr (std::is_same<S, int32_t>::value && std::is_same<D, half>::value) {
        return round_float<half>(double(float(x) * deq_register().scale), RoundMode::CAST_RINT);
    } else if constexpr (std::is_same<S, float>::value && std::is_same<D, float>::value) {
        // float -> float rounds to an integral value in float format (f322f32r/f/c/a/z)
        if (!std::isfinite(x)) return x;
        switch (m) {
            case RoundMode::CAST_FLOOR: return std::floor(x);
            case RoundMode::CAST_CEIL: return std::ceil(x);
            case RoundMode::CAST_ROUND: return std::round(x);
            case RoundMode::CAST_TRUNC: return std::trunc(x);
            default: return std::nearbyint(x);
        }
    } else {
        return cast_value<D>(double(x), m);
    }
}

inline const char* round_name(RoundMode m) {
    static const char* n[] = {"CAST_NONE", "CAST_RINT", "CAST_FLOOR", "CAST_CEIL", "CAST_ROUND", "CAST_TRUNC", "CAST_ODD"};
    return n[static_cast<int>(m) % 7];
}

template <class D, class S> inline void check_cast_mode(RoundMode mode) {
    if (cast_modes<S, D>() & M(mode)) return;
    std::string ok;
    for (int i = 0; i < 7; ++i)
        if (cast_modes<S, D>() & (1u << i)) ok += std::string(ok.empty() ? "" : ", ") + round_name(static_cast<RoundMode>(i));
    rt::Diag("cast.mode", "Cast")
        .msg(std::string(round_name(mode)) + " from " + dtype_name<S>() + " to " + dtype_name<D>() + " not supported on current device")
        .val("mode", round_name(mode)).val("supported", ok)
        .hint(std::string("use one of: ") + ok + " (CAST_NONE is only for conversions that are exact or widen)")
        .fatal();
}
}  // namespace kw

namespace AscendC {

#define KW_CAST_CHECK()                                                                                                  \
    static_assert(kw::cast_modes<T2, T1>() != 0, "Failed to check dtype in Cast, this (src, dst) type pair is not "      \
                                                 "supported on current device; cast through float or half instead")

template <typename T1, typename T2, bool isSetMask = true>
inline void Cast(const LocalTensor<T1>& dstLocal, const LocalTensor<T2>& srcLocal, const RoundMode& round_mode, const uint64_t mask[],
                 const uint8_t repeatTimes, const UnaryRepeatParams& repeatParams) {
    KW_CAST_CHECK();
    kw::check_cast_mode<T1, T2>(round_mode);
    constexpr uint32_t wide = sizeof(T1) > sizeof(T2) ? sizeof(T1) : sizeof(T2);
    RoundMode m = round_mode;
    kw::unary_masked<T1, T2>("Cast", dstLocal, srcLocal, kw::lanes_from_bits(mask, isSetMask, 256 / wide, "Cast"), repeatTimes,
                             repeatParams.dstBlkStride, repeatParams.srcBlkStride, repeatParams.dstRepStride, repeatParams.srcRepStride,
                             [m](T2 x) { return kw::cast_elem<T1, T2>(x, m); });
}
template <typename T1, typename T2, bool isSetMask = true>
inline void Cast(const LocalTensor<T1>& dstLocal, const LocalTensor<T2>& srcLocal, const RoundMode& round_mode, const uint64_t mask,
                 const uint8_t repeatTimes, const UnaryRepeatParams& repeatParams) {
    KW_CAST_CHECK();
    kw::check_cast_mode<T1, T2>(round_mode);
    constexpr uint32_t wide = sizeof(T1) > sizeof(T2) ? sizeof(T1) : sizeof(T2);
    RoundMode m = round_mode;
    kw::unary_masked<T1, T2>("Cast", dstLocal, srcLocal, kw::lanes_from_count(mask, isSetMask, 256 / wide, "Cast"), repeatTimes,
                             repeatParams.dstBlkStride, repeatParams.srcBlkStride, repeatParams.dstRepStride, repeatParams.srcRepStride,
                             [m](T2 x) { return kw::cast_elem<T1, T2>(x, m); });
}
template <typename T1, typename T2>
inline void Cast(const LocalTensor<T1>& dstLocal, const LocalTensor<T2>& srcLocal, const RoundMode& round_mode, const uint32_t calCount) {
    KW_CAST_CHECK();
    kw::check_cast_mode<T1, T2>(round_mode);
    RoundMode m = round_mode;
    kw::unary_count<T1, T2>("Cast", dstLocal, srcLocal, calCount, [m](T2 x) { return kw::cast_elem<T1, T2>(x, m); });
}
#undef KW_CAST_CHECK

// DEQSCALE for int32 -> half Casts (the scale; offset and signMode matter for int8/int16 results).
inline void SetDeqScale(half scale) { kw::deq_register() = {float(scale), 0, false}; }
inline void SetDeqScale(float scale, int16_t offset, bool signMode) { kw::deq_register() = {scale, offset, signMode}; }

// ---- Duplicate: fill with a scalar (T deduced from both arguments, so a float literal into a half tensor fails) ----
#define KW_DUP_CHECK()                                                                                                   \
    static_assert(SupportType<T, int16_t, uint16_t, half, bfloat16_t, int32_t, uint32_t, float>(),                       \
                  "Failed to check dtype in Duplicate, current api support dtype combination is dst: int16_t / uint16_t / "  \
                  "half / bfloat16_t / int32_t / uint32_t / float.")
template <typename T, bool isSetMask = true>
inline void Duplicate(const LocalTensor<T>& dstLocal, const T& scalarValue, uint64_t mask, const uint8_t repeatTimes,
                      const uint16_t dstBlockStride, const uint8_t dstRepeatStride) {
    KW_DUP_CHECK();
    T v = scalarValue;
    kw::unary_masked<T, T>("Duplicate", dstLocal, dstLocal, kw::lanes_from_count(mask, isSetMask, 256 / sizeof(T), "Duplicate"), repeatTimes,
                           dstBlockStride, dstBlockStride, dstRepeatStride, dstRepeatStride, [v](T) { return v; });
}
template <typename T, bool isSetMask = true>
inline void Duplicate(const LocalTensor<T>& dstLocal, const T& scalarValue, uint64_t mask[], const uint8_t repeatTimes,
                      const uint16_t dstBlockStride, const uint8_t dstRepeatStride) {
    KW_DUP_CHECK();
    T v = scalarValue;
    kw::unary_masked<T, T>("Duplicate", dstLocal, dstLocal, kw::lanes_from_bits(mask, isSetMask, 256 / sizeof(T), "Duplicate"), repeatTimes,
                           dstBlockStride, dstBlockStride, dstRepeatStride, dstRepeatStride, [v](T) { return v; });
}
template <typename T> inline void Duplicate(const LocalTensor<T>& dstLocal, const T& scalarValue, const int32_t& calCount) {
    KW_DUP_CHECK();
    kw::require_count("Duplicate", calCount, dstLocal, "dst");
    kw::touch("Duplicate", dstLocal, calCount, true, "dst");
    for (int32_t i = 0; i < calCount; ++i) dstLocal.ptr()[i] = scalarValue;
    kw::rt::count_vec("Duplicate", kw::dtype_name<T>(), kw::repeats_for(calCount, sizeof(T)), calCount);
}
#undef KW_DUP_CHECK

}  // namespace AscendC
