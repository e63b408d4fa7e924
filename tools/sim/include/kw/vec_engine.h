// Element-wise engines shared by the binary, tensor-scalar and unary instruction families.
#pragma once
#include <vector>
#include "kw/vec_core.h"

namespace kw {

// ---- count form ("first n elements"): any n, operands 32-byte aligned ----
template <class D, class S, class F>
void unary_count(const char* api, const LocalTensor<D>& dst, const LocalTensor<S>& src, int64_t count, F f) {
    require_count(api, count, dst, "dst");
    require_count(api, count, src, "src");
    touch(api, src, count, false, "src");
    touch(api, dst, count, true, "dst");
    D* d = dst.ptr();
    const S* s = src.ptr();
    if (static_cast<const void*>(d) == static_cast<const void*>(s) || sizeof(D) == sizeof(S)) {
        for (int64_t i = 0; i < count; ++i) d[i] = f(s[i]);
    } else {
        std::vector<D> tmp(size_t(count > 0 ? count : 0));
        for (int64_t i = 0; i < count; ++i) tmp[size_t(i)] = f(s[i]);
        std::memcpy(d, tmp.data(), tmp.size() * sizeof(D));
    }
    rt::count_vec(api, dtype_name<D>(), repeats_for(uint64_t(count), sizeof(D) > sizeof(S) ? sizeof(D) : sizeof(S)), uint64_t(count));
}

template <class T, bool ReadsDst, class F>
void binary_count(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& a, const LocalTensor<T>& b, int64_t count, F f) {
    require_count(api, count, dst, "dst");
    require_count(api, count, a, "src0");
    require_count(api, count, b, "src1");
    touch(api, a, count, false, "src0");
    touch(api, b, count, false, "src1");
    if (ReadsDst) touch(api, dst, count, false, "dst");
    touch(api, dst, count, true, "dst");
    T* d = dst.ptr();
    const T* x = a.ptr();
    const T* y = b.ptr();
    for (int64_t i = 0; i < count; ++i) d[i] = narrow<T>(f(acc_t<T>(x[i]), acc_t<T>(y[i]), acc_t<T>(d[i])));
    rt::count_vec(api, dtype_name<T>(), repeats_for(uint64_t(count), sizeof(T)), uint64_t(count));
}

// ---- mask/repeat forms: each repeat reads its lanes, then writes its results, repeat after repeat
// (cann-ops kernels accumulate across repeats with dstRepStride = src1RepStride = 0) ----
// Results of one repeat are held back until the next repeat starts, so every repeat reads what the
// previous ones wrote and none reads its own results (the device's order).
template <class T> struct RepeatWriter {
    T* d;
    uint64_t done = 0;
    uint32_t cur = 0;
    std::vector<std::pair<uint64_t, T>> out;
    // Call before computing a lane of `repeat`, so that lane reads the earlier repeats' results.
    void enter(uint32_t repeat) {
        if (repeat != cur) flush(), cur = repeat;
    }
    void put(uint64_t index, T v) { out.emplace_back(index, v); }
    void flush() {
        for (auto& kv : out) d[kv.first] = kv.second;
        done += out.size();
        out.clear();
    }
};

template <int N> inline void touch_spans(const char* api, const AscendC::Hardware (&hw)[N], const uint32_t (&addr)[N],
                                         const OperandLayout (&ops)[N], const uint64_t (&lo)[N], const uint64_t (&hi)[N],
                                         const bool (&write)[N], const char* const (&names)[N]) {
    for (int pass = 0; pass < 2; ++pass)  // reads before writes
        for (int o = 0; o < N; ++o) {
            if (write[o] != (pass == 1) || lo[o] > hi[o]) continue;
            rt::access_local(Pipe::V, hw[o], addr[o] + uint32_t(lo[o] * ops[o].esize), (hi[o] - lo[o] + 1) * ops[o].esize, write[o], api,
                             names[o]);
        }
}

template <class D, class S, class F>
void unary_masked(const char* api, const LocalTensor<D>& dst, const LocalTensor<S>& src, const LaneMask& m, uint32_t repeats,
                  uint32_t dstBlk, uint32_t srcBlk, uint32_t dstRep, uint32_t srcRep, F f) {
    require_aligned(dst, api, "dst");
    require_aligned(src, api, "src");
    constexpr uint32_t wide = sizeof(D) > sizeof(S) ? sizeof(D) : sizeof(S);
    const OperandLayout ops[2] = {{uint32_t(sizeof(D)), dstBlk, dstRep}, {uint32_t(sizeof(S)), srcBlk, srcRep}};
    const uint64_t sizes[2] = {dst.GetSize(), src.GetSize()};
    const char* const names[2] = {"dst", "src"};
    uint64_t lo[2], hi[2];
    const S* s = src.ptr();
    RepeatWriter<D> w{dst.ptr()};
    for_each_lane<2>(api, m, repeats, 256 / wide, ops, sizes, names, lo, hi, [&](const uint64_t* idx, uint32_t r, uint32_t) {
        w.enter(r);
        w.put(idx[0], f(s[idx[1]]));
    });
    w.flush();
    const AscendC::Hardware hw[2] = {dst.hw(), src.hw()};
    const uint32_t addr[2] = {dst.addr_, src.addr_};
    const bool write[2] = {true, false};
    touch_spans<2>(api, hw, addr, ops, lo, hi, write, names);
    rt::count_vec(api, dtype_name<D>(), m.counter ? (m.total * wide + 255) / 256 : repeats, w.done,
                  rt::vec_strides(dstBlk, srcBlk, 0, dstRep, srcRep, 0));
}

template <class T, bool ReadsDst, class F>
void binary_masked(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& a, const LocalTensor<T>& b, const LaneMask& m,
                   uint32_t repeats, const AscendC::BinaryRepeatParams& p, F f) {
    require_aligned(dst, api, "dst");
    require_aligned(a, api, "src0");
    require_aligned(b, api, "src1");
    const uint32_t e = sizeof(T);
    const OperandLayout ops[3] = {{e, p.dstBlkStride, p.dstRepStride}, {e, p.src0BlkStride, p.src0RepStride}, {e, p.src1BlkStride, p.src1RepStride}};
    const uint64_t sizes[3] = {dst.GetSize(), a.GetSize(), b.GetSize()};
    const char* const names[3] = {"dst", "src0", "src1"};
    uint64_t lo[3], hi[3];
    const T* x = a.ptr();
    const T* y = b.ptr();
    const T* d = dst.ptr();
    RepeatWriter<T> w{dst.ptr()};
    for_each_lane<3>(api, m, repeats, 256 / e, ops, sizes, names, lo, hi, [&](const uint64_t* idx, uint32_t r, uint32_t) {
        w.enter(r);
        w.put(idx[0], narrow<T>(f(acc_t<T>(x[idx[1]]), acc_t<T>(y[idx[2]]), acc_t<T>(d[idx[0]]))));
    });
    w.flush();
    const AscendC::Hardware hw[3] = {dst.hw(), a.hw(), b.hw()};
    const uint32_t addr[3] = {dst.addr_, a.addr_, b.addr_};
    const bool write[3] = {true, false, false};
    if (ReadsDst) {
        const bool rd[1] = {false};
        const AscendC::Hardware h1[1] = {dst.hw()};
        const uint32_t a1[1] = {dst.addr_};
        const OperandLayout o1[1] = {ops[0]};
        const uint64_t l1[1] = {lo[0]}, u1[1] = {hi[0]};
        const char* const n1[1] = {"dst"};
        touch_spans<1>(api, h1, a1, o1, l1, u1, rd, n1);
    }
    touch_spans<3>(api, hw, addr, ops, lo, hi, write, names);
    rt::count_vec(api, dtype_name<T>(), m.counter ? (m.total * e + 255) / 256 : repeats, w.done,
                  rt::vec_strides(p.dstBlkStride, p.src0BlkStride, p.src1BlkStride, p.dstRepStride, p.src0RepStride, p.src1RepStride));
}

}  // namespace kw

