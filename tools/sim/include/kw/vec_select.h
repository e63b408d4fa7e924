// Select (modes 0, 1, 2; with mask arguments or under SetVectorMask/SetCmpMask) with the A2/A3
// semantics: dst takes src0 where the selMask bit is 1, else src1 (or the scalar); selMask bits
// are little-endian inside each byte. The compares and the CMPMASK register: kw/vec_cmpsel.h.
#pragma once
#include "kw/vec_cmpsel.h"

namespace kw {
// Select modes 1 and 2 stage a scalar / an address in the last 8 KiB of UB (TMP_UB_OFFSET).
// Writing it here makes a kernel whose buffers live there see the same corruption as the NPU.
inline void select_scratch(const char* api, const void* data, uint32_t bytes) {
    const uint32_t ub = rt::arena_capacity(AscendC::Hardware::UB);
    const uint32_t scratch = ub > 8192 ? ub - 8192 : 0;
    static bool warned = false;
    if (!warned && rt::reserved_end(AscendC::Hardware::UB) > scratch) {
        warned = true;
        rt::Diag("ub.reserved_scratch", api)
            .msg(std::string(api) + " (select mode 1/2) uses UB [" + std::to_string(scratch) + ", " + std::to_string(ub) +
                 ") as scratch, but the kernel's buffers reach offset " + std::to_string(rt::reserved_end(AscendC::Hardware::UB)) +
                 "; the scratch write overwrites that data on the NPU")
            .val("scratch_start", scratch).val("buffers_end", rt::reserved_end(AscendC::Hardware::UB))
            .hint("keep the sum of InitBuffer sizes at or below " + std::to_string(scratch) + " bytes (reserve 8 KiB of UB for Select)")
            .warn();
    }
    rt::access_local(Pipe::V, AscendC::Hardware::UB, scratch, 32, true, api, "scratch");
    std::memcpy(rt::arena(AscendC::Hardware::UB) + scratch, data, bytes);
}

// The element-wise part of every Select form. `bit(r, j)` gives the selMask bit of lane j of
// repeat r; `b` is src1 (null for the scalar forms).
template <class T, class BitFn>
void select_lanes(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>* src1, T scalar,
                  const LaneMask& m, uint32_t repeats, const AscendC::BinaryRepeatParams& p, BitFn bit) {
    require_aligned(dst, api, "dst");
    require_aligned(src0, api, "src0");
    if (src1) require_aligned(*src1, api, "src1");
    const uint32_t e = sizeof(T), lanes = 256 / e;
    std::vector<std::pair<uint64_t, T>> out;
    const T* a = src0.ptr();
    const T* b = src1 ? src1->ptr() : nullptr;
    const Operand d0 = operand(dst, p.dstBlkStride, p.dstRepStride, "dst", true);
    const Operand s0 = operand(src0, p.src0BlkStride, p.src0RepStride, "src0", false);
    if (src1) {
        const Operand ops[3] = {d0, s0, operand(*src1, p.src1BlkStride, p.src1RepStride, "src1", false)};
        lanes_pass<3>(api, m, repeats, lanes, ops, [&](const uint64_t* idx, uint32_t r, uint32_t j) {
            out.emplace_back(idx[0], bit(r, j) ? a[idx[1]] : b[idx[2]]);
        });
    } else {
        const Operand ops[2] = {d0, s0};
        lanes_pass<2>(api, m, repeats, lanes, ops, [&](const uint64_t* idx, uint32_t r, uint32_t j) {
            out.emplace_back(idx[0], bit(r, j) ? a[idx[1]] : scalar);
        });
    }
    T* d = dst.ptr();
    for (auto& kv : out) d[kv.first] = kv.second;
    rt::count_vec(api, dtype_name<T>(), m.counter ? (m.total * e + 255) / 256 : repeats, out.size());
}

// How many selMask bits the instruction consumes: mode 0 reuses one repeat's bits, modes 1/2
// consume lanes bits per repeat.
inline uint64_t select_bits_used(SELMODE mode, const LaneMask& m, uint32_t repeats, uint32_t lanes) {
    uint64_t reps = m.counter ? (m.total + lanes - 1) / lanes : repeats;
    if (mode == SELMODE::VSEL_CMPMASK_SPR) return m.counter && m.total < lanes ? m.total : lanes;
    return m.counter ? m.total : reps * lanes;
}

template <class T, class U>
void select_with_mask(const char* api, const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                      const LocalTensor<T>* src1, T scalar, SELMODE mode, const LaneMask& m, uint32_t repeats,
                      const AscendC::BinaryRepeatParams& p) {
    const uint32_t lanes = 256 / sizeof(T);
    require_aligned(selMask, api, "selMask");
    const uint64_t bits = select_bits_used(mode, m, repeats, lanes);
    require_room(selMask, (bits + 7) / 8, api, "selMask");
    rt::access_local(Pipe::V, selMask.hw(), selMask.addr_, (bits + 7) / 8, false, api, "selMask");
    const uint8_t* sel = reinterpret_cast<const uint8_t*>(selMask.ptr());
    std::vector<uint8_t> snapshot(sel, sel + (bits + 7) / 8);  // read before dst is written (dst may alias)
    const bool reuse = mode == SELMODE::VSEL_CMPMASK_SPR;
    select_lanes<T>(api, dst, src0, src1, scalar, m, repeats, p,
                    [&](uint32_t r, uint32_t j) { return bit_of(snapshot.data(), reuse ? j : uint64_t(r) * lanes + j); });
}

inline void require_tensor_mode(const char* api, SELMODE mode) {
    if (mode != SELMODE::VSEL_TENSOR_SCALAR_MODE) return;
    rt::Diag("vec.select_mode", api)
        .msg("SELMODE::VSEL_TENSOR_SCALAR_MODE was passed to the Select overload that takes src1 as a tensor")
        .hint("pass the scalar itself as src1 (Select(dst, selMask, src0, scalar, SELMODE::VSEL_TENSOR_SCALAR_MODE, ...)), or use "
              "VSEL_CMPMASK_SPR / VSEL_TENSOR_TENSOR_MODE with two tensors")
        .fatal();
}
}  // namespace kw

