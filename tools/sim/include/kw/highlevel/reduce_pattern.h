// The pattern Reduce APIs of CANN 8.x (Atlas A2/A3): ReduceSum / ReduceMean / ReduceMax / ReduceMin /
// ReduceProd / ReduceAny / ReduceAll over a 2-D source [first, last] whose inner axis is padded to 32
// bytes (srcInnerPad must be true on these SoCs), reducing the last axis (Pattern::Reduce::AR: dst holds
// `first` values) or the first (RA: dst holds `last`). Sums and products fold like the library's binary
// adds: the part past the largest power of two onto the front, then halves, every step rounded to T.
// Temporary space: the minimum of Get<Api>MaxMinTmpSize (kw/reduce_pattern_tmp.h).
#pragma once
#include <algorithm>
#include <cmath>
#include "kw/highlevel/common.h"
#include "kw/reduce_lanes.h"
#include "kw/reduce_pattern_tmp.h"

namespace AscendC {
namespace Pattern::Reduce {
struct AR {};
struct RA {};
struct R {};
struct ARA {};
struct ARAR {};
struct ARARA {};
struct ARARAR {};
struct ARARARA {};
struct ARARARAR {};
struct ARARARARA {};
struct RAR {};
struct RARA {};
struct RARAR {};
struct RARARA {};
struct RARARAR {};
struct RARARARA {};
}  // namespace Pattern::Reduce
}  // namespace AscendC

namespace kw::hl {

enum class RedOp { Sum, Mean, Max, Min, Prod, Any, All };

// v[0..n) folded to one value: the tail past the largest power of two onto the front, then halves.
template <class T, class F> inline T fold(std::vector<T> v, F op) {
    size_t n = v.size();
    if (n == 0) return T(0);
    size_t k = reduce_tmp::pow2_below(uint32_t(n));
    for (size_t i = 0; k < n && i < n - k; ++i) v[i] = op(v[i], v[k + i]);
    for (n = k; n > 1; n /= 2)
        for (size_t i = 0; i < n / 2; ++i) v[i] = op(v[i], v[i + n / 2]);
    return v[0];
}

template <class T, class Pattern, bool isReuseSource>
void pattern_reduce(const char* api, RedOp op, reduce_tmp::Kind kind, const LocalTensor<T>& dst, const LocalTensor<T>& src,
                    const LocalTensor<uint8_t>* tmp, const uint32_t srcShape[], bool srcInnerPad) {
    static_assert(AscendC::IsSameType<Pattern, AscendC::Pattern::Reduce::AR>::value ||
                      AscendC::IsSameType<Pattern, AscendC::Pattern::Reduce::RA>::value,
                  "failed to check the reduce pattern, it only supports AR/RA pattern!");
    constexpr bool ar = AscendC::IsSameType<Pattern, AscendC::Pattern::Reduce::AR>::value;
    const uint32_t first = srcShape[0], last = srcShape[1];
    if (!srcInnerPad)
        shape_error(api, "srcInnerPad is false; on this SoC the API only supports true (the inner axis padded to 32 bytes)",
                    "pad each row of src to 32 bytes and pass srcInnerPad = true");
    if (first == 0 || last == 0)
        shape_error(api, "srcShape is {" + std::to_string(first) + ", " + std::to_string(last) + "}; both axes must be greater than 0",
                    "pass the real [first, last] shape of src");
    const uint32_t per_blk = 32 / sizeof(T), pad = (last + per_blk - 1) / per_blk * per_blk;
    const uint64_t n_src = uint64_t(first) * pad, n_dst = ar ? first : last;
    const uint32_t need = reduce_tmp::min_bytes(kind, first, last, ar, sizeof(T), isReuseSource);
    if (tmp) {
        use_tmp(api, *tmp, need);
        check_tmp_disjoint(api, *tmp, need, src, n_src * sizeof(T), "srcTensor");
        check_tmp_disjoint(api, *tmp, need, dst, n_dst * sizeof(T), "dstTensor");
    } else if (need) {
        use_stack(api, need);
    }
    warn_overlap(api, dst, src, std::min<uint64_t>(n_src, n_dst));
    read_span(api, src, n_src, "srcTensor");
    const T* x = src.ptr();
    auto combine = [op](T a, T b) -> T {
        switch (op) {
            case RedOp::Sum: case RedOp::Mean: return T(acc_t<T>(a) + acc_t<T>(b));
            case RedOp::Prod: return T(acc_t<T>(a) * acc_t<T>(b));
            case RedOp::Max: case RedOp::Any: return acc_t<T>(a) >= acc_t<T>(b) || std::isnan(float(acc_t<T>(a))) ? a : b;
            default: return acc_t<T>(a) <= acc_t<T>(b) || std::isnan(float(acc_t<T>(a))) ? a : b;
        }
    };
    std::vector<T> out(n_dst);
    const uint32_t outer = ar ? first : last, inner = ar ? last : first;
    for (uint32_t o = 0; o < outer; ++o) {
        std::vector<T> v(inner);
        for (uint32_t i = 0; i < inner; ++i) v[i] = ar ? x[uint64_t(o) * pad + i] : x[uint64_t(i) * pad + o];
        T r = fold(v, combine);
        if (op == RedOp::Mean) r = T(acc_t<T>(r) * acc_t<T>(T(1.0f / float(inner))));
        out[o] = r;
    }
    write_span(api, dst, n_dst, "dstTensor");
    std::memcpy(dst.ptr(), out.data(), n_dst * sizeof(T));
    rt::count_vec(api, dtype_name<T>(), repeats_for(n_src, sizeof(T)), n_src);
}

}  // namespace kw::hl

