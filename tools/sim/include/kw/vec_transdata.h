// TransDataTo5HD (vnchwconv): 16 source and 16 destination 32-byte blocks per repeat, given as
// LocalTensors, as their GetPhyAddr() values, or (CANN's internal TransDataTo5HDImpl) as __ubuf__
// pointers. Per repeat, as the CANN 8.x API reference describes it:
//   b16: dst[j][i] = src[i][j] for j, i in 0..15 (a 16x16 transpose);
//   b32: for j in 0..7, dst[2j] gets element j of src[0..7] and dst[2j+1] element j of src[8..15];
//   b8:  for j in 0..15, dst[j] gets byte j (+16 with srcHighHalf) of each src block in its low half
//        (high half with dstHighHalf).
// Repeat r adds r * repStride blocks to every address; with repeatTimes == 1 the one repeat already
// adds the stride (the reference's note: set the strides to 0 to start at the lists).
#pragma once
#include "kw/cce_raw.h"

namespace AscendC {
constexpr int32_t NCHW_CONV_ADDR_LIST_SIZE = 16;

struct TransDataTo5HDParams {
    constexpr TransDataTo5HDParams() = default;
    constexpr TransDataTo5HDParams(const bool dstHighHalfIn, const bool srcHighHalfIn, const uint8_t repeatTimesIn,
                                   const uint16_t dstRepStrideIn, const uint16_t srcRepStrideIn)
        : dstHighHalf(dstHighHalfIn), srcHighHalf(srcHighHalfIn), repeatTimes(repeatTimesIn), dstRepStride(dstRepStrideIn),
          srcRepStride(srcRepStrideIn) {}
    bool dstHighHalf = false;
    bool srcHighHalf = false;
    uint8_t repeatTimes = 1;
    uint16_t dstRepStride = 0;
    uint16_t srcRepStride = 0;
};
}  // namespace AscendC

namespace kw {
// UB offsets of the 16 blocks of one list, checked: inside UB and 32-byte aligned.
template <class T> inline void transdata_offsets(const T* const* list, uint32_t (&off)[16], const char* api, const char* what) {
    for (int i = 0; i < 16; ++i) {
        AscendC::LocalTensor<T> t = ub_view<T>(list[i], api, what);
        if (t.addr_ % 32 != 0)
            rt::Diag("ub.align", api)
                .msg(std::string(api) + ": " + what + "[" + std::to_string(i) + "] starts at UB offset " + std::to_string(t.addr_) +
                     ", which is not 32-byte aligned")
                .val("address", t.addr_).val("alignment", 32)
                .hint("every address of the lists must be a 32-byte block: views t[k] need k*sizeof(T) % 32 == 0").fatal();
        off[i] = t.addr_;
    }
}

template <class T>
inline void transdata_5hd(T* const* dst, const T* const* src, const AscendC::TransDataTo5HDParams& p, const char* api) {
    static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4, "TransDataTo5HD takes 8-, 16- or 32-bit elements");
    uint32_t d[16], s[16];
    transdata_offsets<T>(dst, d, api, "dst");
    transdata_offsets<T>(src, s, api, "src");
    const uint32_t cap = rt::arena_capacity(AscendC::Hardware::UB);
    uint8_t* ub = rt::arena(AscendC::Hardware::UB);
    for (uint32_t r = 0; r < p.repeatTimes; ++r) {
        const uint64_t step = p.repeatTimes == 1 ? 1 : r;
        uint64_t so[16], dob[16];
        for (int i = 0; i < 16; ++i) {
            so[i] = s[i] + step * p.srcRepStride * 32;
            dob[i] = d[i] + step * p.dstRepStride * 32;
            if (so[i] + 32 > cap || dob[i] + 32 > cap)
                repeat_out_of_bounds(api, so[i] + 32 > cap ? "src" : "dst", (so[i] + 32 > cap ? so[i] : dob[i]) / sizeof(T),
                                     cap / sizeof(T));
            rt::access_local(Pipe::V, AscendC::Hardware::UB, uint32_t(so[i]), 32, false, api, "src");
        }
        uint8_t in[16][32];  // the whole repeat reads before it writes
        for (int i = 0; i < 16; ++i) std::memcpy(in[i], ub + so[i], 32);
        for (int i = 0; i < 16; ++i) rt::access_local(Pipe::V, AscendC::Hardware::UB, uint32_t(dob[i]), 32, true, api, "dst");
        if constexpr (sizeof(T) == 2) {
            for (int j = 0; j < 16; ++j)
                for (int i = 0; i < 16; ++i) std::memcpy(ub + dob[j] + 2 * i, in[i] + 2 * j, 2);
        } else if constexpr (sizeof(T) == 4) {
            for (int j = 0; j < 8; ++j)
                for (int i = 0; i < 16; ++i) std::memcpy(ub + dob[2 * j + i / 8] + 4 * (i % 8), in[i] + 4 * j, 4);
        } else {
            const int src_half = p.srcHighHalf ? 16 : 0, dst_half = p.dstHighHalf ? 16 : 0;
            for (int j = 0; j < 16; ++j)
                for (int i = 0; i < 16; ++i) ub[dob[j] + dst_half + i] = in[i][src_half + j];
        }
    }
    rt::count_vec(api, dtype_name<T>(), p.repeatTimes, uint64_t(p.repeatTimes) * 512 / sizeof(T));
}
}  // namespace kw

