// BroadCast / Broadcast (CANN 8.x lib/pad/broadcast.h): dim 1 ([1] -> [k]) or dim 2 with axis 0
// ([1, k] -> [m, k]) or axis 1 ([m, 1] -> [m, k]); the result is dense row-major. The source is read
// before anything is written, so dst may start where src does (kernels broadcast a row in place).
#pragma once
#include "kw/highlevel/common.h"

namespace kw::hl {
template <class T, int32_t dim, int32_t axis>
void broadcast(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t* dstShape, const uint32_t* srcShape,
               const LocalTensor<uint8_t>* tmp) {
    const char* api = "BroadCast";
    static_assert(dim == 1 || dim == 2, "BroadCast supports dim = 1 or dim = 2");
    static_assert(axis == 0 || axis == 1, "BroadCast supports axis = 0 or axis = 1");
    static_assert(AscendC::SupportType<T, half, float, int8_t, uint8_t>(), "Failed to check dtype in BroadCast, current api support "
                                                                           "dtype combination is half / float / int8_t / uint8_t");
    const uint64_t m = dim == 2 ? dstShape[0] : 1, k = dim == 2 ? dstShape[1] : dstShape[0];
    const uint64_t sm = dim == 2 ? srcShape[0] : 1, sk = dim == 2 ? srcShape[1] : srcShape[0];
    const bool ok = dim == 1 ? (sk == 1 || sk == k) : axis == 0 ? (sm == 1 && sk == k) : (sk == 1 && sm == m);
    if (!ok || m == 0 || k == 0)
        shape_error(api, "srcShape [" + std::to_string(sm) + ", " + std::to_string(sk) + "] cannot be broadcast to dstShape [" +
                             std::to_string(m) + ", " + std::to_string(k) + "] along axis " + std::to_string(axis),
                    "srcShape must equal dstShape except for a 1 on the broadcast axis");
    const uint64_t in = sm * sk, out = m * k;
    tmp_or_stack(api, tmp, 0, span_of(src, in), span_of(dst, out));
    read_span(api, src, in, "srcLocal");
    std::vector<T> s(src.ptr(), src.ptr() + in), o(out);
    for (uint64_t r = 0; r < m; ++r)
        for (uint64_t c = 0; c < k; ++c) o[r * k + c] = s[(sm == 1 ? 0 : r) * sk + (sk == 1 ? 0 : c)];
    write_span(api, dst, out, "dstLocal");
    std::memcpy(dst.ptr(), o.data(), out * sizeof(T));
    rt::count_vec(api, dtype_name<T>(), repeats_for(out, sizeof(T)), out);
}
}  // namespace kw::hl

namespace AscendC {
template <typename T, int32_t dim, int32_t axis, bool isReuseSource = false>
inline void BroadCast(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const uint32_t dstShape[dim], const uint32_t srcShape[dim],
                      LocalTensor<uint8_t>& sharedTmpBuffer) {
    kw::hl::broadcast<T, dim, axis>(dstLocal, srcLocal, dstShape, srcShape, &sharedTmpBuffer);
}
template <typename T, int32_t dim, int32_t axis, bool isReuseSource = false>
inline void BroadCast(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const uint32_t dstShape[dim], const uint32_t srcShape[dim]) {
    kw::hl::broadcast<T, dim, axis>(dstLocal, srcLocal, dstShape, srcShape, nullptr);
}
// the spelling of later CANN 8.x releases
template <typename T, int32_t dim, int32_t axis, bool isReuseSource = false>
inline void Broadcast(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const uint32_t dstShape[dim], const uint32_t srcShape[dim],
                      LocalTensor<uint8_t>& sharedTmpBuffer) {
    kw::hl::broadcast<T, dim, axis>(dstLocal, srcLocal, dstShape, srcShape, &sharedTmpBuffer);
}
template <typename T, int32_t dim, int32_t axis, bool isReuseSource = false>
inline void Broadcast(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const uint32_t dstShape[dim], const uint32_t srcShape[dim]) {
    kw::hl::broadcast<T, dim, axis>(dstLocal, srcLocal, dstShape, srcShape, nullptr);
}
}  // namespace AscendC
