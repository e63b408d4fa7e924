// SoftmaxGrad and SoftmaxGradFront (CANN 8.x lib/activation/softmaxgrad.h), ND format, [m, k] rows as
// for SoftMax: sum = rowsum(grad * x) in fp32; SoftmaxGrad writes grad * x - sum * x (isFront = false)
// or the row sums (isFront = true, one 32-byte block per row, broadcast, as SoftMax's sum tensor);
// SoftmaxGradFront writes the row sums.
#pragma once
#include "kw/highlevel/softmax.h"

namespace kw::hl {
template <class T>
void softmax_grad(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& grad, const LocalTensor<T>& src,
                  const LocalTensor<uint8_t>* tmp, const SoftMaxTiling& tiling, bool front, const AscendC::SoftMaxShapeInfo& info,
                  bool basic_block, bool nz) {
    static_assert(AscendC::SupportType<T, half, float>(),
                  "Failed to check dtype in SoftmaxGrad, current api support dtype combination is src and dst both: half / float.");
    const RowShape s = softmax_shape<T>(api, tiling, info, basic_block, nz);
    const uint64_t n = uint64_t(s.m) * s.k, per_row = 32 / sizeof(T);
    const uint64_t out_n = front ? uint64_t(s.m) * per_row : n;
    tmp_or_stack(api, tmp, row_tmp_bytes(s.k), span_of(src, n), span_of(grad, n), span_of(dst, out_n));
    read_span(api, grad, n, "gradTensor");
    read_span(api, src, n, "srcTensor");
    std::vector<T> out(out_n, T(0));
    for (uint32_t r = 0; r < s.m; ++r) {
        const T* g = grad.ptr() + uint64_t(r) * s.k;
        const T* x = src.ptr() + uint64_t(r) * s.k;
        float sum = 0.0f;
        for (uint32_t j = 0; j < s.valid_k; ++j) sum += float(g[j]) * float(x[j]);
        if (front) {
            for (uint64_t j = 0; j < per_row; ++j) out[r * per_row + j] = T(sum);
            continue;
        }
        for (uint32_t j = 0; j < s.valid_k; ++j) out[uint64_t(r) * s.k + j] = T(float(g[j]) * float(x[j]) - sum * float(x[j]));
    }
    write_span(api, dst, out_n, "dstTensor");
    std::memcpy(dst.ptr(), out.data(), out_n * sizeof(T));
    rt::count_vec(api, dtype_name<T>(), repeats_for(n, sizeof(T)) * 3, n);
}
}  // namespace kw::hl

namespace AscendC {
template <typename T, bool isReuseSource = false, bool isDataFormatNZ = false>
inline void SoftmaxGrad(const LocalTensor<T>& dstTensor, const LocalTensor<T>& gradTensor, const LocalTensor<T>& srcTensor,
                        const SoftMaxTiling& tiling, bool isFront = false, const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
    kw::hl::softmax_grad<T>("SoftmaxGrad", dstTensor, gradTensor, srcTensor, nullptr, tiling, isFront, softmaxShapeInfo, false,
                            isDataFormatNZ);
}
template <typename T, bool isReuseSource = false, bool isDataFormatNZ = false>
inline void SoftmaxGrad(const LocalTensor<T>& dstTensor, const LocalTensor<T>& gradTensor, const LocalTensor<T>& srcTensor,
                        const LocalTensor<uint8_t>& sharedTmpBuffer, const SoftMaxTiling& tiling, bool isFront = false,
                        const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
    kw::hl::softmax_grad<T>("SoftmaxGrad", dstTensor, gradTensor, srcTensor, &sharedTmpBuffer, tiling, isFront, softmaxShapeInfo,
                            false, isDataFormatNZ);
}
template <typename T, bool isBasicBlock = false, bool isDataFormatNZ = false>
inline void SoftmaxGradFront(const LocalTensor<T>& dstTensor, const LocalTensor<T>& gradTensor, const LocalTensor<T>& srcTensor,
                             const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
    kw::hl::softmax_grad<T>("SoftmaxGradFront", dstTensor, gradTensor, srcTensor, nullptr, tiling, true, softmaxShapeInfo,
                            isBasicBlock, isDataFormatNZ);
}
template <typename T, bool isBasicBlock = false, bool isDataFormatNZ = false>
inline void SoftmaxGradFront(const LocalTensor<T>& dstTensor, const LocalTensor<T>& gradTensor, const LocalTensor<T>& srcTensor,
                             const LocalTensor<uint8_t>& sharedTmpBuffer, const SoftMaxTiling& tiling,
                             const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
    kw::hl::softmax_grad<T>("SoftmaxGradFront", dstTensor, gradTensor, srcTensor, &sharedTmpBuffer, tiling, true, softmaxShapeInfo,
                            isBasicBlock, isDataFormatNZ);
}
}  // namespace AscendC
