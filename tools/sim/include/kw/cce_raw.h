// bisheng's raw vector builtins that kernels sometimes call directly on `__ubuf__` pointers taken
// from LocalTensor::GetPhyAddr() (cann-ops norm kernels sum rows with `vcadd(..., true)` and read
// the ACC register with GetAccVal()). Each one turns the pointers back into UB tensors and reuses
// the checked instruction bodies, so bounds, hazards and the mask register behave as for the
// AscendC APIs.
#pragma once
#include "kw/data_copy.h"
#include "kw/vec_reduce.h"

namespace kw {
// The UB tensor that starts at a raw pointer (up to the end of UB).
template <class T> inline AscendC::LocalTensor<T> ub_view(const T* p, const char* api, const char* operand) {
    using AscendC::Hardware;
    const uint8_t* base = rt::arena(Hardware::UB);
    const uint64_t cap = rt::arena_capacity(Hardware::UB);
    const uint8_t* b = reinterpret_cast<const uint8_t*>(p);
    if (p == nullptr || b < base || uint64_t(b - base) >= cap)
        rt::Diag("cce.address", api)
            .msg(std::string(api) + " got a " + operand + " pointer that is not inside UB" + (p == nullptr ? " (nullptr)" : ""))
            .val("operand", operand)
            .hint("pass (__ubuf__ T*)tensor.GetPhyAddr() of a VECIN/VECOUT/VECCALC LocalTensor")
            .fatal();
    AscendC::LocalTensor<T> t;
    t.addr_ = uint32_t(b - base);
    t.len_ = uint32_t(cap - t.addr_);
    t.pos_ = AscendC::TPosition::VECCALC;
    return t;
}
}  // namespace kw

// vcadd(dst, src, repeat, dstRepStride, srcBlkStride, srcRepStride, mode): the sum of each
// repeat's masked lanes (the mask register decides the lanes, as after SetMask/SetVectorMask).
// mode false: repeat r's sum goes to dst[r * dstRepStride]. mode true: the repeat sums are added
// in order into the ACC register (read with GetAccVal / get_acc_val) and dst is not written.
template <typename T>
inline void vcadd(T* dst, T* src, uint8_t repeat, uint16_t dstRepStride, uint16_t srcBlkStride, uint16_t srcRepStride, bool mode) {
    static_assert(AscendC::SupportType<T, half, float>(), "vcadd takes half / float operands");
    const char* api = "vcadd";
    AscendC::LocalTensor<T> s = kw::ub_view<T>(src, api, "src");
    const uint32_t lanes = 256 / sizeof(T);
    kw::LaneGrid<T> g = kw::read_lanes(api, s, kw::lanes_from_count(0, false, lanes, api), repeat, srcBlkStride, srcRepStride);
    if (mode) {
        T acc = T(0);
        for (uint32_t r = 0; r < g.reps; ++r) acc = r == 0 ? kw::repeat_sum(g, r) : kw::add_rounded(acc, kw::repeat_sum(g, r));
        kw::reduce_registers().acc_bits = kw::bits_of(acc);
    } else {
        std::vector<std::pair<uint64_t, T>> out;
        for (uint32_t r = 0; r < g.reps; ++r) out.emplace_back(uint64_t(r) * dstRepStride, kw::repeat_sum(g, r));
        kw::write_results<T, T>(api, kw::ub_view<T>(dst, api, "dst"), out, sizeof(T));
    }
    kw::rt::count_vec(api, kw::dtype_name<T>(), g.reps, uint64_t(g.reps) * g.lanes);
}
template <typename T>
inline void vcadd(std::nullptr_t, T* src, uint8_t repeat, uint16_t dstRepStride, uint16_t srcBlkStride, uint16_t srcRepStride, bool mode) {
    if (!mode)
        kw::rt::Diag("cce.address", "vcadd")
            .msg("vcadd without a dst writes its per-repeat sums nowhere (mode false needs a dst)")
            .hint("pass mode true to accumulate into the ACC register, or a dst pointer").fatal();
    vcadd<T>(static_cast<T*>(nullptr), src, repeat, dstRepStride, srcBlkStride, srcRepStride, true);
}

// The ACC special register: the last accumulated sum's bits (a float in the low 32 bits).
inline int64_t get_acc_val() {
    kw::rt::count_scalar("get_acc_val");
    return int64_t(kw::reduce_registers().acc_bits);
}

namespace AscendC {
// Duplicate's implementation functions on __ubuf__ pointers, which cann-ops kernels call directly.
template <typename T> inline void DuplicateImpl(T* dstLocal, const T& scalarValue, const int32_t& count) {
    LocalTensor<T> d = kw::ub_view<T>(dstLocal, "DuplicateImpl", "dst");
    Duplicate(d, scalarValue, count);
}
template <typename T, bool isSetMask = true>
inline void DuplicateImpl(T* dstLocal, const T& scalarValue, uint64_t mask, const uint8_t repeatTime, const uint16_t dstBlockStride,
                          const uint8_t dstRepeatStride) {
    LocalTensor<T> d = kw::ub_view<T>(dstLocal, "DuplicateImpl", "dst");
    Duplicate<T, isSetMask>(d, scalarValue, mask, repeatTime, dstBlockStride, dstRepeatStride);
}
template <typename T, bool isSetMask = true>
inline void DuplicateImpl(T* dstLocal, const T& scalarValue, uint64_t mask[], const uint8_t repeatTime, const uint16_t dstBlockStride,
                          const uint8_t dstRepeatStride) {
    LocalTensor<T> d = kw::ub_view<T>(dstLocal, "DuplicateImpl", "dst");
    Duplicate<T, isSetMask>(d, scalarValue, mask, repeatTime, dstBlockStride, dstRepeatStride);
}

// DataCopy's implementation functions between a __gm__ and a __ubuf__ pointer (cann-ops GeGluV2 zeroes
// its output with DataCopyUB2GMImpl): the pointers become tensors and the checked DataCopy runs.
template <typename T> inline void DataCopyUB2GMImpl(T* dst, T* src, const DataCopyParams& intriParams) {
    GlobalTensor<T> g;
    g.SetGlobalBuffer(dst);
    DataCopy(g, kw::ub_view<T>(src, "DataCopyUB2GMImpl", "src"), intriParams);
}
template <typename T> inline void DataCopyGM2UBImpl(T* dst, T* src, const DataCopyParams& intriParams) {
    GlobalTensor<T> g;
    g.SetGlobalBuffer(src);
    DataCopy(kw::ub_view<T>(dst, "DataCopyGM2UBImpl", "dst"), g, intriParams);
}

// CANN 8.x keeps this untyped form next to GetAccVal<T>() (deprecated for GetReduceRepeatSumSpr).
inline int64_t GetAccVal() { return ::get_acc_val(); }
inline int64_t GetReduceRepeatSumSpr() { return ::get_acc_val(); }
}  // namespace AscendC

// The mask register builtins behind SetMaskCount/SetMaskNorm/SetVectorMask.
inline void set_mask_count() { AscendC::SetMaskCount(); }
inline void set_mask_norm() { AscendC::SetMaskNorm(); }
inline void set_vector_mask(uint64_t maskHigh, uint64_t maskLow) {
    kw::mask_register().hi = maskHigh;
    kw::mask_register().lo = maskLow;
}
