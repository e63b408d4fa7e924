// Compare / CompareScalar / GetCmpMask / SetCmpMask with the A2/A3 semantics (Select: kw/vec_select.h):
// compare results are bit strings (one bit per element, little-endian inside each byte,
// repeats packed back to back).
#pragma once
#include "kw/vec_operands.h"

namespace kw {
using AscendC::CMPMODE;
using AscendC::SELMODE;

// The 128-bit CMPMASK special register: written by the register form of Compare and by
// SetCmpMask, read by GetCmpMask and by the Select forms that take no mask arguments.
struct CmpMaskRegister {
    uint8_t bytes[16] = {};
};
inline CmpMaskRegister& cmpmask_register() {
    static CmpMaskRegister r;
    return r;
}

template <class T> inline bool compare_holds(CMPMODE mode, T x, T y) {
    acc_t<T> a = acc_t<T>(x), b = acc_t<T>(y);
    switch (mode) {
        case CMPMODE::LT: return a < b;
        case CMPMODE::GT: return a > b;
        case CMPMODE::EQ: return a == b;
        case CMPMODE::LE: return a <= b;
        case CMPMODE::GE: return a >= b;
        default: return a != b;
    }
}

// int32_t sources only compare for equality on A2/A3 (the CPU twin asserts the same).
template <class T> inline void require_int_eq(const char* api, CMPMODE mode) {
    if (!std::is_same<T, int32_t>::value || mode == CMPMODE::EQ) return;
    rt::Diag("vec.cmp_mode", api)
        .msg(std::string(api) + " on int32_t supports only CMPMODE::EQ on this device; got mode " + std::to_string(int(mode)))
        .hint("compare int32_t data for equality only, or Cast it to float first").fatal();
}

// A source of the bit-string compares: the A2/A3 vcmpv reads every lane of every repeat (the mask
// is a reserved parameter there, CANN's Compare reference), so a short tensor is read past its end.
// Within UB that only reads neighbouring bytes whose bits the kernel ignores: a warning, and the
// operand spans the repeats; past the end of UB it stays ub.out_of_bounds.
template <class T> Operand whole_repeats(const char* api, const LocalTensor<T>& t, OperandLayout l, uint32_t repeats, const char* name) {
    Operand op = operand(t, l.blk, l.rep, name, false);
    const uint64_t per_block = 32 / sizeof(T), lanes = 256 / sizeof(T);
    if (repeats == 0) return op;
    const uint64_t last = (uint64_t(repeats - 1) * l.rep + (lanes / per_block - 1) * l.blk) * per_block + per_block - 1;
    const uint64_t room = (rt::arena_capacity(t.hw()) - t.addr_) / sizeof(T);
    if (last < op.size || last >= room) return op;
    rt::Diag("cmp.whole_repeat", api)
        .msg(std::string(api) + " reads all " + std::to_string(lanes) + " lanes of each repeat whatever the mask (A2/A3), so it reads " +
             name + " up to element " + std::to_string(last) + " though the tensor holds " + std::to_string(op.size) +
             "; the bits of the lanes past its end come from the bytes that follow in UB")
        .val("element", (long long)last).val("size", (long long)op.size)
        .hint("harmless if the kernel ignores those bits; size the compared tensors to whole 256-byte repeats to avoid it")
        .warn();
    op.size = last + 1;
    return op;
}

// Compare with a bit-string result in dst. `rhs` is the second tensor (src1) or null for a
// scalar. The A2/A3 vcmpv instructions ignore the mask: every lane of every repeat is
// compared, and repeat r writes bits [r*lanes, (r+1)*lanes) of dst regardless of dst strides.
template <class T, class U>
void compare_to_bits(const char* api, const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>* src1, T scalar,
                     CMPMODE mode, uint32_t repeats, OperandLayout l0, OperandLayout l1) {
    require_int_eq<T>(api, mode);
    require_aligned(dst, api, "dst");
    require_aligned(src0, api, "src0");
    if (src1) require_aligned(*src1, api, "src1");
    const uint32_t lanes = 256 / sizeof(T);
    const uint64_t out_bytes = uint64_t(repeats) * lanes / 8;
    require_room(dst, out_bytes, api, "dst");
    std::vector<uint8_t> bits(size_t(out_bytes), 0);
    const T* a = src0.ptr();
    const T* b = src1 ? src1->ptr() : nullptr;
    auto body = [&](const uint64_t* idx, uint32_t r, uint32_t j) {
        put_bit(bits.data(), uint64_t(r) * lanes + j, compare_holds<T>(mode, a[idx[0]], b ? b[idx[1]] : scalar));
    };
    if (src1) {
        const Operand ops[2] = {whole_repeats(api, src0, l0, repeats, "src0"), whole_repeats(api, *src1, l1, repeats, "src1")};
        lanes_pass<2>(api, all_lanes(lanes), repeats, lanes, ops, body);
    } else {
        const Operand ops[1] = {whole_repeats(api, src0, l0, repeats, "src0")};
        lanes_pass<1>(api, all_lanes(lanes), repeats, lanes, ops, body);
    }
    rt::access_local(Pipe::V, dst.hw(), dst.addr_, out_bytes, true, api, "dst");
    std::memcpy(dst.ptr(), bits.data(), bits.size());
    rt::count_vec(api, dtype_name<T>(), repeats, uint64_t(repeats) * lanes);
}

// Count forms run whole 256-byte repeats only; the NPU silently leaves the tail out.
template <class T> inline uint32_t compare_count_repeats(const char* api, uint32_t count) {
    if (uint64_t(count) * sizeof(T) % 256 != 0)
        rt::Diag("vec.cmp_count_align", api)
            .msg(std::string(api) + " with calCount " + std::to_string(count) + " x " + std::to_string(sizeof(T)) + " bytes = " +
                 std::to_string(uint64_t(count) * sizeof(T)) + " bytes, which is not a multiple of 256; the NPU compares only the first " +
                 std::to_string(uint64_t(count) * sizeof(T) / 256 * 256 / sizeof(T)) + " elements and leaves the rest of dst unwritten")
            .val("count", count).val("bytes", (long long)(uint64_t(count) * sizeof(T)))
            .hint("pad the compared length up to a multiple of 256 bytes (" + std::to_string(256 / sizeof(T)) + " elements) and ignore the extra bits")
            .fatal();
    return uint32_t(uint64_t(count) * sizeof(T) / 256);
}

}  // namespace kw

