// Shared machinery of the high-level APIs: operand checks (alignment, room, the overlap rules
// of the docs), the temporary-space rules, and an element-wise engine that computes in fp32 (for
// half/bf16 data) and rounds back once, like the library's fp32 paths.
//
// Temporary space the emulation requires (a lower bound; CANN's Get<Api>MaxMinTmpSize minimum is
// never below it):
//   element-wise math and activations ......... 256 bytes (one repeat of fp32 work)
//   SoftMax family ............................ one fp32 row: srcK * 4 bytes (at least 256)
//   LayerNorm / RmsNorm ....................... one fp32 row: hLength * 4 bytes (at least 256)
//   BatchNorm ................................. one fp32 row of S*H: meanVarSize * 4 bytes (at least 256)
//   GroupNorm ................................. one fp32 group row: d * hw * 4 bytes (at least 256)
//   Sum / Mean / CumSum ....................... 256 bytes
// With a sharedTmpBuffer it must be that large, 32-byte aligned and disjoint from the other
// operands; without one, the library takes the space from the UB left above the TPipe's buffers,
// so that free space must be that large.
#pragma once
#include <cmath>
#include <vector>
#include "kernel_tiling/kernel_tiling.h"
#include "kw/vec_engine.h"

namespace kw::hl {

constexpr uint32_t kMinTmpBytes = 256;

inline uint32_t row_tmp_bytes(uint64_t elems) {
    uint64_t b = (elems * 4 + 31) / 32 * 32;
    return uint32_t(b < kMinTmpBytes ? kMinTmpBytes : b);
}

template <class A, class B> inline bool overlaps(const LocalTensor<A>& a, uint64_t abytes, const LocalTensor<B>& b, uint64_t bbytes) {
    return a.hw() == b.hw() && abytes && bbytes && a.addr_ < b.addr_ + bbytes && b.addr_ < a.addr_ + abytes;
}

// The docs forbid src/dst overlap for most element-wise APIs; the emulation computes correctly
// anyway, so this is a warning (the NPU result of an in-place call is not guaranteed).
template <class A, class B>
inline void warn_overlap(const char* api, const LocalTensor<A>& dst, const LocalTensor<B>& src, uint64_t count) {
    if (!overlaps(dst, count * sizeof(A), src, count * sizeof(B))) return;
    rt::Diag("hl.overlap", api)
        .msg(std::string(api) + " is called with dst and src overlapping; the API documents that source and destination must not "
                                "overlap, so the NPU result is not guaranteed")
        .hint("write the result to a separate buffer")
        .warn();
}

template <class A>
inline void check_tmp_disjoint(const char* api, const LocalTensor<uint8_t>& tmp, uint64_t tmp_bytes, const LocalTensor<A>& t, uint64_t bytes,
                               const char* name) {
    if (!overlaps(tmp, tmp_bytes, t, bytes)) return;
    rt::Diag("hl.tmp_overlap", api)
        .msg(std::string(api) + ": sharedTmpBuffer [" + std::to_string(tmp.addr_) + ", " + std::to_string(tmp.addr_ + tmp_bytes) +
             ") overlaps " + name + " [" + std::to_string(t.addr_) + ", " + std::to_string(t.addr_ + bytes) +
             "); the API writes intermediate values there and corrupts that operand on the NPU")
        .hint("give sharedTmpBuffer its own TBuf")
        .fatal();
}

// A given sharedTmpBuffer: aligned, large enough, written by the API (V pipe).
inline void use_tmp(const char* api, const LocalTensor<uint8_t>& tmp, uint32_t need) {
    require_aligned(tmp, api, "sharedTmpBuffer");
    if (tmp.GetSize() < need)
        rt::Diag("hl.tmp_size", api)
            .msg(std::string(api) + ": sharedTmpBuffer holds " + std::to_string(tmp.GetSize()) + " bytes, but this call needs at least " +
                 std::to_string(need) + " bytes of temporary space")
            .val("required", need).val("actual", tmp.GetSize())
            .hint("size the buffer with the host helper Get" + std::string(api) + "MaxMinTmpSize (or its tiling function) and pass it "
                  "through the tiling data")
            .fatal();
    rt::access_local(Pipe::V, tmp.hw(), tmp.addr_, need, true, api, "sharedTmpBuffer");
}

// No sharedTmpBuffer: the library pops its scratch from the UB above the TPipe's buffers.
inline void use_stack(const char* api, uint32_t need) {
    const uint32_t cap = rt::arena_capacity(AscendC::Hardware::UB), used = rt::reserved_end(AscendC::Hardware::UB);
    if (used + need > cap)
        rt::Diag("hl.stack_space", api)
            .msg(std::string(api) + " without sharedTmpBuffer takes its temporary space from the UB left after the TPipe's buffers, "
                                    "but only " + std::to_string(cap - (used < cap ? used : cap)) + " bytes are free and it needs " +
                 std::to_string(need))
            .val("required", need).val("free", (long long)(cap - (used < cap ? used : cap)))
            .hint("leave that much UB free (InitBuffer less), or pass a sharedTmpBuffer of your own")
            .fatal();
    rt::access_local(Pipe::V, AscendC::Hardware::UB, used, need, true, api, "temporary");
}

template <class T> inline void read_span(const char* api, const LocalTensor<T>& t, uint64_t count, const char* name) {
    require_count(api, int64_t(count), t, name);
    touch(api, t, count, false, name);
}
template <class T> inline void write_span(const char* api, const LocalTensor<T>& t, uint64_t count, const char* name) {
    require_count(api, int64_t(count), t, name);
    touch(api, t, count, true, name);
}

// dst[i] = f(src[i]) with f in fp32 (double inputs stay as they are), rounded to T once.
template <class D, class S, class F>
void map1(const char* api, const LocalTensor<D>& dst, const LocalTensor<S>& src, uint64_t count, F f) {
    warn_overlap(api, dst, src, count);
    read_span(api, src, count, "src");
    std::vector<D> out(count);
    for (uint64_t i = 0; i < count; ++i) out[i] = D(f(acc_t<S>(src.ptr()[i])));
    write_span(api, dst, count, "dst");
    std::memcpy(dst.ptr(), out.data(), count * sizeof(D));
    rt::count_vec(api, dtype_name<D>(), repeats_for(count, sizeof(D)), count);
}

template <class T, class F>
void map2(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& a, const LocalTensor<T>& b, uint64_t count, F f) {
    warn_overlap(api, dst, a, count);
    warn_overlap(api, dst, b, count);
    read_span(api, a, count, "src0");
    read_span(api, b, count, "src1");
    std::vector<T> out(count);
    for (uint64_t i = 0; i < count; ++i) out[i] = T(f(acc_t<T>(a.ptr()[i]), acc_t<T>(b.ptr()[i])));
    write_span(api, dst, count, "dst");
    std::memcpy(dst.ptr(), out.data(), count * sizeof(T));
    rt::count_vec(api, dtype_name<T>(), repeats_for(count, sizeof(T)), count);
}

// Temporary-space bookkeeping for one call: with a buffer (checked and touched) or from the stack.
template <class... Ops>
inline void tmp_or_stack(const char* api, const LocalTensor<uint8_t>* tmp, uint32_t need, const Ops&... ops) {
    if (!tmp) {
        use_stack(api, need);
        return;
    }
    use_tmp(api, *tmp, need);
    (check_tmp_disjoint(api, *tmp, need, ops.first, ops.second, "an operand"), ...);
}
template <class T> inline std::pair<LocalTensor<T>, uint64_t> span_of(const LocalTensor<T>& t, uint64_t count) {
    return {t, count * sizeof(T)};
}

[[noreturn]] inline void shape_error(const char* api, const std::string& what, const std::string& hint) {
    rt::Diag("hl.shape", api).msg(std::string(api) + ": " + what).hint(hint).fatal();
}

}  // namespace kw::hl
