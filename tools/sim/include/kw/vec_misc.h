// Data-rearranging vector instructions: Brcb, CreateVecIndex, Gather, GatherMask, Transpose
// and the vector-pipe UB->UB Copy, with their A2/A3 dtype tables and layout rules.
#pragma once
#include "kw/vec_operands.h"
#include "kw/vec_sort.h"

namespace AscendC {
struct BrcbRepeatParams {
    BrcbRepeatParams() {}
    BrcbRepeatParams(const uint16_t dstBlkStrideIn, const uint16_t dstRepStrideIn) : dstRepStride(dstRepStrideIn), dstBlkStride(dstBlkStrideIn) {}
    uint32_t blockNumber = DEFAULT_BLK_NUM;
    uint16_t dstRepStride = DEFAULT_REPEAT_STRIDE;
    uint16_t dstBlkStride = DEFAULT_BLK_STRIDE;
    uint8_t src0BlkStride = DEFAULT_BLK_STRIDE;
    uint8_t src1BlkStride = DEFAULT_BLK_STRIDE;
    uint8_t src0RepStride = DEFAULT_REPEAT_STRIDE;
    uint8_t src1RepStride = DEFAULT_REPEAT_STRIDE;
    bool repeatStrideMode = false;
    bool strideSizeMode = false;
};

enum class GatherMaskMode : uint8_t { VERSION_V1 = 0, VERSION_V2 = 1 };
const GatherMaskMode defaultGatherMaskMode = GatherMaskMode::VERSION_V2;  // the 220 default
const GatherMaskMode defaultGahterMaskMode = GatherMaskMode::VERSION_V2;  // (sic) the old spelling is public too

struct GatherMaskParams {
    GatherMaskParams() {}
    GatherMaskParams(const uint8_t src0BlockStrideIn, const uint16_t repeatTimesIn, const uint16_t src0RepeatStrideIn,
                     const uint8_t src1RepeatStrideIn)
        : src0BlockStride(src0BlockStrideIn), repeatTimes(repeatTimesIn), src0RepeatStride(src0RepeatStrideIn),
          src1RepeatStride(src1RepeatStrideIn) {}
    uint8_t src0BlockStride = DEFAULT_BLK_STRIDE;
    uint16_t repeatTimes = 0;
    uint16_t src0RepeatStride = DEFAULT_REPEAT_STRIDE;
    uint8_t src1RepeatStride = DEFAULT_REPEAT_STRIDE;
};

enum class TransposeType : uint8_t {
    TRANSPOSE_TYPE_NONE, TRANSPOSE_NZ2ND_0213, TRANSPOSE_NZ2NZ_0213, TRANSPOSE_NZ2NZ_012_WITH_N, TRANSPOSE_NZ2ND_012_WITH_N,
    TRANSPOSE_NZ2ND_012_WITHOUT_N, TRANSPOSE_NZ2NZ_012_WITHOUT_N, TRANSPOSE_ND2ND_ONLY, TRANSPOSE_ND_UB_GM, TRANSPOSE_GRAD_ND_UB_GM,
    TRANSPOSE_ND2ND_B16, TRANSPOSE_NCHW2NHWC, TRANSPOSE_NHWC2NCHW
};
struct TransposeParamsExt {
    TransposeParamsExt() {}
    TransposeParamsExt(const uint16_t nSizeIn, const uint16_t cSizeIn, const uint16_t hSizeIn, const uint16_t wSizeIn,
                       const TransposeType transposeTypeIn)
        : nSize(nSizeIn), cSize(cSizeIn), hSize(hSizeIn), wSize(wSizeIn), transposeType(transposeTypeIn) {}
    uint16_t nSize = 0, cSize = 0, hSize = 0, wSize = 0;
    TransposeType transposeType = TransposeType::TRANSPOSE_ND2ND_B16;
};
}  // namespace AscendC

