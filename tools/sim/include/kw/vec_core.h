// Shared machinery of vector instructions: the mask register, lane iteration for the
// mask/repeat forms, and the checks every instruction makes (alignment, bounds, counts,
// pipe hazards, work counters).
#pragma once
#include "kw/data_copy.h"

namespace AscendC {
struct BinaryRepeatParams {
    BinaryRepeatParams() {}
    BinaryRepeatParams(const uint8_t dstBlkStrideIn, const uint8_t src0BlkStrideIn, const uint8_t src1BlkStrideIn,
                       const uint8_t dstRepStrideIn, const uint8_t src0RepStrideIn, const uint8_t src1RepStrideIn)
        : dstBlkStride(dstBlkStrideIn), src0BlkStride(src0BlkStrideIn), src1BlkStride(src1BlkStrideIn),
          dstRepStride(dstRepStrideIn), src0RepStride(src0RepStrideIn), src1RepStride(src1RepStrideIn) {}
    uint32_t blockNumber = 8;
    uint8_t dstBlkStride = 1, src0BlkStride = 1, src1BlkStride = 1;
    uint8_t dstRepStride = 8, src0RepStride = 8, src1RepStride = 8;
    bool repeatStrideMode = false, strideSizeMode = false;
};
struct UnaryRepeatParams {
    UnaryRepeatParams() {}
    UnaryRepeatParams(const uint16_t dstBlkStrideIn, const uint16_t srcBlkStrideIn, const uint8_t dstRepStrideIn, const uint8_t srcRepStrideIn)
        : dstBlkStride(dstBlkStrideIn), srcBlkStride(srcBlkStrideIn), dstRepStride(dstRepStrideIn), srcRepStride(srcRepStrideIn) {}
    UnaryRepeatParams(const uint16_t dstBlkStrideIn, const uint16_t srcBlkStrideIn, const uint8_t dstRepStrideIn, const uint8_t srcRepStrideIn,
                      const bool halfBlockIn)
        : dstBlkStride(dstBlkStrideIn), srcBlkStride(srcBlkStrideIn), dstRepStride(dstRepStrideIn), srcRepStride(srcRepStrideIn),
          halfBlock(halfBlockIn) {}
    uint32_t blockNumber = 8;
    uint16_t dstBlkStride = 1, srcBlkStride = 1;
    uint8_t dstRepStride = 8, srcRepStride = 8;
    bool repeatStrideMode = false, strideSizeMode = false, halfBlock = false;
};
}  // namespace AscendC

