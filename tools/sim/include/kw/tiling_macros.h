// Kernel-side tiling access for msopgen projects: GET_TILING_DATA copies the tiling bytes the
// host TilingFunc saved into the struct that kernelwright generated from the host layout.
#pragma once
#include "kw/runtime.h"

namespace kw {
template <class T> inline void init_tiling(T* out, const uint8_t* tiling, size_t offset = 0, size_t bytes = sizeof(T)) {
    rt::access_gm(Pipe::S, tiling + offset, bytes, false, "GET_TILING_DATA", "tiling");
    std::memcpy(reinterpret_cast<uint8_t*>(out), tiling + offset, bytes);
}
}  // namespace kw

#ifdef KW_DEFAULT_TILING_TYPE
#define GET_TILING_DATA(tiling_data, tiling_arg) \
    KW_DEFAULT_TILING_TYPE tiling_data;          \
    ::kw::init_tiling(&tiling_data, reinterpret_cast<const uint8_t*>(tiling_arg))
#endif
#define GET_TILING_DATA_WITH_STRUCT(tiling_struct, tiling_data, tiling_arg) \
    tiling_struct tiling_data;                                              \
    ::kw::init_tiling(&tiling_data, reinterpret_cast<const uint8_t*>(tiling_arg))
#define GET_TILING_DATA_MEMBER(tiling_type, member, var, tiling)                                                      \
    decltype(tiling_type::member) var;                                                                                 \
    ::kw::init_tiling(&var, reinterpret_cast<const uint8_t*>(tiling), offsetof(tiling_type, member), sizeof(var))
#define GET_TILING_DATA_PTR_WITH_STRUCT(tiling_struct, dst_ptr, tiling_ptr) \
    const tiling_struct* dst_ptr = reinterpret_cast<const tiling_struct*>(tiling_ptr)