namespace kw {
inline uint64_t& gather_mask_remain() {
    static uint64_t n = 0;
    return n;
}

template <class A, class B> inline void require_disjoint(const char* api, const LocalTensor<A>& a, uint64_t abytes, const char* an,
                                                         const LocalTensor<B>& b, uint64_t bbytes, const char* bn) {
    if (a.hw() != b.hw() || a.addr_ >= b.addr_ + bbytes || b.addr_ >= a.addr_ + abytes) return;
    rt::Diag("vec.overlap", api)
        .msg(std::string(api) + " does not support " + an + " and " + bn + " overlapping: " + an + " covers [" + std::to_string(a.addr_) +
             ", " + std::to_string(a.addr_ + abytes) + ") and " + bn + " covers [" + std::to_string(b.addr_) + ", " +
             std::to_string(b.addr_ + bbytes) + ") of " + rt::hardware_name(a.hw()))
        .hint("give the result its own buffer")
        .fatal();
}

// Built-in GatherMask patterns 1..7: even lanes, odd lanes, one lane of every four, all lanes.
inline bool gather_pattern_bit(uint8_t pattern, uint64_t k) {
    switch (pattern) {
        case 1: return k % 2 == 0;
        case 2: return k % 2 == 1;
        case 3: case 4: case 5: case 6: return k % 4 == uint64_t(pattern - 3);
        default: return true;
    }
}

// GatherMask: keeps the elements whose pattern bit is 1, packed at the start of dst. Normal
// mode: each repeat covers 256 bytes; counter mode (A2/A3): each repeat covers `mask` elements.
// The tensor pattern is consumed bit by bit inside a repeat and advances src1RepeatStride
// blocks between repeats.
template <class T, class BitFn>
uint64_t gather_mask(const LocalTensor<T>& dst, const LocalTensor<T>& src, bool counter, uint32_t mask, const AscendC::GatherMaskParams& p,
                     BitFn bit) {
    const char* api = "GatherMask";
    require_aligned(dst, api, "dst");
    require_aligned(src, api, "src0");
    const uint32_t per_blk = 32 / sizeof(T);
    const uint64_t per_rep = counter ? mask : 256 / sizeof(T);
    std::vector<T> kept;
    uint64_t lo = ~0ull, hi = 0;
    const T* s = src.ptr();
    for (uint32_t r = 0; r < p.repeatTimes; ++r)
        for (uint64_t k = 0; k < per_rep; ++k) {
            if (!bit(r, k)) continue;
            uint64_t i = (uint64_t(r) * p.src0RepeatStride + (k / per_blk) * p.src0BlockStride) * per_blk + k % per_blk;
            if (i >= src.GetSize()) repeat_out_of_bounds(api, "src0", i, src.GetSize());
            lo = i < lo ? i : lo, hi = i > hi ? i : hi;
            kept.push_back(s[i]);
        }
    if (!kept.empty()) rt::access_local(Pipe::V, src.hw(), src.addr_ + uint32_t(lo * sizeof(T)), (hi - lo + 1) * sizeof(T), false, api, "src0");
    require_room(dst, kept.size() * sizeof(T), api, "dst");
    rt::access_local(Pipe::V, dst.hw(), dst.addr_, kept.size() * sizeof(T), true, api, "dst");
    std::memcpy(dst.ptr(), kept.data(), kept.size() * sizeof(T));
    gather_mask_remain() = kept.size();
    rt::count_vec(api, dtype_name<T>(), p.repeatTimes, uint64_t(p.repeatTimes) * per_rep);
    return kept.size();
}

template <class T> inline void check_gather_offset(const char* api, uint64_t byte, uint64_t src_bytes) {
    if (byte % sizeof(T) != 0)
        rt::Diag("vec.gather_offset", api)
            .msg(std::string(api) + " offset " + std::to_string(byte) + " bytes is not a multiple of sizeof(T) = " + std::to_string(sizeof(T)) +
                 "; the NPU reads a misaligned element (shifted data, no error)")
            .val("offset", (long long)byte)
            .hint("srcOffset and srcBaseAddr are byte offsets: multiply element indices by sizeof(T)").fatal();
    if (byte + sizeof(T) > src_bytes)
        rt::Diag("ub.out_of_bounds", api)
            .msg(std::string(api) + " reads byte offset " + std::to_string(byte) + " (element " + std::to_string(byte / sizeof(T)) +
                 ") of src, which holds only " + std::to_string(src_bytes) + " bytes (" + std::to_string(src_bytes / sizeof(T)) +
                 " elements): an index out of range")
            .val("offset", (long long)byte).val("src_bytes", (long long)src_bytes)
            .hint("srcOffset holds byte offsets (element index * sizeof(T)) relative to src + srcBaseAddr").fatal();
}
}  // namespace kw