namespace AscendC {
template <typename T>
inline void TransDataTo5HD(const LocalTensor<T> (&dstList)[NCHW_CONV_ADDR_LIST_SIZE], const LocalTensor<T> (&srcList)[NCHW_CONV_ADDR_LIST_SIZE],
                           const TransDataTo5HDParams& nchwconvParams) {
    T* dst[16];
    const T* src[16];
    for (int i = 0; i < 16; ++i) dst[i] = dstList[i].GetPhyAddr(), src[i] = srcList[i].GetPhyAddr();
    kw::transdata_5hd<T>(dst, src, nchwconvParams, "TransDataTo5HD");
}
template <typename T>
inline void TransDataTo5HD(uint64_t dstList[NCHW_CONV_ADDR_LIST_SIZE], uint64_t srcList[NCHW_CONV_ADDR_LIST_SIZE],
                           const TransDataTo5HDParams& nchwconvParams) {
    T* dst[16];
    const T* src[16];
    for (int i = 0; i < 16; ++i) dst[i] = reinterpret_cast<T*>(dstList[i]), src[i] = reinterpret_cast<const T*>(srcList[i]);
    kw::transdata_5hd<T>(dst, src, nchwconvParams, "TransDataTo5HD");
}
template <typename T>
inline void TransDataTo5HD(const LocalTensor<uint64_t>& dst, const LocalTensor<uint64_t>& src, const TransDataTo5HDParams& nchwconvParams) {
    kw::require_room(dst, 16 * sizeof(uint64_t), "TransDataTo5HD", "dst");
    kw::require_room(src, 16 * sizeof(uint64_t), "TransDataTo5HD", "src");
    kw::rt::scalar_local(dst.hw(), dst.addr_, 16 * sizeof(uint64_t), false);  // the address lists are read by S
    kw::rt::scalar_local(src.hw(), src.addr_, 16 * sizeof(uint64_t), false);
    uint64_t d[16], s[16];
    for (int i = 0; i < 16; ++i) d[i] = dst.ptr()[i], s[i] = src.ptr()[i];
    TransDataTo5HD<T>(d, s, nchwconvParams);
}
// The internal form cann-ops kernels call with __ubuf__ pointer arrays.
template <typename T>
inline void TransDataTo5HDImpl(T* dstList[NCHW_CONV_ADDR_LIST_SIZE], T* srcList[NCHW_CONV_ADDR_LIST_SIZE],
                               const TransDataTo5HDParams& nchwconvParams) {
    kw::transdata_5hd<T>(dstList, srcList, nchwconvParams, "TransDataTo5HD");
}
}  // namespace AscendC
