// Fractal geometry of the cube unit and the checks shared by its instructions.
//
// A fractal is 512 bytes: 16 rows of C0 = 32 bytes (16 half, 8 float, 32 int8 elements).
// L1 holds matrices in NZ (fractals ordered column-block by column-block, each block a run of
// 16-row fractals, rows inside a fractal contiguous); L0A holds A in "zZ" (fractals row-major
// over [m/16, k/C0], each fractal row-major); L0B holds B in "nZ" (fractals row-major over
// [k/C0, n/16], each fractal stored n-major, i.e. transposed); L0C holds C in NZ with 16x16
// fractals of the accumulator type, column blocks of ceil(m/16) fractals. The emulation keeps
// exactly these byte layouts, so a wrong layout computes wrong numbers as it does on the NPU.
#pragma once
#include "kw/data_copy.h"

namespace kw::cube {
using AscendC::Hardware;
using AscendC::LocalTensor;
using AscendC::TPosition;

constexpr uint32_t kFractalBytes = 512;
constexpr uint32_t kRows = 16;  // rows of a fractal; also the n width of an L0B fractal and of L0C
template <class T> constexpr uint32_t c0() { return 32 / sizeof(T); }
inline uint32_t ceil_div(uint32_t a, uint32_t b) { return (a + b - 1) / b; }

inline const char* hw_list(Hardware a, Hardware b = Hardware::MAX) {
    static std::string s;
    s = std::string(rt::hardware_name(a)) + (b == Hardware::MAX ? "" : std::string(" or ") + rt::hardware_name(b));
    return s.c_str();
}

// The operand must live in the given physical memory (TPosition decides it, as on the NPU).
template <class T>
void require_hw(const LocalTensor<T>& t, Hardware want, Hardware alt, const char* api, const char* operand) {
    if (t.hw() == want || (alt != Hardware::MAX && t.hw() == alt)) return;
    rt::Diag("cube.position", api)
        .msg(std::string(api) + ": " + operand + " is a " + rt::position_name(t.pos_) + " tensor (" + rt::hardware_name(t.hw()) +
             "), but this instruction needs " + hw_list(want, alt))
        .val("position", rt::position_name(t.pos_)).val("hardware", rt::hardware_name(t.hw()))
        .hint("A1/B1 live in L1, A2 in L0A, B2 in L0B, CO1 in L0C, C2 in the bias table; take the tensor from a TQue/TBuf of "
              "that position (the CPU twin aborts with 'Failed to check ... tensor position')")
        .fatal();
}

// L0A/L0B operands start on a 512-byte boundary, L0C and the bias table on 64 bytes, L1 on 32.
template <class T> void require_cube_align(const LocalTensor<T>& t, const char* api, const char* operand) {
    Hardware h = t.hw();
    uint32_t align = h == Hardware::L0A || h == Hardware::L0B ? 512 : h == Hardware::L0C || h == Hardware::BIAS ? 64 : 32;
    if (t.addr_ % align == 0) return;
    rt::Diag("cube.align", api)
        .msg(std::string(api) + ": " + operand + " starts at " + rt::hardware_name(h) + " offset " + std::to_string(t.addr_) +
             ", which is not " + std::to_string(align) + "-byte aligned")
        .val("address", t.addr_).val("alignment", align)
        .hint("L0A/L0B addresses must be multiples of 512 bytes (one fractal), L0C and the bias table multiples of 64, L1 of 32; "
              "offset views by whole fractals (t[k * 512 / sizeof(T)])")
        .fatal();
}

inline void require_range(const char* api, const char* field, long long v, long long lo, long long hi) {
    if (v >= lo && v <= hi) return;
    rt::Diag("cube.param_range", api)
        .msg(std::string(api) + ": " + field + " = " + std::to_string(v) + " is outside [" + std::to_string(lo) + ", " +
             std::to_string(hi) + "]")
        .val(field, v)
        .hint("split the work into several instructions; the NPU truncates the field to its bit width")
        .fatal();
}

// Reports a byte range of a local tensor to the pipe tracker after a room check.
template <class T>
void touch(Pipe p, const LocalTensor<T>& t, uint64_t offset_bytes, uint64_t bytes, bool write, const char* api, const char* operand,
           const uint8_t* incoming = nullptr) {
    kw::require_room(t, offset_bytes + bytes, api, operand);
    rt::access_local(p, t.hw(), uint32_t(t.addr_ + offset_bytes), bytes, write, api, operand, incoming);
}

}  // namespace kw::cube