namespace AscendC {

// ---- Brcb: each of 8 source elements per repeat fills one 32-byte block of dst ----
template <typename T>
inline void Brcb(const LocalTensor<T>& dstLocal, const LocalTensor<T>& src0Local, const uint8_t repeatTimes, const BrcbRepeatParams& repeatParams) {
    static_assert(SupportType<T, half, bfloat16_t, int16_t, uint16_t, float, int32_t, uint32_t>(),
                  "Failed to check dtype in Brcb, current api support dtype combination is src and dst both: half / bfloat16_t / int16_t / "
                  "uint16_t / float / int32_t / uint32_t.");
    const char* api = "Brcb";
    kw::require_aligned(dstLocal, api, "dst");
    kw::require_aligned(src0Local, api, "src");
    const uint32_t per_blk = 32 / sizeof(T), blk = repeatParams.dstBlkStride ? repeatParams.dstBlkStride : 1;
    kw::require_room(src0Local, uint64_t(repeatTimes) * 8 * sizeof(T), api, "src");
    uint64_t end = 0;
    for (uint32_t i = 0; i < repeatTimes; ++i) {
        uint64_t b = uint64_t(i) * repeatParams.dstRepStride + 7ull * blk;
        end = (b + 1) * 32 > end ? (b + 1) * 32 : end;
    }
    kw::require_room(dstLocal, end, api, "dst");
    kw::require_disjoint(api, dstLocal, end, "dst", src0Local, uint64_t(repeatTimes) * 8 * sizeof(T), "src");
    kw::rt::access_local(kw::Pipe::V, src0Local.hw(), src0Local.addr_, uint64_t(repeatTimes) * 8 * sizeof(T), false, api, "src");
    kw::rt::access_local(kw::Pipe::V, dstLocal.hw(), dstLocal.addr_, end, true, api, "dst");
    for (uint32_t i = 0; i < repeatTimes; ++i)
        for (uint32_t j = 0; j < 8; ++j) {
            T v = src0Local.ptr()[i * 8 + j];
            T* d = dstLocal.ptr() + (uint64_t(i) * repeatParams.dstRepStride + uint64_t(j) * blk) * per_blk;
            for (uint32_t k = 0; k < per_blk; ++k) d[k] = v;
        }
    kw::rt::count_vec(api, kw::dtype_name<T>(), repeatTimes, uint64_t(repeatTimes) * 8 * per_blk);
}

// ---- CreateVecIndex: firstValue, firstValue + 1, ... (mask forms: lane j of repeat r gets r*lanes + j) ----
#define KW_VECINDEX_CHECK()                                                                                             \
    static_assert(SupportType<T, int16_t, half, int32_t, float>(),                                                      \
                  "Failed to check dtype in CreateVecIndex, current api support dtype combination is dst: int16_t / half / int32_t / float.")
template <typename T>
inline void CreateVecIndex(LocalTensor<T>& dstLocal, const T& firstValue, uint64_t mask, uint8_t repeatTimes, uint16_t dstBlkStride, uint8_t dstRepStride) {
    KW_VECINDEX_CHECK();
    const double f = double(kw::acc_t<T>(firstValue));
    const uint32_t lanes = 256 / sizeof(T);
    std::vector<std::pair<uint64_t, T>> out;
    const kw::Operand ops[1] = {kw::operand(dstLocal, dstBlkStride, dstRepStride, "dst", true)};
    kw::lanes_pass<1>("CreateVecIndex", kw::lanes_from_count(mask, true, lanes, "CreateVecIndex"), repeatTimes, lanes, ops,
                      [&](const uint64_t* idx, uint32_t r, uint32_t j) { out.emplace_back(idx[0], T(f + double(r) * lanes + j)); });
    for (auto& kv : out) dstLocal.ptr()[kv.first] = kv.second;
    kw::rt::count_vec("CreateVecIndex", kw::dtype_name<T>(), repeatTimes, out.size());
}
template <typename T>
inline void CreateVecIndex(LocalTensor<T>& dstLocal, const T& firstValue, uint64_t mask[], uint8_t repeatTimes, uint16_t dstBlkStride, uint8_t dstRepStride) {
    KW_VECINDEX_CHECK();
    const double f = double(kw::acc_t<T>(firstValue));
    const uint32_t lanes = 256 / sizeof(T);
    std::vector<std::pair<uint64_t, T>> out;
    const kw::Operand ops[1] = {kw::operand(dstLocal, dstBlkStride, dstRepStride, "dst", true)};
    kw::lanes_pass<1>("CreateVecIndex", kw::lanes_from_bits(mask, true, lanes, "CreateVecIndex"), repeatTimes, lanes, ops,
                      [&](const uint64_t* idx, uint32_t r, uint32_t j) { out.emplace_back(idx[0], T(f + double(r) * lanes + j)); });
    for (auto& kv : out) dstLocal.ptr()[kv.first] = kv.second;
    kw::rt::count_vec("CreateVecIndex", kw::dtype_name<T>(), repeatTimes, out.size());
}
template <typename T> inline void CreateVecIndex(LocalTensor<T> dstLocal, const T& firstValue, uint32_t calCount) {
    KW_VECINDEX_CHECK();
    const double f = double(kw::acc_t<T>(firstValue));
    kw::require_count("CreateVecIndex", calCount, dstLocal, "dst");
    kw::touch("CreateVecIndex", dstLocal, calCount, true, "dst");
    for (uint32_t i = 0; i < calCount; ++i) dstLocal.ptr()[i] = T(f + double(i));
    kw::rt::count_vec("CreateVecIndex", kw::dtype_name<T>(), kw::repeats_for(calCount, sizeof(T)), calCount);
}
#undef KW_VECINDEX_CHECK

// ---- Gather: dst[i] = *(T*)((uint8_t*)src + srcBaseAddr + srcOffset[i]) (offsets in bytes) ----
#define KW_GATHER_CHECK()                                                                                               \
    static_assert(SupportType<T, half, bfloat16_t, uint16_t, int16_t, float, uint32_t, int32_t>(),                     \
                  "Failed to check dtype in Gather, current api support dtype combination is src and dst both: half / bfloat16_t / "  \
                  "uint16_t / int16_t / float / uint32_t / int32_t")
namespace kwgather {
// Lane k of the walk reads srcOffset[k]; dst element positions come from `dst_index(k)`.
template <typename T, class DstIndex>
inline void run(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& off, uint32_t base,
                const std::vector<uint64_t>& lanes, DstIndex dst_index, uint64_t reps) {
    const char* api = "Gather";
    kw::require_aligned(dst, api, "dst");
    kw::require_aligned(src, api, "src");
    kw::require_aligned(off, api, "srcOffset");
    if (lanes.empty()) return;
    const uint64_t last = lanes.back();
    kw::require_room(off, (last + 1) * 4, api, "srcOffset");
    kw::rt::access_local(kw::Pipe::V, off.hw(), off.addr_, (last + 1) * 4, false, api, "srcOffset");
    std::vector<std::pair<uint64_t, T>> out;
    uint64_t lo = ~0ull, hi = 0, dhi = 0;
    const uint8_t* sb = reinterpret_cast<const uint8_t*>(src.ptr());
    for (uint64_t k : lanes) {
        uint64_t byte = uint64_t(base) + off.ptr()[k];
        kw::check_gather_offset<T>(api, byte, src.len_);
        T v;
        std::memcpy(&v, sb + byte, sizeof(T));
        lo = byte < lo ? byte : lo, hi = byte > hi ? byte : hi;
        out.emplace_back(dst_index(k), v);
        dhi = out.back().first > dhi ? out.back().first : dhi;
    }
    kw::require_room(dst, (dhi + 1) * sizeof(T), api, "dst");
    kw::rt::access_local(kw::Pipe::V, src.hw(), src.addr_ + uint32_t(lo), hi - lo + sizeof(T), false, api, "src");
    std::vector<T> result(dst.ptr(), dst.ptr() + dhi + 1);   // the bytes dst will hold (for the same-bytes rule)
    for (auto& kv : out) result[kv.first] = kv.second;
    kw::rt::access_local(kw::Pipe::V, dst.hw(), dst.addr_, (dhi + 1) * sizeof(T), true, api, "dst",
                         reinterpret_cast<const uint8_t*>(result.data()));
    std::memcpy(dst.ptr(), result.data(), (dhi + 1) * sizeof(T));
    kw::rt::count_vec(api, kw::dtype_name<T>(), reps, lanes.size());
}
template <typename T>
inline void masked(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& off, uint32_t base, const kw::LaneMask& m,
                   uint8_t repeatTimes, uint16_t dstRepStride) {
    const uint32_t lanes = 256 / sizeof(T), per_blk = 32 / sizeof(T);
    const uint64_t reps = kw::repeats_run(m, repeatTimes, lanes);
    std::vector<uint64_t> ks;
    for (uint64_t r = 0; r < reps; ++r)
        for (uint32_t j = 0; j < lanes; ++j)
            if (m.counter ? r * lanes + j < m.total : m.lane(j)) ks.push_back(r * lanes + j);
    run(dst, src, off, base, ks, [&](uint64_t k) { return (k / lanes) * dstRepStride * per_blk + k % lanes; }, reps);
}
}  // namespace kwgather
template <typename T>
inline void Gather(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const LocalTensor<uint32_t>& srcOffsetLocal,
                   const uint32_t srcBaseAddr, const uint64_t mask, const uint8_t repeatTimes, const uint16_t dstRepStride) {
    KW_GATHER_CHECK();
    kwgather::masked(dstLocal, srcLocal, srcOffsetLocal, srcBaseAddr, kw::lanes_from_count(mask, true, 256 / sizeof(T), "Gather"), repeatTimes,
                     dstRepStride);
}
template <typename T>
inline void Gather(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const LocalTensor<uint32_t>& srcOffsetLocal,
                   const uint32_t srcBaseAddr, const uint64_t mask[], const uint8_t repeatTimes, const uint16_t dstRepStride) {
    KW_GATHER_CHECK();
    kwgather::masked(dstLocal, srcLocal, srcOffsetLocal, srcBaseAddr, kw::lanes_from_bits(mask, true, 256 / sizeof(T), "Gather"), repeatTimes,
                     dstRepStride);
}
template <typename T>
inline void Gather(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const LocalTensor<uint32_t>& srcOffsetLocal,
                   const uint32_t srcBaseAddr, const uint32_t count) {
    KW_GATHER_CHECK();
    std::vector<uint64_t> ks(count);
    for (uint32_t i = 0; i < count; ++i) ks[i] = i;
    kwgather::run(dstLocal, srcLocal, srcOffsetLocal, srcBaseAddr, ks, [](uint64_t k) { return k; }, kw::repeats_for(count, sizeof(T)));
}
#undef KW_GATHER_CHECK

// ---- GatherMask ----
template <typename T, typename U, GatherMaskMode mode = defaultGatherMaskMode>
inline void GatherMask(const LocalTensor<T>& dstLocal, const LocalTensor<T>& src0Local, const LocalTensor<U>& src1Pattern, const bool reduceMode,
                       const uint32_t mask, const GatherMaskParams& gatherMaskParams, uint64_t& rsvdCnt) {
    static_assert(SupportType<T, half, bfloat16_t, uint16_t, int16_t, float, uint32_t, int32_t>(),
                  "Failed to check dtype in GatherMask, current api support dtype combination is src and dst both: half / bfloat16_t / "
                  "uint16_t / int16_t / float / uint32_t / int32_t.");
    static_assert((sizeof(T) == 2 && IsSameType<U, uint16_t>::value) || (sizeof(T) == 4 && IsSameType<U, uint32_t>::value),
                  "Failed to check dtype in GatherMask, current api support dtype combination is src1Pattern: uint16_t for 16-bit "
                  "src0 / dst, uint32_t for 32-bit src0 / dst (float / uint32_t / int32_t).");
    kw::require_aligned(src1Pattern, "GatherMask", "src1Pattern");
    const uint64_t per_rep = reduceMode ? mask : 256 / sizeof(T);
    const uint64_t stride = uint64_t(gatherMaskParams.src1RepeatStride) * 32;
    const uint64_t bytes = gatherMaskParams.repeatTimes ? (gatherMaskParams.repeatTimes - 1) * stride + (per_rep + 7) / 8 : 0;
    kw::require_room(src1Pattern, bytes, "GatherMask", "src1Pattern");
    if (bytes) kw::rt::access_local(kw::Pipe::V, src1Pattern.hw(), src1Pattern.addr_, bytes, false, "GatherMask", "src1Pattern");
    std::vector<uint8_t> pat(reinterpret_cast<const uint8_t*>(src1Pattern.ptr()), reinterpret_cast<const uint8_t*>(src1Pattern.ptr()) + bytes);
    rsvdCnt = kw::gather_mask(dstLocal, src0Local, reduceMode, mask, gatherMaskParams,
                              [&](uint32_t r, uint64_t k) { return kw::bit_of(pat.data(), r * stride * 8 + k); });
}
template <typename T, GatherMaskMode mode = defaultGatherMaskMode>
inline void GatherMask(const LocalTensor<T>& dstLocal, const LocalTensor<T>& src0Local, const uint8_t src1Pattern, const bool reduceMode,
                       const uint32_t mask, const GatherMaskParams& gatherMaskParams, uint64_t& rsvdCnt) {
    static_assert(SupportType<T, half, bfloat16_t, uint16_t, int16_t, float, uint32_t, int32_t>(),
                  "Failed to check dtype in GatherMask, current api support dtype combination is src and dst both: half / bfloat16_t / "
                  "uint16_t / int16_t / float / uint32_t / int32_t.");
    if (src1Pattern < 1 || src1Pattern > 7)
        kw::rt::Diag("vec.gather_pattern", "GatherMask")
            .msg("built-in GatherMask pattern " + std::to_string(src1Pattern) + " does not exist; the valid range is 1 ~ 7")
            .val("src1Pattern", src1Pattern)
            .hint("1/2: even/odd elements, 3..6: the 1st..4th of every four, 7: all; or pass a pattern tensor").fatal();
    rsvdCnt = kw::gather_mask(dstLocal, src0Local, reduceMode, mask, gatherMaskParams,
                              [&](uint32_t, uint64_t k) { return kw::gather_pattern_bit(src1Pattern, k); });
}
inline int64_t GetGatherMaskRemainCount() {
    kw::rt::count_scalar("GetGatherMaskRemainCount");
    return int64_t(kw::gather_mask_remain());
}

// ---- Transpose ----
template <typename T> inline void Transpose(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal) {
    static_assert(SupportType<T, int16_t, uint16_t, half>(),
                  "Failed to check dtype in Transpose, current api support dtype combination is src and dst both: int16_t, uint16_t, half");
    const char* api = "Transpose";
    kw::require_aligned(dstLocal, api, "dst");
    kw::require_aligned(srcLocal, api, "src");
    kw::require_room(dstLocal, 512, api, "dst");
    kw::require_room(srcLocal, 512, api, "src");
    kw::rt::access_local(kw::Pipe::V, srcLocal.hw(), srcLocal.addr_, 512, false, api, "src");
    kw::rt::access_local(kw::Pipe::V, dstLocal.hw(), dstLocal.addr_, 512, true, api, "dst");
    T tmp[256];
    for (int i = 0; i < 256; ++i) tmp[i] = srcLocal.ptr()[(i % 16) * 16 + i / 16];
    std::memcpy(dstLocal.ptr(), tmp, sizeof(tmp));
    kw::rt::count_vec(api, kw::dtype_name<T>(), 1, 256);
}
template <typename T>
inline void Transpose(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const LocalTensor<uint8_t>& sharedTmpBuffer,
                      const TransposeParamsExt& transposeParams) {
    static_assert(SupportType<T, int8_t, uint8_t, int16_t, uint16_t, half, int32_t, uint32_t, float>(),
                  "Failed to check dtype in Transpose when transposeType is TRANSPOSE_NCHW2NHWC / TRANSPOSE_NHWC2NCHW, current api support "
                  "dtype combination is src and dst both: int8_t / uint8_t / int16_t / uint16_t / half / int32_t / uint32_t / float");
    const char* api = "Transpose";
    const TransposeType tt = transposeParams.transposeType;
    if (tt == TransposeType::TRANSPOSE_ND2ND_B16) {
        if (!std::is_same<T, uint16_t>::value)
            kw::rt::Diag("vec.dtype", api).msg("Failed to check dtype in Transpose when transposeType is TRANSPOSE_ND2ND_B16, current api "
                                               "support dtype combination is src and dst both: uint16_t")
                .hint("reinterpret 16-bit data as uint16_t for the 16x16 transpose").fatal();
        Transpose(dstLocal, srcLocal);
        return;
    }
    if (tt != TransposeType::TRANSPOSE_NCHW2NHWC && tt != TransposeType::TRANSPOSE_NHWC2NCHW)
        kw::rt::Diag("vec.transpose_type", api).msg("this TransposeType is not supported by the 4-argument Transpose on this device")
            .hint("use TRANSPOSE_ND2ND_B16, TRANSPOSE_NCHW2NHWC or TRANSPOSE_NHWC2NCHW").fatal();
    const uint64_t n = transposeParams.nSize, c = transposeParams.cSize, hw = uint64_t(transposeParams.hSize) * transposeParams.wSize;
    const uint64_t total = n * c * hw;
    kw::require_aligned(dstLocal, api, "dst");
    kw::require_aligned(srcLocal, api, "src");
    kw::require_aligned(sharedTmpBuffer, api, "sharedTmpBuffer");
    kw::require_room(dstLocal, total * sizeof(T), api, "dst");
    kw::require_room(srcLocal, total * sizeof(T), api, "src");
    kw::touch(api, srcLocal, total, false, "src");
    kw::touch(api, sharedTmpBuffer, sharedTmpBuffer.GetSize(), true, "sharedTmpBuffer");
    kw::touch(api, dstLocal, total, true, "dst");
    std::vector<T> out(total);
    const T* s = srcLocal.ptr();
    for (uint64_t b = 0; b < n; ++b)
        for (uint64_t ch = 0; ch < c; ++ch)
            for (uint64_t p = 0; p < hw; ++p) {
                const uint64_t nchw = (b * c + ch) * hw + p, nhwc = (b * hw + p) * c + ch;
                if (tt == TransposeType::TRANSPOSE_NCHW2NHWC) out[nhwc] = s[nchw];
                else out[nchw] = s[nhwc];
            }
    std::memcpy(dstLocal.ptr(), out.data(), total * sizeof(T));
    kw::rt::count_vec(api, kw::dtype_name<T>(), kw::repeats_for(total, sizeof(T)), total);
}

// ---- Copy: vector-pipe UB->UB with mask; strides in 32-byte blocks ----
#define KW_COPY_CHECK()                                                                                                 \
    static_assert(SupportType<T, int16_t, uint16_t, half, bfloat16_t, int32_t, uint32_t, float>(),                     \
                  "Failed to check dtype in Copy, current api support dtype combination is src and dst both: int16_t / uint16_t / half / "  \
                  "bfloat16_t / int32_t / uint32_t / float")
template <typename T, bool isSetMask = true>
inline void Copy(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const uint64_t mask[], const uint8_t repeatTimes,
                 const CopyRepeatParams& repeatParams) {
    KW_COPY_CHECK();
    kw::unary_masked<T, T>("Copy", dstLocal, srcLocal, kw::lanes_from_bits(mask, isSetMask, 256 / sizeof(T), "Copy"), repeatTimes,
                           repeatParams.dstStride, repeatParams.srcStride, repeatParams.dstRepeatSize, repeatParams.srcRepeatSize,
                           [](T x) { return x; });
}
template <typename T, bool isSetMask = true>
inline void Copy(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const uint64_t mask, const uint8_t repeatTimes,
                 const CopyRepeatParams& repeatParams) {
    KW_COPY_CHECK();
    kw::unary_masked<T, T>("Copy", dstLocal, srcLocal, kw::lanes_from_count(mask, isSetMask, 256 / sizeof(T), "Copy"), repeatTimes,
                           repeatParams.dstStride, repeatParams.srcStride, repeatParams.dstRepeatSize, repeatParams.srcRepeatSize,
                           [](T x) { return x; });
}
#undef KW_COPY_CHECK

}  // namespace AscendC