// ---- declaration helpers (CANN 8.x overload sets) ----
#define KW_DTYPE_CHECK(API, LIST, ...)                                                                                 \
    static_assert(::AscendC::SupportType<T, __VA_ARGS__>(), "Failed to check dtype in " #API                           \
                                                            ", current api support dtype combination is src and dst both: " LIST ".")

// Binary: dst = f(src0, src1[, dst]).
#define KW_BINARY_OP(API, READS_DST, EXPR, LIST, ...)                                                                  \
    template <typename T, bool isSetMask = true>                                                                        \
    inline void API(const LocalTensor<T>& dstLocal, const LocalTensor<T>& src0Local, const LocalTensor<T>& src1Local,   \
                    uint64_t mask[], const uint8_t repeatTimes, const BinaryRepeatParams& repeatParams) {               \
        KW_DTYPE_CHECK(API, LIST, __VA_ARGS__);                                                                         \
        kw::binary_masked<T, READS_DST>(#API, dstLocal, src0Local, src1Local,                                           \
                                        kw::lanes_from_bits(mask, isSetMask, 256 / sizeof(T), #API), repeatTimes,       \
                                        repeatParams, [](auto a, auto b, auto d) { (void)d; return EXPR; });           \
    }                                                                                                                   \
    template <typename T, bool isSetMask = true>                                                                        \
    inline void API(const LocalTensor<T>& dstLocal, const LocalTensor<T>& src0Local, const LocalTensor<T>& src1Local,   \
                    uint64_t mask, const uint8_t repeatTimes, const BinaryRepeatParams& repeatParams) {                 \
        KW_DTYPE_CHECK(API, LIST, __VA_ARGS__);                                                                         \
        kw::binary_masked<T, READS_DST>(#API, dstLocal, src0Local, src1Local,                                           \
                                        kw::lanes_from_count(mask, isSetMask, 256 / sizeof(T), #API), repeatTimes,      \
                                        repeatParams, [](auto a, auto b, auto d) { (void)d; return EXPR; });           \
    }                                                                                                                   \
    template <typename T>                                                                                               \
    inline void API(const LocalTensor<T>& dstLocal, const LocalTensor<T>& src0Local, const LocalTensor<T>& src1Local,   \
                    const int32_t& calCount) {                                                                          \
        KW_DTYPE_CHECK(API, LIST, __VA_ARGS__);                                                                         \
        kw::binary_count<T, READS_DST>(#API, dstLocal, src0Local, src1Local, calCount,                                  \
                                       [](auto a, auto b, auto d) { (void)d; return EXPR; });                          \
    }

// Tensor-scalar: dst = f(src, scalar). `a` is the element, `s` the scalar (both widened).
#define KW_SCALAR_OP(API, EXPR, LIST, ...)                                                                             \
    template <typename T, bool isSetMask = true>                                                                        \
    inline void API(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const T& scalarValue, uint64_t mask[], \
                    const uint8_t repeatTimes, const UnaryRepeatParams& repeatParams) {                                 \
        KW_DTYPE_CHECK(API, LIST, __VA_ARGS__);                                                                         \
        const kw::acc_t<T> s = kw::acc_t<T>(scalarValue);                                                               \
        kw::unary_masked<T, T>(#API, dstLocal, srcLocal, kw::lanes_from_bits(mask, isSetMask, 256 / sizeof(T), #API),    \
                               repeatTimes, repeatParams.dstBlkStride, repeatParams.srcBlkStride,                      \
                               repeatParams.dstRepStride, repeatParams.srcRepStride,                                   \
                               [s](T x) { kw::acc_t<T> a = kw::acc_t<T>(x); return kw::narrow<T>(EXPR); });           \
    }                                                                                                                   \
    template <typename T, typename U, bool isSetMask = true,                                                            \
              typename std::enable_if<IsSameType<PrimT<T>, U>::value, bool>::type = true>                               \
    inline void API(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const U& scalarValue, uint64_t mask[], \
                    const uint8_t repeatTimes, const UnaryRepeatParams& repeatParams) {                                 \
        API<T, isSetMask>(dstLocal, srcLocal, static_cast<const T&>(scalarValue), mask, repeatTimes, repeatParams);     \
    }                                                                                                                   \
    template <typename T, bool isSetMask = true>                                                                        \
    inline void API(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const T& scalarValue, uint64_t mask,  \
                    const uint8_t repeatTimes, const UnaryRepeatParams& repeatParams) {                                 \
        KW_DTYPE_CHECK(API, LIST, __VA_ARGS__);                                                                         \
        const kw::acc_t<T> s = kw::acc_t<T>(scalarValue);                                                               \
        kw::unary_masked<T, T>(#API, dstLocal, srcLocal, kw::lanes_from_count(mask, isSetMask, 256 / sizeof(T), #API),   \
                               repeatTimes, repeatParams.dstBlkStride, repeatParams.srcBlkStride,                      \
                               repeatParams.dstRepStride, repeatParams.srcRepStride,                                   \
                               [s](T x) { kw::acc_t<T> a = kw::acc_t<T>(x); return kw::narrow<T>(EXPR); });           \
    }                                                                                                                   \
    template <typename T, typename U, bool isSetMask = true,                                                            \
              typename std::enable_if<IsSameType<PrimT<T>, U>::value, bool>::type = true>                               \
    inline void API(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const U& scalarValue, uint64_t mask,  \
                    const uint8_t repeatTimes, const UnaryRepeatParams& repeatParams) {                                 \
        API<T, isSetMask>(dstLocal, srcLocal, static_cast<const T&>(scalarValue), mask, repeatTimes, repeatParams);     \
    }                                                                                                                   \
    template <typename T, bool isSetMask = true>                                                                        \
    inline void API(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const T& scalarValue,              \
                    const int32_t& calCount) {                                                                          \
        KW_DTYPE_CHECK(API, LIST, __VA_ARGS__);                                                                         \
        const kw::acc_t<T> s = kw::acc_t<T>(scalarValue);                                                               \
        kw::unary_count<T, T>(#API, dstLocal, srcLocal, calCount,                                                       \
                              [s](T x) { kw::acc_t<T> a = kw::acc_t<T>(x); return kw::narrow<T>(EXPR); });            \
    }                                                                                                                   \
    template <typename T, typename U, bool isSetMask = true,                                                            \
              typename std::enable_if<IsSameType<PrimT<T>, U>::value, bool>::type = true>                               \
    inline void API(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const U& scalarValue,              \
                    const int32_t& calCount) {                                                                          \
        API<T, isSetMask>(dstLocal, srcLocal, static_cast<const T&>(scalarValue), calCount);                            \
    }

// Unary: dst = f(src). `a` is the widened element.
#define KW_UNARY_OP(API, EXPR, LIST, ...)                                                                              \
    template <typename T, bool isSetMask = true>                                                                        \
    inline void API(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, uint64_t mask[],                    \
                    const uint8_t repeatTimes, const UnaryRepeatParams& repeatParams) {                                 \
        KW_DTYPE_CHECK(API, LIST, __VA_ARGS__);                                                                         \
        kw::unary_masked<T, T>(#API, dstLocal, srcLocal, kw::lanes_from_bits(mask, isSetMask, 256 / sizeof(T), #API),    \
                               repeatTimes, repeatParams.dstBlkStride, repeatParams.srcBlkStride,                      \
                               repeatParams.dstRepStride, repeatParams.srcRepStride,                                   \
                               [](T x) { kw::acc_t<T> a = kw::acc_t<T>(x); return kw::narrow<T>(EXPR); });            \
    }                                                                                                                   \
    template <typename T, bool isSetMask = true>                                                                        \
    inline void API(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, uint64_t mask,                      \
                    const uint8_t repeatTimes, const UnaryRepeatParams& repeatParams) {                                 \
        KW_DTYPE_CHECK(API, LIST, __VA_ARGS__);                                                                         \
        kw::unary_masked<T, T>(#API, dstLocal, srcLocal, kw::lanes_from_count(mask, isSetMask, 256 / sizeof(T), #API),   \
                               repeatTimes, repeatParams.dstBlkStride, repeatParams.srcBlkStride,                      \
                               repeatParams.dstRepStride, repeatParams.srcRepStride,                                   \
                               [](T x) { kw::acc_t<T> a = kw::acc_t<T>(x); return kw::narrow<T>(EXPR); });            \
    }                                                                                                                   \
    template <typename T>                                                                                               \
    inline void API(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const int32_t& calCount) {          \
        KW_DTYPE_CHECK(API, LIST, __VA_ARGS__);                                                                         \
        kw::unary_count<T, T>(#API, dstLocal, srcLocal, calCount,                                                       \
                              [](T x) { kw::acc_t<T> a = kw::acc_t<T>(x); return kw::narrow<T>(EXPR); });             \
    }
