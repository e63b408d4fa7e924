// DataCopy / DataCopyPad / Copy and their parameter structs (CANN 8.x constructors: a
// DataCopyParams takes exactly 0 or 4 values, DataCopyExtParams 0 or 5).
#pragma once
#include "kw/sync.h"

namespace AscendC {

struct DataCopyParams {
    DataCopyParams() {}
    DataCopyParams(const uint16_t count, const uint16_t len, const uint16_t srcStrideIn, const uint16_t dstStrideIn)
        : blockCount(count), blockLen(len), srcStride(srcStrideIn), dstStride(dstStrideIn) {}
    uint16_t blockCount = 1;
    uint16_t blockLen = 0;
    uint16_t srcStride = 0;
    uint16_t dstStride = 0;
};

struct DataCopyExtParams {
    DataCopyExtParams() {}
    DataCopyExtParams(const uint16_t count, const uint32_t len, const uint32_t srcStrideIn, const uint32_t dstStrideIn,
                      const uint32_t rsvIn)
        : blockCount(count), blockLen(len), srcStride(srcStrideIn), dstStride(dstStrideIn), rsv(rsvIn) {}
    uint16_t blockCount = 1;
    uint32_t blockLen = 0;
    uint32_t srcStride = 0;
    uint32_t dstStride = 0;
    uint32_t rsv = 0;
};

struct DataCopyPadParams {
    DataCopyPadParams() {}
    DataCopyPadParams(const bool isPadValue, const uint8_t leftPadValue, const uint8_t rightPadValue, const uint64_t padValue)
        : isPad(isPadValue), leftPadding(leftPadValue), rightPadding(rightPadValue), paddingValue(padValue) {}
    bool isPad = false;
    uint8_t leftPadding = 0;
    uint8_t rightPadding = 0;
    uint64_t paddingValue = 0;
};

template <typename T> struct DataCopyPadExtParams {
    DataCopyPadExtParams() {}
    DataCopyPadExtParams(const bool isPadValue, const uint8_t leftPadValue, const uint8_t rightPadValue, T padValue)
        : isPad(isPadValue), leftPadding(leftPadValue), rightPadding(rightPadValue), paddingValue(padValue) {}
    bool isPad = false;
    uint8_t leftPadding = 0;
    uint8_t rightPadding = 0;
    T paddingValue = 0;
};

struct DataCopyEnhancedParams {
    BlockMode blockMode = BlockMode::BLOCK_MODE_NORMAL;
    DeqScale deqScale = DeqScale::DEQ_NONE;
    uint64_t deqValue = 0;
    uint8_t sidStoreMode = 0;
    bool isRelu = false;
    pad_t padMode = pad_t::PAD_NONE;
    uint64_t padValue = 0;
    uint64_t deqTensorAddr = 0;
};

struct Nd2NzParams {
    Nd2NzParams() {}
    Nd2NzParams(const uint16_t ndNumIn, const uint16_t nValueIn, const uint16_t dValueIn, const uint16_t srcNdMatrixStrideIn,
                const uint16_t srcDValueIn, const uint16_t dstNzC0StrideIn, const uint16_t dstNzNStrideIn,
                const uint16_t dstNzMatrixStrideIn)
        : ndNum(ndNumIn), nValue(nValueIn), dValue(dValueIn), srcNdMatrixStride(srcNdMatrixStrideIn), srcDValue(srcDValueIn),
          dstNzC0Stride(dstNzC0StrideIn), dstNzNStride(dstNzNStrideIn), dstNzMatrixStride(dstNzMatrixStrideIn) {}
    uint16_t ndNum = 1, nValue = 0, dValue = 0, srcNdMatrixStride = 0, srcDValue = 0, dstNzC0Stride = 0, dstNzNStride = 0,
             dstNzMatrixStride = 0;
};

struct SliceInfo {
    SliceInfo() {}
    SliceInfo(const uint32_t startIndexIn, const uint32_t endIndexIn, const uint32_t strideIn, const uint32_t burstLenIn,
              const uint32_t shapeValueIn = 0)
        : startIndex(startIndexIn), endIndex(endIndexIn), stride(strideIn), burstLen(burstLenIn), shapeValue(shapeValueIn) {}
    uint32_t startIndex = 0, endIndex = 31, stride = 0, burstLen = 32, shapeValue = 0;
};

struct CopyRepeatParams {
    CopyRepeatParams() {}
    CopyRepeatParams(const uint16_t dstStrideIn, const uint16_t srcStrideIn, const uint16_t dstRepeatSizeIn, const uint16_t srcRepeatSizeIn)
        : dstStride(dstStrideIn), srcStride(srcStrideIn), dstRepeatSize(dstRepeatSizeIn), srcRepeatSize(srcRepeatSizeIn) {}
    uint16_t dstStride = 0, srcStride = 0, dstRepeatSize = 8, srcRepeatSize = 8;  // CANN 8.x defaults (DEFAULT_DATA_COPY_STRIDE is 0)
};

}  // namespace AscendC