namespace kw {

// The vector mask register (SetVectorMask) and mode (SetMaskNorm / SetMaskCount).
struct MaskRegister {
    bool counter = false;
    uint64_t hi = ~0ull, lo = ~0ull;
};
inline MaskRegister& mask_register() {
    static MaskRegister m;
    return m;
}

// Which lanes of each repeat an instruction uses.
struct LaneMask {
    uint64_t bits[2] = {0, 0};
    bool counter = false;   // counter mode: `total` elements over as many repeats as needed
    uint64_t total = 0;
    bool lane(uint32_t j) const { return (bits[j / 64] >> (j % 64)) & 1u; }
};

[[noreturn]] inline void mask_out_of_range(const char* api, uint64_t mask, uint32_t lanes) {
    rt::Diag("vec.mask_range", api)
        .msg(std::string("mask ") + std::to_string(mask) + " is out of range for " + api + ": one repeat has " + std::to_string(lanes) +
             " lanes of this data type, so a continuous mask must be in 1.." + std::to_string(lanes))
        .val("mask", (long long)mask).val("lanes", lanes)
        .hint("use mask = 256 / sizeof(T) for full repeats and a smaller mask (or the count form Op(dst, src, n)) for the tail")
        .fatal();
}

inline LaneMask lanes_from_count(uint64_t mask, bool isSetMask, uint32_t lanes, const char* api) {
    LaneMask m;
    const MaskRegister& reg = mask_register();
    if (reg.counter) {
        m.counter = true;
        m.total = isSetMask ? mask : reg.lo;
        return m;
    }
    if (!isSetMask) {
        m.bits[0] = reg.lo;
        m.bits[1] = reg.hi;
        return m;
    }
    if (mask > lanes) mask_out_of_range(api, mask, lanes);
    for (uint32_t j = 0; j < mask; ++j) m.bits[j / 64] |= 1ull << (j % 64);
    return m;
}

inline LaneMask lanes_from_bits(const uint64_t mask[], bool isSetMask, uint32_t lanes, const char* api) {
    LaneMask m;
    const MaskRegister& reg = mask_register();
    if (reg.counter) {
        m.counter = true;
        m.total = isSetMask ? mask[0] : reg.lo;
        return m;
    }
    if (!isSetMask) {
        m.bits[0] = reg.lo;
        m.bits[1] = reg.hi;
        return m;
    }
    m.bits[0] = mask[0];
    m.bits[1] = lanes > 64 ? mask[1] : 0;
    (void)api;
    return m;
}

// One operand of a mask/repeat-form instruction: element size and strides in 32-byte blocks.
struct OperandLayout {
    uint32_t esize;
    uint32_t blk;
    uint32_t rep;
};

[[noreturn]] inline void repeat_out_of_bounds(const char* api, const char* operand, uint64_t index, uint64_t size) {
    rt::Diag("ub.out_of_bounds", api)
        .msg(std::string(api) + " reaches element " + std::to_string(index) + " of " + operand + ", which holds only " +
             std::to_string(size) + " elements (mask/repeat/stride settings run past the tensor)")
        .val("element", (long long)index).val("size", (long long)size)
        .hint("check repeatTimes x repStride (in 32-byte blocks) against the tensor length")
        .fatal();
}

// Calls fn(idx) with the element index of every operand for each active lane, after
// bounds-checking each index. `lanes` is 256 bytes over the widest element size.
template <int N, class Fn>
void for_each_lane(const char* api, const LaneMask& m, uint32_t repeats, uint32_t lanes, const OperandLayout (&ops)[N],
                   const uint64_t (&sizes)[N], const char* const (&names)[N], uint64_t (&lo)[N], uint64_t (&hi)[N], Fn fn) {
    if (m.counter) repeats = uint32_t((m.total + lanes - 1) / lanes);
    uint64_t idx[N];
    for (int o = 0; o < N; ++o) lo[o] = ~0ull, hi[o] = 0;
    for (uint32_t r = 0; r < repeats; ++r) {
        for (uint32_t j = 0; j < lanes; ++j) {
            if (m.counter ? uint64_t(r) * lanes + j >= m.total : !m.lane(j)) continue;
            for (int o = 0; o < N; ++o) {
                uint32_t per_block = 32 / ops[o].esize;
                idx[o] = (uint64_t(r) * ops[o].rep + uint64_t(j / per_block) * ops[o].blk) * per_block + j % per_block;
                if (idx[o] >= sizes[o]) repeat_out_of_bounds(api, names[o], idx[o], sizes[o]);
                if (idx[o] < lo[o]) lo[o] = idx[o];
                if (idx[o] > hi[o]) hi[o] = idx[o];
            }
            // instructions whose result depends on the lane position (bit masks, indices) take (idx, r, j)
            if constexpr (std::is_invocable<Fn&, const uint64_t*, uint32_t, uint32_t>::value) fn(idx, r, j);
            else fn(idx);
        }
    }
}

template <class T> inline void require_count(const char* api, int64_t count, const LocalTensor<T>& t, const char* operand) {
    if (count < 0)
        rt::Diag("vec.count", api)
            .msg(std::string(api) + " got a negative element count " + std::to_string(count))
            .val("count", (long long)count).hint("the count is an int32 number of elements; check the tail arithmetic").fatal();
    require_aligned(t, api, operand);
    require_room(t, uint64_t(count) * sizeof(T), api, operand);
}

// Hazard tracking and counters for a count-form instruction over `count` elements.
template <class T> inline void touch(const char* api, const LocalTensor<T>& t, uint64_t count, bool write, const char* operand) {
    rt::access_local(Pipe::V, t.hw(), t.addr_, count * sizeof(T), write, api, operand);
}
inline uint64_t repeats_for(uint64_t count, size_t esize) { return (count * esize + 255) / 256; }

// Rounding of a wide intermediate back to the element type (integers wrap like the hardware).
template <class T, class A> inline T narrow(A v) {
    if constexpr (std::is_integral<T>::value && std::is_integral<A>::value) return static_cast<T>(static_cast<std::make_unsigned_t<T>>(v));
    else return static_cast<T>(v);
}

}  // namespace kw

namespace AscendC {
inline void SetMaskCount() { kw::mask_register().counter = true; }
inline void SetMaskNorm() { kw::mask_register().counter = false; }
inline void ResetMask() {
    kw::mask_register().hi = ~0ull;
    kw::mask_register().lo = ~0ull;
}
template <typename T, MaskMode mode = MaskMode::NORMAL> inline void SetVectorMask(const uint64_t maskHigh, const uint64_t maskLow) {
    kw::mask_register().hi = maskHigh;
    kw::mask_register().lo = maskLow;
}
template <typename T, MaskMode mode = MaskMode::NORMAL> inline void SetVectorMask(int32_t len) {
    kw::MaskRegister& m = kw::mask_register();
    if (mode == MaskMode::COUNTER || m.counter) {
        m.lo = uint64_t(len);
        m.hi = 0;
        return;
    }
    m.lo = m.hi = 0;
    for (int32_t j = 0; j < len && j < 128; ++j) (j < 64 ? m.lo : m.hi) |= 1ull << (j % 64);
}
}  // namespace AscendC
