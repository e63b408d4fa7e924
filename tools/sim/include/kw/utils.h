// Small utilities of the AscendC namespace that kernels use directly: AscendCUtils, DivCeil /
// AlignUp, TQueConfig, branch hints and the core-type switches.
#pragma once
#include "kw/vec_core.h"
#include "kw/sync.h"

#ifndef likely
#define likely(x) __builtin_expect(!!(x), 1)
#endif
#ifndef unlikely
#define unlikely(x) __builtin_expect(!!(x), 0)
#endif

// Each core type is a separate compile on the NPU, so g_coreType is a constant expression there
// (kernels use it as a template argument). Launches here run on AIV cores.
#ifndef KW_CORE_TYPE
#define KW_CORE_TYPE AscendC::AIV
#endif
constexpr int32_t g_coreType = KW_CORE_TYPE;
#define ASCEND_IS_AIV (g_coreType == AscendC::AIV)
#define ASCEND_IS_AIC (g_coreType == AscendC::AIC)
#define ASCEND_IS_NOT_AIV (g_coreType != AscendC::AIV)
#define ASCEND_IS_NOT_AIC (g_coreType != AscendC::AIC)

namespace AscendC {
// InitSocState (basic_api/kernel_operator_common_intf.h): the AI Core's global state back to its defaults,
// as a kernel may find it left by the previous one. On Atlas A2/A3: no store atomics, normal mask mode,
// every mask lane on (the load-data padding and boundary of the cube are not emulated state).
inline void InitSocState() {
    SetAtomicNone();
    SetMaskNorm();
    ResetMask();
}
inline uint32_t DivCeil(uint32_t a, uint32_t b) { return (a + b - 1) / b; }
inline uint32_t AlignUp(uint32_t a, uint32_t b) { return DivCeil(a, b) * b; }
constexpr inline uint32_t ConstCeil(uint32_t a, uint32_t b) { return (a + b - 1) / b; }

class AscendCUtils {
public:
    static inline int32_t GetBitSize(int32_t byteSize) { return byteSize * ONE_BYTE_BIT_SIZE; }
    static inline int32_t GetC0Size() { return ONE_BLK_SIZE; }
    static inline int32_t GetC0Count(const int32_t dtypeSize) { return ONE_BLK_SIZE / dtypeSize; }
    static inline void SetMask(const uint64_t& maskHigh, const uint64_t& maskLow) {
        kw::mask_register().hi = maskHigh;
        kw::mask_register().lo = maskLow;
    }
    template <typename T, bool isSetMask = true> static inline void SetMask(int32_t len) {
        if (!isSetMask) return;
        SetVectorMask<T>(len);
    }
    template <typename T> static inline void SetMaskCount() { AscendC::SetMaskCount(); }
    template <typename T> static inline void SetMaskNorm() { AscendC::SetMaskNorm(); }
    static inline void ResetMask() { AscendC::ResetMask(); }
};

struct TQueConfig {
    bool nd2nz = false;
    bool nz2nd = false;
    bool scmBlockGroup = false;
    uint32_t bufferLen = 0;
    uint32_t bufferNumber = 0;
    uint32_t consumerSize = 0;
    TPosition consumer[8] = {};
    bool enableStaticEvtId = false;
    bool enableLoopQueue = false;
};
constexpr TQueConfig GetTQueConfig(bool nd2nzIn, bool nz2ndIn, bool scmBlockGroupIn, uint32_t bufferLenIn, uint32_t bufferNumberIn,
                                   uint32_t consumerSizeIn, const TPosition consumerIn[], bool enableStaticEvtIdIn = false,
                                   bool enableLoopQueueIn = false) {
    TQueConfig c{};
    c.nd2nz = nd2nzIn;
    c.nz2nd = nz2ndIn;
    c.scmBlockGroup = scmBlockGroupIn;
    c.bufferLen = bufferLenIn;
    c.bufferNumber = bufferNumberIn;
    c.consumerSize = consumerSizeIn;
    for (uint32_t i = 0; i < consumerSizeIn && i < 8; ++i) c.consumer[i] = consumerIn[i];
    c.enableStaticEvtId = enableStaticEvtIdIn;
    c.enableLoopQueue = enableLoopQueueIn;
    return c;
}
constexpr TQueConfig GetTQueConfig(const int32_t mask) {
    TQueConfig c{};
    c.nd2nz = (mask & 1) != 0;
    c.nz2nd = (mask & 2) != 0;
    return c;
}
constexpr TQueConfig GetTQueConfig(const TQueConfig* conf) { return *conf; }
}  // namespace AscendC

namespace AscendC {
// The UB above the TPipe's buffers, as one tensor (what the high-level APIs use as scratch when
// no sharedTmpBuffer is given).
template <typename T, TPosition pos> inline bool PopStackBuffer(LocalTensor<T>& popLocal) {
    Hardware hw = kw::rt::hardware_of(pos);
    uint32_t start = (kw::rt::reserved_end(hw) + 31u) / 32u * 32u;
    uint32_t cap = kw::rt::arena_capacity(hw);
    popLocal.addr_ = start;
    popLocal.len_ = cap > start ? cap - start : 0;
    popLocal.pos_ = pos;
    popLocal.owner_ = nullptr;
    return popLocal.len_ > 0;
}
}  // namespace AscendC
