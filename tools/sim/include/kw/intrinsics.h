// Builtins that bisheng provides on the device and kernels sometimes call directly, and small
// scalar helpers of the AscendC namespace.
#pragma once
#include "kw/sync.h"

inline int64_t get_block_idx() { return kw::rt::block_idx(); }
inline int64_t get_block_num() { return kw::rt::block_num(); }
inline int64_t get_subblockid() { return kw::rt::sub_block_idx(); }
inline int64_t get_subblockdim() { return kw::rt::sub_block_num(); }
// bisheng's block-local variables `block_idx` / `block_num` (what GetBlockIdx()/GetBlockNum() read);
// here objects that read the running block's values wherever an integer is expected.
struct KwBlockIdxVar {
    operator int64_t() const { return kw::rt::block_idx(); }
};
struct KwBlockNumVar {
    operator int64_t() const { return kw::rt::block_num(); }
};
inline constexpr KwBlockIdxVar block_idx{};
inline constexpr KwBlockNumVar block_num{};

namespace AscendC {
inline float ToFloat(const bfloat16_t& v) { return static_cast<float>(v); }
inline bfloat16_t ToBfloat16(const float& v) { return bfloat16_t(v); }

// Cross-core flags (modes 0, 1, 2; the wait takes no mode): runtime/crosscore.cpp.
template <uint8_t modeId, pipe_t pipe> inline void CrossCoreSetFlag(uint16_t flagId) {
    kw::rt::cross_set(modeId, flagId, "CrossCoreSetFlag");
}
template <uint8_t modeId = 0, pipe_t pipe = PIPE_S> inline void CrossCoreWaitFlag(uint16_t flagId) {
    kw::rt::cross_wait(flagId, "CrossCoreWaitFlag");
}
}  // namespace AscendC

// bisheng's scalar min/max builtins: global overloads for each integer type, float and half, so a
// kernel may call an unqualified `min(a, b)` (Catlass code inlined into a kernel does); mixed
// argument types are ambiguous, as with the real compiler.
#define KW_SCALAR_MINMAX(T)                                  \
    inline T min(T a, T b) { return b < a ? b : a; }         \
    inline T max(T a, T b) { return a < b ? b : a; }
KW_SCALAR_MINMAX(long long)
KW_SCALAR_MINMAX(long)
KW_SCALAR_MINMAX(int)
KW_SCALAR_MINMAX(short)
KW_SCALAR_MINMAX(char)
KW_SCALAR_MINMAX(unsigned long long)
KW_SCALAR_MINMAX(unsigned long)
KW_SCALAR_MINMAX(unsigned int)
KW_SCALAR_MINMAX(unsigned short)
KW_SCALAR_MINMAX(unsigned char)
KW_SCALAR_MINMAX(float)
KW_SCALAR_MINMAX(half)
#undef KW_SCALAR_MINMAX
