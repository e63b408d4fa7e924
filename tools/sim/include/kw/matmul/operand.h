// A matrix operand of the Matmul API: where it is (GM, a local tensor, or a scalar), how it is
// stored (ND rows or NZ fractal columns) and whether the stored matrix is the transpose of the
// logical one. Reads go through the GM bounds/race checks or the local tensor's extent.
#pragma once
#include <vector>
#include "kw/matmul/checks.h"

namespace kw::mm {

template <class T> struct Operand {
    const T* base = nullptr;
    bool set = false, gm = false, scalar = false, nz = false, trans = false;
    T value{};
    uint64_t ld = 0;            // ND: row stride of the stored matrix; NZ: stored rows rounded up to 16
    uint64_t local_elems = 0;   // elements a local tensor holds from base
    const char* name = "A";

    uint64_t index(uint64_t sr, uint64_t sc) const {
        constexpr uint64_t C0 = 32 / sizeof(T);
        return nz ? (sc / C0) * ld * C0 + sr * C0 + sc % C0 : sr * ld + sc;
    }
    // element (r, c) of the logical matrix
    T at(uint64_t r, uint64_t c) const {
        if (scalar) return value;
        return trans ? base[index(c, r)] : base[index(r, c)];
    }

    // Checks the logical block [r0, r0+rows) x [c0, c0+cols) lies in the operand's memory.
    void check_block(uint64_t r0, uint64_t rows, uint64_t c0, uint64_t cols, const char* api) const {
        if (scalar || rows == 0 || cols == 0) return;
        uint64_t sr0 = trans ? c0 : r0, srows = trans ? cols : rows, sc0 = trans ? r0 : c0, scols = trans ? rows : cols;
        constexpr uint64_t C0 = 32 / sizeof(T);
        if (!gm) {
            uint64_t last = index(sr0 + srows - 1, sc0 + scols - 1);
            if (nz) last = index(sr0 + srows - 1, (sc0 + scols - 1) / C0 * C0 + C0 - 1);
            if (last >= local_elems)
                fail("mm.local_size", api,
                     std::string("matrix ") + name + " is a local tensor of " + s((long long)local_elems) + " elements, but the block at (" +
                         s((long long)r0) + ", " + s((long long)c0) + ") of " + s((long long)rows) + "x" + s((long long)cols) +
                         " reaches element " + s((long long)last),
                     "the local tensor must hold the whole single-core matrix (SetSingleShape / the tiling's singleCore shape)");
            return;
        }
        if (!nz) {
            for (uint64_t r = sr0; r < sr0 + srows; ++r)
                rt::access_gm(Pipe::S, base + index(r, sc0), scols * sizeof(T), false, api, name);
            return;
        }
        for (uint64_t blk = sc0 / C0; blk <= (sc0 + scols - 1) / C0; ++blk)
            rt::access_gm(Pipe::S, base + index(sr0, blk * C0), srows * C0 * sizeof(T), false, api, name);
    }
};

// HF32 keeps 11 mantissa bits of a float input (round to nearest even).
inline float to_hf32(float f) {
    uint32_t u = __builtin_bit_cast(uint32_t, f);
    if ((u & 0x7f800000u) == 0x7f800000u) return f;
    u = (u + 0x7ffu + ((u >> 12) & 1u)) & ~0xfffu;
    return __builtin_bit_cast(float, u);
}

}  // namespace kw::mm