namespace kw {
using AscendC::GlobalTensor;
using AscendC::LocalTensor;

template <class T> void require_aligned(const LocalTensor<T>& t, const char* api, const char* operand, uint32_t align = 32) {
    if (t.addr_ % align == 0) return;
    rt::Diag("ub.align", api)
        .msg(std::string(api) + ": " + operand + " starts at " + rt::hardware_name(t.hw()) + " offset " + std::to_string(t.addr_) +
             ", which is not " + std::to_string(align) + "-byte aligned (" + std::to_string(t.addr_ % align) + " bytes past a boundary)")
        .val("address", t.addr_).val("alignment", align)
        .hint("views t[k] passed to DataCopy/vector instructions need k*sizeof(T) to be a multiple of 32; on the NPU this is "
              "'Illegal instruction, which is usually caused by unaligned UUB addresses' (aivec error 0x10) or wrong data")
        .fatal();
}

template <class T> void require_room(const LocalTensor<T>& t, uint64_t bytes, const char* api, const char* operand) {
    if (bytes <= t.len_) return;
    // a view shorter than its buffer (TBuf::Get(n), SetSize): running on inside the same buffer touches
    // only bytes the kernel owns, which the NPU does not check (NPUKernelBench Arange casts 8 elements
    // into a Get<float>(0) view of an 8-byte TBuf, 32 bytes once InitBuffer rounds it)
    const uint32_t end = rt::buffer_end(t.hw(), t.addr_, t.owner_);
    if (end != 0 && t.addr_ + bytes <= end) {
        rt::Diag("ub.past_view", api)
            .msg(std::string(api) + " touches " + std::to_string(bytes) + " bytes of " + operand + ", a " + std::to_string(t.len_) +
                 "-byte view at " + rt::hardware_name(t.hw()) + " offset " + std::to_string(t.addr_) +
                 ", but stays inside its buffer (which ends at " + std::to_string(end) + ")")
            .val("bytes", (long long)bytes).val("tensor_bytes", t.len_)
            .hint("take the view with the length the instruction uses (Get<T>(count)); CANN's CPU debugging rejects this")
            .warn();
        return;
    }
    rt::Diag("ub.out_of_bounds", api)
        .msg(std::string(api) + " touches " + std::to_string(bytes) + " bytes of " + operand + ", but that tensor has only " +
             std::to_string(t.len_) + " bytes (" + std::to_string(t.len_ / sizeof(T)) + " x " + dtype_name<T>() + ") from offset " +
             std::to_string(t.addr_) + " of " + rt::hardware_name(t.hw()))
        .val("bytes", (long long)bytes).val("tensor_bytes", t.len_)
        .hint("the element count (or blockCount*blockLen) exceeds the buffer: check the tail length, the InitBuffer size and "
              "any offset view")
        .fatal();
}

inline rt::Diag truncation(const char* dir, uint64_t count, size_t size) {
    uint64_t bytes = count * size;
    return std::move(rt::Diag("datacopy.truncate", "DataCopy")
        .msg(std::string("DataCopy ") + dir + " of " + std::to_string(count) + " elements = " + std::to_string(bytes) +
             " bytes is not a multiple of 32 bytes; the NPU silently copies only " + std::to_string(bytes / 32 * 32) +
             " bytes and the last " + std::to_string(bytes % 32) + " are lost")
        .val("count", (long long)count).val("bytes", (long long)bytes)
        .hint("use DataCopyPad (DataCopyExtParams{1, count*sizeof(T), 0, 0, 0}) for the tail, or make the tile length a "
              "multiple of 32/sizeof(T) elements"));
}

// Moves blockCount bursts of burst bytes between GM and an on-chip tensor. Strides are the
// gaps between bursts, in bytes, on each side.
template <class T>
void dma_gm_local(Pipe pipe, const LocalTensor<T>& local, T* gm, bool to_local, uint32_t blocks, uint64_t burst,
                  uint64_t gm_gap, uint64_t local_gap, uint64_t local_row, const char* api) {
    if (blocks == 0 || burst == 0) return;
    require_aligned(local, api, to_local ? "dst" : "src");
    uint64_t extent = uint64_t(blocks - 1) * (local_row + local_gap) + burst;
    require_room(local, extent, api, to_local ? "dst" : "src");
    uint8_t* lbase = reinterpret_cast<uint8_t*>(local.ptr());
    uint8_t* gbase = reinterpret_cast<uint8_t*>(gm);
    for (uint32_t i = 0; i < blocks; ++i) {
        uint8_t* g = gbase + i * (burst + gm_gap);
        uint8_t* l = lbase + i * (local_row + local_gap);
        if (!to_local && rt::atomic_mode() == 0)   // a burst that leaves GM as another block wrote it is no race
            rt::access_gm_store(pipe, g, burst, l, api, "dst");
        else
            rt::access_gm(pipe, g, burst, !to_local, api, to_local ? "src" : "dst");
        rt::access_local(pipe, local.hw(), uint32_t(l - rt::arena(local.hw())), burst, to_local, api, to_local ? "dst" : "src",
                         to_local ? g : nullptr);
        if (to_local) std::memcpy(l, g, burst);
        else if (rt::atomic_mode() == 0) std::memcpy(g, l, burst);
        else {
            T* gd = reinterpret_cast<T*>(g);
            const T* ls = reinterpret_cast<const T*>(l);
            for (uint64_t e = 0; e < burst / sizeof(T); ++e) {
                acc_t<T> a = acc_t<T>(gd[e]), b = acc_t<T>(ls[e]);
                int m = rt::atomic_mode();
                gd[e] = T(m == 1 ? a + b : m == 2 ? (a > b ? a : b) : (a < b ? a : b));
            }
        }
    }
    rt::count_copy(to_local ? AscendC::Hardware::GM : local.hw(), to_local ? local.hw() : AscendC::Hardware::GM, uint64_t(blocks) * burst,
                   blocks, burst, gm_gap, gm);
}

// L1 -> bias table copies convert and count in 64-byte units (defined in kw/cube_load.h).
template <class D, class S>
void l1_to_bias(const LocalTensor<D>& dst, const LocalTensor<S>& src, uint32_t blocks, uint32_t blockLen, uint32_t srcGap,
                uint32_t dstGap);

template <class D, class S>
void ub_to_ub(const LocalTensor<D>& dst, const LocalTensor<S>& src, uint32_t blocks, uint64_t burst, uint64_t src_gap,
              uint64_t dst_gap, const char* api) {
    if (blocks == 0 || burst == 0) return;
    require_aligned(dst, api, "dst");
    require_aligned(src, api, "src");
    require_room(dst, uint64_t(blocks - 1) * (burst + dst_gap) + burst, api, "dst");
    require_room(src, uint64_t(blocks - 1) * (burst + src_gap) + burst, api, "src");
    Pipe p = dst.hw() == AscendC::Hardware::UB && src.hw() == AscendC::Hardware::UB ? Pipe::V : Pipe::MTE1;
    for (uint32_t i = 0; i < blocks; ++i) {
        uint32_t so = uint32_t(src.addr_ + i * (burst + src_gap)), d = uint32_t(dst.addr_ + i * (burst + dst_gap));
        rt::access_local(p, src.hw(), so, burst, false, api, "src");
        rt::access_local(p, dst.hw(), d, burst, true, api, "dst", rt::arena(src.hw()) + so);
        std::memmove(rt::arena(dst.hw()) + d, rt::arena(src.hw()) + so, burst);
    }
    rt::count_copy(src.hw(), dst.hw(), uint64_t(blocks) * burst);
}
}  // namespace kw