namespace AscendC {
// CANN checks the mask type only in CPU-debug builds; on the NPU the mask is reinterpreted as bits, and
// kernels that pass an int8_t mask tensor compile there, so any integer type is accepted here.
#define KW_SEL_CHECK()                                                                                                 \
    static_assert(SupportType<T, half, float>() && std::is_integral<U>::value,                                          \
                  "Failed to check dtype in Select, current api support dtype combination is dst, src0Local and src1Local are "  \
                  "both: half / float, selMask: uint8_t / uint16_t / uint32_t / uint64_t.")

// ---- Select, modes 0 and 2 (two tensors) ----
namespace kwsel {
// Mode 2 stages selMask's address in the scratch area first, as the library does.
template <typename U> inline void tensor_mode_prologue(const LocalTensor<U>& selMask, SELMODE mode) {
    kw::require_tensor_mode("Select", mode);
    if (mode != SELMODE::VSEL_TENSOR_TENSOR_MODE) return;
    uint64_t a = selMask.addr_;
    kw::select_scratch("Select", &a, sizeof(a));
}
}  // namespace kwsel
#define KW_SELECT_TT(MASKT, LANES)                                                                                      \
    template <typename T, typename U, bool isSetMask = true>                                                             \
    inline void Select(const LocalTensor<T>& dstLocal, const LocalTensor<U>& selMask, const LocalTensor<T>& src0Local,   \
                       const LocalTensor<T>& src1Local, SELMODE selMode, MASKT mask, uint8_t repeatTimes,               \
                       const BinaryRepeatParams& repeatParams) {                                                         \
        KW_SEL_CHECK();                                                                                                  \
        kwsel::tensor_mode_prologue(selMask, selMode);                                                                   \
        kw::select_with_mask<T, U>("Select", dstLocal, selMask, src0Local, &src1Local, T(), selMode,                    \
                                   kw::LANES(mask, isSetMask, 256 / sizeof(T), "Select"), repeatTimes, repeatParams);   \
    }
KW_SELECT_TT(uint64_t*, lanes_from_bits)
KW_SELECT_TT(uint64_t, lanes_from_count)
#undef KW_SELECT_TT
template <typename T, typename U>
inline void Select(const LocalTensor<T>& dstLocal, const LocalTensor<U>& selMask, const LocalTensor<T>& src0Local,
                   const LocalTensor<T>& src1Local, SELMODE selMode, uint32_t calCount) {
    KW_SEL_CHECK();
    kwsel::tensor_mode_prologue(selMask, selMode);
    kw::require_count("Select", calCount, dstLocal, "dst");
    kw::LaneMask m;
    m.counter = true;
    m.total = calCount;
    kw::select_with_mask<T, U>("Select", dstLocal, selMask, src0Local, &src1Local, T(), selMode, m, 0, BinaryRepeatParams());
}

// ---- Select, mode 1 (tensor and scalar; `T` by value, so a float literal on half data fails to deduce) ----
namespace kwsel {
template <typename T, typename U>
inline void scalar_form(const LocalTensor<T>& dst, const LocalTensor<U>& sel, const LocalTensor<T>& src0, T s, SELMODE mode,
                        const kw::LaneMask& m, uint32_t repeats, const BinaryRepeatParams& p) {
    if (mode != SELMODE::VSEL_TENSOR_SCALAR_MODE)
        kw::rt::Diag("vec.select_mode", "Select")
            .msg("the Select overload with a scalar src1 always runs mode 1 (VSEL_TENSOR_SCALAR_MODE); the selMode argument is ignored")
            .hint("pass SELMODE::VSEL_TENSOR_SCALAR_MODE to say what happens").warn();
    kw::select_scratch("Select", &s, sizeof(T));
    kw::select_with_mask<T, U>("Select", dst, sel, src0, nullptr, s, SELMODE::VSEL_TENSOR_SCALAR_MODE, m, repeats, p);
}
}  // namespace kwsel
template <typename T, typename U, bool isSetMask = true>
inline void Select(const LocalTensor<T>& dstLocal, const LocalTensor<U>& selMask, const LocalTensor<T>& src0Local, T src1Local,
                   SELMODE selMode, uint64_t mask[], uint8_t repeatTimes, const BinaryRepeatParams& repeatParams) {
    KW_SEL_CHECK();
    kwsel::scalar_form<T, U>(dstLocal, selMask, src0Local, src1Local, selMode, kw::lanes_from_bits(mask, isSetMask, 256 / sizeof(T), "Select"),
                             repeatTimes, repeatParams);
}
template <typename T, typename U, bool isSetMask = true>
inline void Select(const LocalTensor<T>& dstLocal, const LocalTensor<U>& selMask, const LocalTensor<T>& src0Local, T src1Local,
                   SELMODE selMode, uint64_t mask, uint8_t repeatTimes, const BinaryRepeatParams& repeatParams) {
    KW_SEL_CHECK();
    kwsel::scalar_form<T, U>(dstLocal, selMask, src0Local, src1Local, selMode, kw::lanes_from_count(mask, isSetMask, 256 / sizeof(T), "Select"),
                             repeatTimes, repeatParams);
}
template <typename T, typename U>
inline void Select(const LocalTensor<T>& dstLocal, const LocalTensor<U>& selMask, const LocalTensor<T>& src0Local, T src1Local,
                   SELMODE selMode, uint32_t calCount) {
    KW_SEL_CHECK();
    kw::require_count("Select", calCount, dstLocal, "dst");
    kw::LaneMask m;
    m.counter = true;
    m.total = calCount;
    kwsel::scalar_form<T, U>(dstLocal, selMask, src0Local, src1Local, selMode, m, 0, BinaryRepeatParams());
}

// ---- Select without mask arguments: lanes from SetVectorMask, selection from SetCmpMask ----
// Mode 0: the register holds the selMask bits. Mode 2: it holds the address of selMask (the
// CPU twin stores a host pointer, the NPU a UB address; both are accepted).
template <typename T, SELMODE selMode>
inline void Select(const LocalTensor<T>& dstLocal, const LocalTensor<T>& src0Local, const LocalTensor<T>& src1Local, uint8_t repeatTimes,
                   const BinaryRepeatParams& repeatParams) {
    static_assert(SupportType<T, half, float>(), "Failed to check dtype in Select, current api support dtype combination is dst, src0Local "
                                                 "and src1Local are both: half / float.");
    static_assert(selMode != SELMODE::VSEL_TENSOR_SCALAR_MODE, "Select<T, selMode>(dst, src0, src1, repeatTimes, repeatParams) runs "
                                                              "mode 0 or mode 2; mode 1 uses Select<T, U>(dst, selMask, src0, repeatTimes, repeatParams)");
    const kw::LaneMask m = kw::lanes_from_count(0, false, 256 / sizeof(T), "Select");
    if (selMode == SELMODE::VSEL_CMPMASK_SPR) {
        const kw::CmpMaskRegister reg = kw::cmpmask_register();
        kw::select_lanes<T>("Select", dstLocal, src0Local, &src1Local, T(), m, repeatTimes, repeatParams,
                            [&](uint32_t, uint32_t j) { return kw::bit_of(reg.bytes, j); });
        return;
    }
    uint64_t raw;
    std::memcpy(&raw, kw::cmpmask_register().bytes, sizeof(raw));
    const uint8_t* base = kw::rt::arena(Hardware::UB);
    const uint64_t cap = kw::rt::arena_capacity(Hardware::UB);
    const uint64_t host = reinterpret_cast<uint64_t>(base);
    uint64_t off = raw >= host && raw < host + cap ? raw - host : (raw & 0xffffffffu);
    if (off >= cap)
        kw::rt::Diag("vec.select_address", "Select")
            .msg("the CMPMASK register does not hold a UB address for Select mode 2 (value " + std::to_string(raw) + ")")
            .hint("store selMask's address in a tensor and pass it to SetCmpMask before Select<T, SELMODE::VSEL_TENSOR_TENSOR_MODE>").fatal();
    LocalTensor<uint8_t> sel;
    sel.addr_ = uint32_t(off);
    sel.len_ = uint32_t(cap - off);
    sel.pos_ = TPosition::VECCALC;
    kw::select_with_mask<T, uint8_t>("Select", dstLocal, sel, src0Local, &src1Local, T(), SELMODE::VSEL_TENSOR_TENSOR_MODE, m, repeatTimes,
                                     repeatParams);
}
// Mode 1: the register holds the scalar (the first element of the tensor given to SetCmpMask).
template <typename T, typename U>
inline void Select(const LocalTensor<T>& dstLocal, const LocalTensor<U>& selMask, const LocalTensor<T>& src0Local, uint8_t repeatTimes,
                   const BinaryRepeatParams& repeatParams) {
    KW_SEL_CHECK();
    T s;
    std::memcpy(&s, kw::cmpmask_register().bytes, sizeof(T));
    kw::select_with_mask<T, U>("Select", dstLocal, selMask, src0Local, nullptr, s, SELMODE::VSEL_TENSOR_SCALAR_MODE,
                               kw::lanes_from_count(0, false, 256 / sizeof(T), "Select"), repeatTimes, repeatParams);
}

#undef KW_SEL_CHECK
}  // namespace AscendC
