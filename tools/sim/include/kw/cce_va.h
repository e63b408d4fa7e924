// bisheng's VA (vector address) registers and the raw vector builtins kernels call on `__ubuf__`
// pointers around them (cann-ops AddLayerNorm broadcasts a column with vtranspose + vor +
// scatter_vnchwconv_b16). VA0..VA7 each hold 8 UB addresses (set_va_reg_sb); the vnchwconv
// instructions take a pair, VAn and VAn+1, as the 16 addresses of a list (dav_c220
// kernel_operator_vec_transpose_impl.h: scatter_vnchwconv_b16(VA0, VA2, repeat, dstStride, srcStride)
// after VA0/VA1 = dst list, VA2/VA3 = src list). Each builtin turns the pointers back into UB tensors
// and runs the checked AscendC instruction, so bounds, hazards and the mask register behave as there.
#pragma once
#include "kw/vec_transdata.h"

enum ub_addr8_t { VA0 = 0, VA1, VA2, VA3, VA4, VA5, VA6, VA7 };

namespace kw {
struct VaRegisters {
    uint64_t regs[8][8] = {};
};
inline VaRegisters& va_registers() {
    static VaRegisters r;
    return r;
}
// The 16 addresses of a list: VAn then VAn+1 (VA7 has no partner).
template <class T> inline void va_list(ub_addr8_t first, T* (&list)[16], const char* api) {
    if (int(first) > int(VA6))
        rt::Diag("cce.address", api)
            .msg(std::string(api) + " takes a list in VA" + std::to_string(int(first)) + " and the next register, and VA7 is the last")
            .hint("pass VA0, VA2, VA4 or VA6 (each list is a register pair)").fatal();
    for (int i = 0; i < 16; ++i) list[i] = reinterpret_cast<T*>(va_registers().regs[int(first) + i / 8][i % 8]);
}
template <class T>
inline void vnchwconv(ub_addr8_t dst, ub_addr8_t src, uint8_t repeat, uint16_t dstStride, uint16_t srcStride, bool dstHigh, bool srcHigh,
                      const char* api) {
    T* d[16];
    T* s[16];
    va_list<T>(dst, d, api);
    va_list<T>(src, s, api);
    kw::transdata_5hd<T>(d, s, AscendC::TransDataTo5HDParams(dstHigh, srcHigh, repeat, dstStride, srcStride), api);
}
}  // namespace kw

inline void set_va_reg_sb(ub_addr8_t addr, uint64_t* array) {
    for (int i = 0; i < 8; ++i) kw::va_registers().regs[int(addr)][i] = array[i];
    kw::rt::count_scalar("set_va_reg_sb");
}
inline void scatter_vnchwconv_b16(ub_addr8_t dst, ub_addr8_t src, uint8_t repeat, uint16_t dstStride, uint16_t srcStride) {
    kw::vnchwconv<uint16_t>(dst, src, repeat, dstStride, srcStride, false, false, "scatter_vnchwconv_b16");
}
inline void scatter_vnchwconv_b32(ub_addr8_t dst, ub_addr8_t src, uint8_t repeat, uint16_t dstStride, uint16_t srcStride) {
    kw::vnchwconv<uint32_t>(dst, src, repeat, dstStride, srcStride, false, false, "scatter_vnchwconv_b32");
}
inline void scatter_vnchwconv_b8(ub_addr8_t dst, ub_addr8_t src, uint8_t repeat, uint16_t dstStride, uint16_t srcStride, bool dstHighHalf,
                                 bool srcHighHalf) {
    kw::vnchwconv<uint8_t>(dst, src, repeat, dstStride, srcStride, dstHighHalf, srcHighHalf, "scatter_vnchwconv_b8");
}

// vtranspose(dst, src): the 16x16 transpose of 2-byte elements (AscendC::Transpose's instruction).
inline void vtranspose(uint16_t* dst, uint16_t* src) {
    AscendC::Transpose(kw::ub_view<uint16_t>(dst, "vtranspose", "dst"), kw::ub_view<uint16_t>(src, "vtranspose", "src"));
}

// vor(dst, src0, src1, repeat, dstBlk, src0Blk, src1Blk, dstRep, src0Rep, src1Rep) under the mask register.
template <typename T>
inline void vor(T* dst, T* src0, T* src1, uint8_t repeat, uint16_t dstBlk, uint16_t src0Blk, uint16_t src1Blk, uint16_t dstRep,
                uint16_t src0Rep, uint16_t src1Rep) {
    AscendC::BinaryRepeatParams p(dstBlk, src0Blk, src1Blk, dstRep, src0Rep, src1Rep);
    AscendC::Or<T, false>(kw::ub_view<T>(dst, "vor", "dst"), kw::ub_view<T>(src0, "vor", "src0"), kw::ub_view<T>(src1, "vor", "src1"),
                          uint64_t(0), repeat, p);
}

// vector_dup(dst, value, repeat, dstBlk, srcBlk, dstRep, srcRep) under the mask register (the src
// strides belong to the scalar operand and have no effect).
template <typename T>
inline void vector_dup(T* dst, T value, uint8_t repeat, uint16_t dstBlk, uint16_t srcBlk, uint8_t dstRep, uint8_t srcRep) {
    (void)srcBlk;
    (void)srcRep;
    AscendC::Duplicate<T, false>(kw::ub_view<T>(dst, "vector_dup", "dst"), value, uint64_t(0), repeat, dstBlk, dstRep);
}

// copy_ubuf_to_ubuf(dst, src, sid, nBurst, lenBurst, srcGap, dstGap): lengths and gaps in 32-byte blocks.
inline void copy_ubuf_to_ubuf(void* dst, void* src, uint8_t sid, uint16_t nBurst, uint16_t lenBurst, uint16_t srcGap, uint16_t dstGap) {
    (void)sid;
    AscendC::DataCopy(kw::ub_view<uint8_t>(static_cast<uint8_t*>(dst), "copy_ubuf_to_ubuf", "dst"),
                      kw::ub_view<uint8_t>(static_cast<uint8_t*>(src), "copy_ubuf_to_ubuf", "src"),
                      AscendC::DataCopyParams(nBurst, lenBurst, srcGap, dstGap));
}