namespace AscendC {

#define KW_CMP_CHECK(LIST, ...)                                                                                        \
    static_assert(SupportType<T, __VA_ARGS__>() && SupportType<U, int8_t, uint8_t>(),                                   \
                  "Failed to check dtype in Compare, current api support dtype combination is src: " LIST ", dst: int8_t / uint8_t.")
#define KW_CMPS_CHECK()                                                                                                \
    static_assert(SupportType<T, half, float, int32_t>() && SupportType<U, uint8_t>(),                                  \
                  "Failed to check dtype in CompareScalar, current api support dtype combination is src0: half / float / int32_t, "  \
                  "dst: uint8_t.")

// ---- Compare into a bit-string tensor (mask and isSetMask are accepted but, as on A2/A3, ignored) ----
template <typename T, typename U, bool isSetMask = true>
inline void Compare(const LocalTensor<U>& dstLocal, const LocalTensor<T>& src0Local, const LocalTensor<T>& src1Local, CMPMODE cmpMode,
                    const uint64_t mask[], uint8_t repeatTimes, const BinaryRepeatParams& repeatParams) {
    KW_CMP_CHECK("half / float / int32_t", half, float, int32_t);
    (void)mask;
    kw::compare_to_bits<T, U>("Compare", dstLocal, src0Local, &src1Local, T(), cmpMode, repeatTimes,
                              {uint32_t(sizeof(T)), repeatParams.src0BlkStride, repeatParams.src0RepStride},
                              {uint32_t(sizeof(T)), repeatParams.src1BlkStride, repeatParams.src1RepStride});
}
template <typename T, typename U, bool isSetMask = true>
inline void Compare(const LocalTensor<U>& dstLocal, const LocalTensor<T>& src0Local, const LocalTensor<T>& src1Local, CMPMODE cmpMode,
                    const uint64_t mask, uint8_t repeatTimes, const BinaryRepeatParams& repeatParams) {
    KW_CMP_CHECK("half / float / int32_t", half, float, int32_t);
    (void)mask;
    kw::compare_to_bits<T, U>("Compare", dstLocal, src0Local, &src1Local, T(), cmpMode, repeatTimes,
                              {uint32_t(sizeof(T)), repeatParams.src0BlkStride, repeatParams.src0RepStride},
                              {uint32_t(sizeof(T)), repeatParams.src1BlkStride, repeatParams.src1RepStride});
}
template <typename T, typename U>
inline void Compare(const LocalTensor<U>& dstLocal, const LocalTensor<T>& src0Local, const LocalTensor<T>& src1Local, CMPMODE cmpMode,
                    uint32_t calCount) {
    KW_CMP_CHECK("half / float / int32_t", half, float, int32_t);
    uint32_t reps = kw::compare_count_repeats<T>("Compare", calCount);
    kw::compare_to_bits<T, U>("Compare", dstLocal, src0Local, &src1Local, T(), cmpMode, reps, {uint32_t(sizeof(T)), 1, 8},
                              {uint32_t(sizeof(T)), 1, 8});
}

// ---- Compare into the CMPMASK register: one repeat, masked-off lanes give 0 bits ----
namespace kwcmp {
template <typename T>
inline void to_register(const LocalTensor<T>& a, const LocalTensor<T>& b, CMPMODE mode, const kw::LaneMask& m, const BinaryRepeatParams& p) {
    static_assert(SupportType<T, half, float>(), "Failed to check dtype in Compare, current api support dtype combination is src: half / float.");
    const char* api = "Compare";
    kw::require_aligned(a, api, "src0");
    kw::require_aligned(b, api, "src1");
    const uint32_t lanes = 256 / sizeof(T);
    const kw::Operand ops[2] = {kw::operand(a, p.src0BlkStride, p.src0RepStride, "src0", false),
                                kw::operand(b, p.src1BlkStride, p.src1RepStride, "src1", false)};
    kw::CmpMaskRegister reg;
    kw::lanes_pass<2>(api, m, 1, lanes, ops, [&](const uint64_t* idx, uint32_t, uint32_t j) {
        kw::put_bit(reg.bytes, j, kw::compare_holds<T>(mode, a.ptr()[idx[0]], b.ptr()[idx[1]]));
    });
    kw::cmpmask_register() = reg;
    kw::rt::count_vec(api, kw::dtype_name<T>(), 1, lanes);
}
}  // namespace kwcmp
template <typename T, bool isSetMask = true>
inline void Compare(const LocalTensor<T>& src0Local, const LocalTensor<T>& src1Local, CMPMODE cmpMode, const uint64_t mask[],
                    const BinaryRepeatParams& repeatParams) {
    kwcmp::to_register(src0Local, src1Local, cmpMode, kw::lanes_from_bits(mask, isSetMask, 256 / sizeof(T), "Compare"), repeatParams);
}
template <typename T, bool isSetMask = true>
inline void Compare(const LocalTensor<T>& src0Local, const LocalTensor<T>& src1Local, CMPMODE cmpMode, const uint64_t mask,
                    const BinaryRepeatParams& repeatParams) {
    kwcmp::to_register(src0Local, src1Local, cmpMode, kw::lanes_from_count(mask, isSetMask, 256 / sizeof(T), "Compare"), repeatParams);
}

// GetCmpMask writes the 128-bit register (16 bytes); SetCmpMask loads 16 bytes into it.
template <typename T> inline void GetCmpMask(const LocalTensor<T>& dst) {
    kw::require_aligned(dst, "GetCmpMask", "dst", 16);
    kw::require_room(dst, 16, "GetCmpMask", "dst");
    kw::rt::access_local(kw::Pipe::V, dst.hw(), dst.addr_, 16, true, "GetCmpMask", "dst");
    std::memcpy(dst.ptr(), kw::cmpmask_register().bytes, 16);
}
template <typename T> inline void SetCmpMask(const LocalTensor<T>& src) {
    kw::require_aligned(src, "SetCmpMask", "src", 16);
    kw::require_room(src, 16, "SetCmpMask", "src");
    kw::rt::access_local(kw::Pipe::V, src.hw(), src.addr_, 16, false, "SetCmpMask", "src");
    std::memcpy(kw::cmpmask_register().bytes, src.ptr(), 16);
}

// ---- CompareScalar (`const T` by value: the scalar must have the tensor's exact type) ----
template <typename T, typename U, bool isSetMask = true>
inline void CompareScalar(const LocalTensor<U>& dstLocal, const LocalTensor<T>& src0Local, const T src1Scalar, CMPMODE cmpMode,
                          const uint64_t mask[], uint8_t repeatTimes, const UnaryRepeatParams& repeatParams) {
    KW_CMPS_CHECK();
    (void)mask;
    kw::compare_to_bits<T, U>("CompareScalar", dstLocal, src0Local, nullptr, src1Scalar, cmpMode, repeatTimes,
                              {uint32_t(sizeof(T)), repeatParams.srcBlkStride, repeatParams.srcRepStride}, {uint32_t(sizeof(T)), 1, 8});
}
template <typename T, typename U, bool isSetMask = true>
inline void CompareScalar(const LocalTensor<U>& dstLocal, const LocalTensor<T>& src0Local, const T src1Scalar, CMPMODE cmpMode,
                          const uint64_t mask, uint8_t repeatTimes, const UnaryRepeatParams& repeatParams) {
    KW_CMPS_CHECK();
    (void)mask;
    kw::compare_to_bits<T, U>("CompareScalar", dstLocal, src0Local, nullptr, src1Scalar, cmpMode, repeatTimes,
                              {uint32_t(sizeof(T)), repeatParams.srcBlkStride, repeatParams.srcRepStride}, {uint32_t(sizeof(T)), 1, 8});
}
template <typename T, typename U>
inline void CompareScalar(const LocalTensor<U>& dstLocal, const LocalTensor<T>& src0Local, const T src1Scalar, CMPMODE cmpMode,
                          uint32_t calCount) {
    KW_CMPS_CHECK();
    uint32_t reps = kw::compare_count_repeats<T>("CompareScalar", calCount);
    kw::compare_to_bits<T, U>("CompareScalar", dstLocal, src0Local, nullptr, src1Scalar, cmpMode, reps, {uint32_t(sizeof(T)), 1, 8},
                              {uint32_t(sizeof(T)), 1, 8});
}

#undef KW_CMP_CHECK
#undef KW_CMPS_CHECK
}  // namespace AscendC
