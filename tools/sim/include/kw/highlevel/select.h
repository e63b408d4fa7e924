// SelectWithBytesMask (CANN 8.x lib/select; later releases name the same overloads Select): one source
// a tensor of [firstAxis, srcLastAxis], the other a scalar; a byte (or wider) mask of [firstAxis,
// maskLastAxis] picks per element: mask 0 -> src0, otherwise src1. The mask's extra columns take no part;
// with isReuseMask and maskLastAxis != srcLastAxis the library compacts the mask rows in place (GatherMask
// into its first firstAxis * srcLastAxis elements), so the mask is modified as on the NPU.
// Layout rules of the API reference: src rows 32-byte aligned, mask rows 32-byte aligned and a multiple
// of 16 elements, maskLastAxis >= srcLastAxis. The reference gives no formula for the temporary space
// (GetSelectWithBytesMaskMaxMinTmpSize), so only its alignment and disjointness are checked.
#pragma once
#include "kw/highlevel/common.h"

namespace AscendC {
struct SelectWithBytesMaskShapeInfo {
    SelectWithBytesMaskShapeInfo() {}
    uint32_t firstAxis = 0;
    uint32_t srcLastAxis = 0;
    uint32_t maskLastAxis = 0;
};
}  // namespace AscendC

namespace kw::hl {
template <class T, class U, bool isReuseMask>
void select_bytes_mask(const LocalTensor<T>& dst, const LocalTensor<T>* tensor, T scalar, bool tensor_is_src0, const LocalTensor<U>& mask,
                       const LocalTensor<uint8_t>& tmp, const AscendC::SelectWithBytesMaskShapeInfo& info) {
    const char* api = "SelectWithBytesMask";
    static_assert(AscendC::SupportType<T, half, float>(), "Failed to check dtype in SelectWithBytesMask, current api support dtype "
                                                           "combination is src and dst both: half / float");
    static_assert(AscendC::SupportType<U, bool, int8_t, uint8_t, int16_t, uint16_t, int32_t, uint32_t>(),
                  "Failed to check dtype in SelectWithBytesMask, current api support mask dtype: bool / int8_t / uint8_t / "
                  "int16_t / uint16_t / int32_t / uint32_t");
    const uint64_t m = info.firstAxis, k1 = info.srcLastAxis, k2 = info.maskLastAxis;
    if (k2 < k1)
        shape_error(api, "maskLastAxis " + std::to_string(k2) + " is smaller than srcLastAxis " + std::to_string(k1),
                    "the mask's rows must cover the source's (the extra mask columns are dropped)");
    if (k1 * sizeof(T) % 32 || k2 * sizeof(U) % 32 || k2 % 16)
        shape_error(api, "srcLastAxis " + std::to_string(k1) + " x " + std::to_string(sizeof(T)) + " bytes and maskLastAxis " +
                             std::to_string(k2) + " x " + std::to_string(sizeof(U)) + " bytes: source rows must be 32-byte aligned, "
                             "mask rows 32-byte aligned and a multiple of 16 elements",
                    "pad the last axes (the API reference's alignment rules for SelectWithBytesMask)");
    require_aligned(tmp, api, "sharedTmpBuffer");
    check_tmp_disjoint(api, tmp, tmp.GetSize(), *tensor, m * k1 * sizeof(T), "the source tensor");
    read_span(api, *tensor, m * k1, tensor_is_src0 ? "src0" : "src1");
    read_span(api, mask, m * k2, "mask");
    std::vector<T> out(m * k1);
    std::vector<uint8_t> kept(m * k1 * sizeof(U));  // raw bytes: U may be bool
    for (uint64_t r = 0; r < m; ++r)
        for (uint64_t c = 0; c < k1; ++c) {
            const U sel = mask.ptr()[r * k2 + c];
            const bool pick_src1 = sel != U(0);
            const T t = tensor->ptr()[r * k1 + c];
            out[r * k1 + c] = tensor_is_src0 ? (pick_src1 ? scalar : t) : (pick_src1 ? t : scalar);
            std::memcpy(kept.data() + (r * k1 + c) * sizeof(U), &sel, sizeof(U));
        }
    if (isReuseMask && k2 != k1) {   // GatherMask compacts the mask rows in place
        write_span(api, mask, m * k1, "mask");
        std::memcpy(mask.ptr(), kept.data(), kept.size());
    }
    if (tmp.GetSize()) rt::access_local(Pipe::V, tmp.hw(), tmp.addr_, tmp.GetSize(), true, api, "sharedTmpBuffer");
    write_span(api, dst, m * k1, "dst");
    std::memcpy(dst.ptr(), out.data(), out.size() * sizeof(T));
    rt::count_vec(api, dtype_name<T>(), repeats_for(m * k1, sizeof(T)), m * k1);
}
}  // namespace kw::hl

namespace AscendC {
template <typename T, typename U, bool isReuseMask = true>
inline void SelectWithBytesMask(const LocalTensor<T>& dst, const LocalTensor<T>& src0, T src1, const LocalTensor<U>& mask,
                                const LocalTensor<uint8_t>& sharedTmpBuffer, const SelectWithBytesMaskShapeInfo& info) {
    kw::hl::select_bytes_mask<T, U, isReuseMask>(dst, &src0, src1, true, mask, sharedTmpBuffer, info);
}
template <typename T, typename U, bool isReuseMask = true>
inline void SelectWithBytesMask(const LocalTensor<T>& dst, T src0, const LocalTensor<T>& src1, const LocalTensor<U>& mask,
                                const LocalTensor<uint8_t>& sharedTmpBuffer, const SelectWithBytesMaskShapeInfo& info) {
    kw::hl::select_bytes_mask<T, U, isReuseMask>(dst, &src1, src0, false, mask, sharedTmpBuffer, info);
}
template <typename T, typename U, bool isReuseMask = true>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<T>& src0, T src1, const LocalTensor<U>& mask,
                   const LocalTensor<uint8_t>& sharedTmpBuffer, const SelectWithBytesMaskShapeInfo& info) {
    kw::hl::select_bytes_mask<T, U, isReuseMask>(dst, &src0, src1, true, mask, sharedTmpBuffer, info);
}
template <typename T, typename U, bool isReuseMask = true>
inline void Select(const LocalTensor<T>& dst, T src0, const LocalTensor<T>& src1, const LocalTensor<U>& mask,
                   const LocalTensor<uint8_t>& sharedTmpBuffer, const SelectWithBytesMaskShapeInfo& info) {
    kw::hl::select_bytes_mask<T, U, isReuseMask>(dst, &src1, src0, false, mask, sharedTmpBuffer, info);
}
}  // namespace AscendC