namespace AscendC {

// ---- DataCopy, DataCopyParams form (lengths and gaps in 32-byte blocks) ----
template <typename T> inline void DataCopy(const LocalTensor<T>& dstLocal, const GlobalTensor<T>& srcGlobal, const DataCopyParams& p) {
    kw::dma_gm_local<T>(kw::Pipe::MTE2, dstLocal, srcGlobal.addr_, true, p.blockCount, uint64_t(p.blockLen) * 32,
                        uint64_t(p.srcStride) * 32, uint64_t(p.dstStride) * 32, uint64_t(p.blockLen) * 32, "DataCopy");
}
template <typename T> inline void DataCopy(const GlobalTensor<T>& dstGlobal, const LocalTensor<T>& srcLocal, const DataCopyParams& p) {
    kw::dma_gm_local<T>(kw::Pipe::MTE3, srcLocal, dstGlobal.addr_, false, p.blockCount, uint64_t(p.blockLen) * 32,
                        uint64_t(p.dstStride) * 32, uint64_t(p.srcStride) * 32, uint64_t(p.blockLen) * 32, "DataCopy");
}
template <typename T> inline void DataCopy(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const DataCopyParams& p) {
    if (dstLocal.hw() == Hardware::BIAS) return kw::l1_to_bias(dstLocal, srcLocal, p.blockCount, p.blockLen, p.srcStride, p.dstStride);
    kw::ub_to_ub(dstLocal, srcLocal, p.blockCount, uint64_t(p.blockLen) * 32, uint64_t(p.srcStride) * 32, uint64_t(p.dstStride) * 32,
                 "DataCopy");
}
template <typename dst_T, typename src_T>
inline void DataCopy(const LocalTensor<dst_T>& dstLocal, const LocalTensor<src_T>& srcLocal, const DataCopyParams& p) {
    if (dstLocal.hw() == Hardware::BIAS) return kw::l1_to_bias(dstLocal, srcLocal, p.blockCount, p.blockLen, p.srcStride, p.dstStride);
    kw::ub_to_ub(dstLocal, srcLocal, p.blockCount, uint64_t(p.blockLen) * 32, uint64_t(p.srcStride) * 32, uint64_t(p.dstStride) * 32,
                 "DataCopy");
}
template <typename T>
inline void DataCopy(const LocalTensor<T>& dstLocal, const GlobalTensor<T>& srcGlobal, const DataCopyParams& p, const DataCopyEnhancedParams&) {
    DataCopy(dstLocal, srcGlobal, p);
}
template <typename T>
inline void DataCopy(const GlobalTensor<T>& dstGlobal, const LocalTensor<T>& srcLocal, const DataCopyParams& p, const DataCopyEnhancedParams&) {
    DataCopy(dstGlobal, srcLocal, p);
}
template <typename T>
inline void DataCopy(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const DataCopyParams& p, const DataCopyEnhancedParams&) {
    DataCopy(dstLocal, srcLocal, p);
}

// ---- DataCopy, count form: calCount*sizeof(T) must be a multiple of 32 bytes ----
template <typename T> inline void DataCopy(const LocalTensor<T>& dstLocal, const GlobalTensor<T>& srcGlobal, const uint32_t calCount) {
    if (uint64_t(calCount) * sizeof(T) % 32 != 0) kw::truncation("from GM to a local tensor", calCount, sizeof(T)).fatal();
    uint64_t bytes = uint64_t(calCount) * sizeof(T);
    kw::dma_gm_local<T>(kw::Pipe::MTE2, dstLocal, srcGlobal.addr_, true, 1, bytes, 0, 0, bytes, "DataCopy");
}
template <typename T> inline void DataCopy(const GlobalTensor<T>& dstGlobal, const LocalTensor<T>& srcLocal, const uint32_t calCount) {
    if (uint64_t(calCount) * sizeof(T) % 32 != 0) kw::truncation("from a local tensor to GM", calCount, sizeof(T)).fatal();
    uint64_t bytes = uint64_t(calCount) * sizeof(T);
    kw::dma_gm_local<T>(kw::Pipe::MTE3, srcLocal, dstGlobal.addr_, false, 1, bytes, 0, 0, bytes, "DataCopy");
}
template <typename T> inline void DataCopy(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const uint32_t calCount) {
    if (uint64_t(calCount) * sizeof(T) % 32 != 0) kw::truncation("between local tensors", calCount, sizeof(T)).fatal();
    kw::ub_to_ub(dstLocal, srcLocal, 1, uint64_t(calCount) * sizeof(T), 0, 0, "DataCopy");
}

// ---- DataCopyPad: any byte length; GM side byte-addressed, local rows padded to 32 bytes ----
template <typename T> inline void SetPadValue(T) {}
template <typename T, TPosition pos> inline void SetPadValue(T) {}

namespace kwpad {
template <typename T>
inline void gm_to_local(const LocalTensor<T>& dst, const GlobalTensor<T>& src, uint32_t blocks, uint32_t blockLen, uint64_t gmGap,
                        uint32_t ubGapBlocks, bool isPad, uint8_t left, uint8_t right, T value) {
    const char* api = "DataCopyPad";
    if (blocks == 0 || blockLen == 0) return;
    if (blockLen % sizeof(T) != 0)
        kw::rt::Diag("datacopypad.block_len", api)
            .msg("blockLen " + std::to_string(blockLen) + " is not a multiple of sizeof(" + kw::dtype_name<T>() + ") = " +
                 std::to_string(sizeof(T)) + " (DataCopyPad lengths are in bytes)")
            .val("blockLen", blockLen).hint("pass count * sizeof(T) as blockLen").fatal();
    if (uint32_t(left) * sizeof(T) > 32 || uint32_t(right) * sizeof(T) > 32)
        kw::rt::Diag("datacopypad.padding", api)
            .msg("leftPadding " + std::to_string(left) + " / rightPadding " + std::to_string(right) + " elements exceed one 32-byte block")
            .hint("padding is counted in elements and each side may cover at most 32 bytes").fatal();
    uint64_t row = (uint64_t(left) * sizeof(T) + blockLen + uint64_t(right) * sizeof(T) + 31) / 32 * 32;
    kw::require_aligned(dst, api, "dst");
    kw::require_room(dst, (blocks - 1) * (row + uint64_t(ubGapBlocks) * 32) + row, api, "dst");
    for (uint32_t i = 0; i < blocks; ++i) {
        uint8_t* g = reinterpret_cast<uint8_t*>(src.addr_) + i * (blockLen + gmGap);
        uint32_t l = uint32_t(dst.addr_ + i * (row + uint64_t(ubGapBlocks) * 32));
        kw::rt::access_gm(kw::Pipe::MTE2, g, blockLen, false, api, "src");
        kw::rt::access_local(kw::Pipe::MTE2, dst.hw(), l, row, true, api, "dst");
        uint8_t* lp = kw::rt::arena(dst.hw()) + l;
        std::memcpy(lp + left * sizeof(T), g, blockLen);
        if (isPad) {
            T* e = reinterpret_cast<T*>(lp);
            for (uint32_t k = 0; k < left; ++k) e[k] = value;
            T* r = reinterpret_cast<T*>(lp + left * sizeof(T) + blockLen);
            for (uint32_t k = 0; k < right; ++k) r[k] = value;
        }
    }
    kw::rt::count_copy(Hardware::GM, dst.hw(), uint64_t(blocks) * blockLen, blocks, blockLen, gmGap, src.addr_);
}
template <typename T>
inline void local_to_gm(const GlobalTensor<T>& dst, const LocalTensor<T>& src, uint32_t blocks, uint32_t blockLen, uint32_t ubGapBlocks,
                        uint64_t gmGap) {
    if (blocks == 0 || blockLen == 0) return;
    uint64_t row = (uint64_t(blockLen) + 31) / 32 * 32;
    kw::dma_gm_local<T>(kw::Pipe::MTE3, src, dst.addr_, false, blocks, blockLen, gmGap, uint64_t(ubGapBlocks) * 32 + (row - blockLen),
                        blockLen, "DataCopyPad");
}
}  // namespace kwpad

template <typename T>
inline void DataCopyPad(const LocalTensor<T>& dstLocal, const GlobalTensor<T>& srcGlobal, const DataCopyParams& dataCopyParams,
                        const DataCopyPadParams& padParams) {
    T v;
    uint64_t raw = padParams.paddingValue;
    std::memcpy(&v, &raw, sizeof(T) < sizeof(raw) ? sizeof(T) : sizeof(raw));
    kwpad::gm_to_local(dstLocal, srcGlobal, dataCopyParams.blockCount, dataCopyParams.blockLen, dataCopyParams.srcStride,
                       dataCopyParams.dstStride, padParams.isPad, padParams.leftPadding, padParams.rightPadding, v);
}
template <typename T>
inline void DataCopyPad(const GlobalTensor<T>& dstGlobal, const LocalTensor<T>& srcLocal, const DataCopyParams& dataCopyParams) {
    kwpad::local_to_gm(dstGlobal, srcLocal, dataCopyParams.blockCount, dataCopyParams.blockLen, dataCopyParams.srcStride,
                       dataCopyParams.dstStride);
}
template <typename T>
inline void DataCopyPad(const LocalTensor<T>& dstLocal, const GlobalTensor<T>& srcGlobal, const DataCopyExtParams& dataCopyParams,
                        const DataCopyPadExtParams<T>& padParams) {
    kwpad::gm_to_local(dstLocal, srcGlobal, dataCopyParams.blockCount, dataCopyParams.blockLen, dataCopyParams.srcStride,
                       dataCopyParams.dstStride, padParams.isPad, padParams.leftPadding, padParams.rightPadding, padParams.paddingValue);
}
template <typename T>
inline void DataCopyPad(const GlobalTensor<T>& dstGlobal, const LocalTensor<T>& srcLocal, const DataCopyExtParams& dataCopyParams) {
    kwpad::local_to_gm(dstGlobal, srcLocal, dataCopyParams.blockCount, dataCopyParams.blockLen, dataCopyParams.srcStride,
                       dataCopyParams.dstStride);
}
template <typename T>
inline void DataCopyPad(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const DataCopyParams& dataCopyParams,
                        const Nd2NzParams&) {
    kw::ub_to_ub(dstLocal, srcLocal, dataCopyParams.blockCount, dataCopyParams.blockLen, 0, 0, "DataCopyPad");
}

}  // namespace AscendC