namespace AscendC {
#define KW_PATTERN_REDUCE(Name, Op, Kind, Types, TypeText)                                                                      \
    template <class T, class pattern, bool isReuseSource = false>                                                                \
    inline void Name(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const LocalTensor<uint8_t>& sharedTmpBuffer, \
                     const uint32_t srcShape[], bool srcInnerPad) {                                                              \
        static_assert(SupportType<T, Types>(), "failed to check the data type, current api supports data type is " TypeText "!"); \
        kw::hl::pattern_reduce<T, pattern, isReuseSource>(#Name, kw::hl::RedOp::Op, Kind, dstTensor, srcTensor, &sharedTmpBuffer, \
                                                          srcShape, srcInnerPad);                                                \
    }                                                                                                                            \
    template <class T, class pattern, bool isReuseSource = false>                                                                \
    inline void Name(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const uint32_t srcShape[], bool srcInnerPad) { \
        static_assert(SupportType<T, Types>(), "failed to check the data type, current api supports data type is " TypeText "!"); \
        kw::hl::pattern_reduce<T, pattern, isReuseSource>(#Name, kw::hl::RedOp::Op, Kind, dstTensor, srcTensor, nullptr, srcShape, \
                                                          srcInnerPad);                                                          \
    }
#define KW_COMMA ,
KW_PATTERN_REDUCE(ReduceSum, Sum, kw::reduce_tmp::Kind::SumMean, float, "float")
KW_PATTERN_REDUCE(ReduceMean, Mean, kw::reduce_tmp::Kind::SumMean, half KW_COMMA float, "half/float")
KW_PATTERN_REDUCE(ReduceProd, Prod, kw::reduce_tmp::Kind::Prod, float, "float")
KW_PATTERN_REDUCE(ReduceMax, Max, kw::reduce_tmp::Kind::MaxMin, half KW_COMMA float, "half/float")
KW_PATTERN_REDUCE(ReduceMin, Min, kw::reduce_tmp::Kind::MaxMin, half KW_COMMA float, "half/float")
KW_PATTERN_REDUCE(ReduceAny, Any, (IsSameType<T, uint8_t>::value ? kw::reduce_tmp::Kind::AnyAllU8 : kw::reduce_tmp::Kind::MaxMin),
                  float KW_COMMA uint8_t, "float/uint8_t")
KW_PATTERN_REDUCE(ReduceAll, All, (IsSameType<T, uint8_t>::value ? kw::reduce_tmp::Kind::AnyAllU8 : kw::reduce_tmp::Kind::MaxMin),
                  float KW_COMMA uint8_t, "float/uint8_t")
#undef KW_COMMA
#undef KW_PATTERN_REDUCE
}  // namespace AscendC
