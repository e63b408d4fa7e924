// Builtins that bisheng provides on the device and kernels sometimes call directly, and small
// scalar helpers of the AscendC namespace.
#pragma once
#include "kw/sync.h"

inline int64_t get_block_idx() { return kw::rt::block_idx(); }
inline int64_t get_block_num() { return kw::rt::block_num(); }
inline int64_t get_subblockid() { return kw::rt::sub_block_idx(); }
inline int64_t get_subblockdim() { return kw::rt::sub_block_num(); }

namespace AscendC {
inline float ToFloat(const bfloat16_t& v) { return static_cast<float>(v); }
inline bfloat16_t ToBfloat16(const float& v) { return bfloat16_t(v); }

// Cross-core flags pair AIC and AIV cores of a mix kernel; a vector-only launch has no partner
// core, so they only order this core's pipes here.
template <uint8_t modeId, pipe_t pipe> inline void CrossCoreSetFlag(uint16_t flagId) {
    kw::rt::count_sync("CrossCoreSetFlag");
    (void)flagId;
}
template <uint8_t modeId = 0, pipe_t pipe = PIPE_S> inline void CrossCoreWaitFlag(uint16_t flagId) {
    kw::rt::count_sync("CrossCoreWaitFlag");
    (void)flagId;
}
}  // namespace AscendC
