// Temporary space of the pattern Reduce APIs (ReduceSum/Mean/Max/Min/Prod/Any/All over an AR or RA
// [first, last] shape): the minimum CANN's Get<Api>MaxMinTmpSize reports on Atlas A2/A3 (asc-devkit
// impl/adv_api/tiling/reduce/reduce_tiling.cpp), shared by the host helpers and the kernel-side check.
// Plain C++: included by both.
#pragma once
#include <cstdint>

namespace kw::reduce_tmp {

enum class Kind { MaxMin, SumMean, Prod, AnyAllU8 };

inline uint32_t pow2_below(uint32_t n) {  // the largest power of two <= n
    uint32_t r = 1;
    while (n > 1) { r <<= 1; n >>= 1; }
    return r;
}

// first/last: the shape; ar: pattern AR (else RA); type_size of the data; reuse: isReuseSource.
inline uint32_t min_bytes(Kind kind, uint32_t first, uint32_t last, bool ar, uint32_t type_size, bool reuse) {
    const uint32_t blk = 32, rep = 256;
    auto align32 = [&](uint32_t b) { return (b + blk - 1) / blk * blk; };
    if (kind == Kind::AnyAllU8 && ar) return align32(last) * 2 + first * blk;
    if (kind == Kind::Prod && reuse) return ar ? rep : 0;
    if (reuse) return 0;
    if (kind == Kind::SumMean) {
        if (ar) {
            uint32_t k = pow2_below(last);
            if (k == last && first > 1) k >>= 1;
            return last <= 64 ? 0 : first * k * 4;
        }
        uint32_t k = pow2_below(first);
        if (k == first && first > 1) k >>= 1;
        return k * ((last + 7) / 8 * 8) * 4;
    }
    if (kind == Kind::Prod && ar) {
        uint32_t k = pow2_below(last);
        if (k == last && first > 1) k >>= 1;
        const uint32_t blk_k = k < 8 ? 8 : k;
        return (blk_k + first * 8) * 4 + rep;
    }
    if (ar) {  // Max/Min (and Any/All on float)
        const uint32_t per_blk = blk / type_size, per_rep = rep / type_size;
        if (last <= per_blk) return 0;
        return first * (last < per_rep ? per_blk : per_rep) * type_size;
    }
    uint32_t k = pow2_below(first);
    if (k == first && first > 1) k >>= 1;
    const uint32_t row = kind == Kind::AnyAllU8 ? align32(last) : align32(last * type_size);
    return k * row;
}

}  // namespace kw::reduce_tmp
