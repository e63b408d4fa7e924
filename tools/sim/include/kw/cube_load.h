// Data movement into the cube unit: DataCopy GM->L1 with the ND->NZ conversion (MTE2),
// LoadData (2D) and LoadDataWithTranspose L1->L0A/L0B (MTE1), InitConstValue, and the L1->bias
// table copy. Geometry and layouts: see kw/cube_layout.h.
#pragma once
#include <cstring>
#include <vector>

#include "kw/cube_layout.h"
#include "kw/cube_params.h"

namespace kw::cube {

// ND -> NZ: element (r, c) of matrix i goes to column block c / C0, row r, lane c % C0.
// A partial last column block is zero-filled up to C0, since the DMA writes whole 32-byte rows.
template <class T>
void nd2nz(Pipe pipe, const LocalTensor<T>& dst, const uint8_t* src, bool src_is_gm, const AscendC::Nd2NzParams& p, const char* api) {
    if (p.ndNum == 0 || p.nValue == 0 || p.dValue == 0) return;
    require_hw(dst, Hardware::L1, Hardware::MAX, api, "dst");
    require_cube_align(dst, api, "dst");
    constexpr uint32_t C0 = c0<T>();
    const uint32_t blocks = ceil_div(p.dValue, C0);
    uint8_t* base = rt::arena(Hardware::L1) + dst.addr_;
    for (uint32_t i = 0; i < p.ndNum; ++i) {
        const uint8_t* s_mat = src + uint64_t(i) * p.srcNdMatrixStride * sizeof(T);
        uint64_t d_mat = uint64_t(i) * p.dstNzMatrixStride * sizeof(T);
        if (src_is_gm)  // one GM check per source row (its blocks are contiguous)
            for (uint32_t r = 0; r < p.nValue; ++r)
                rt::access_gm(pipe, s_mat + uint64_t(r) * p.srcDValue * sizeof(T), uint64_t(p.dValue) * sizeof(T), false, api, "src");
        for (uint32_t b = 0; b < blocks; ++b) {
            uint64_t d_blk = d_mat + uint64_t(b) * p.dstNzC0Stride * 32;
            uint32_t cols = b + 1 < blocks || p.dValue % C0 == 0 ? C0 : p.dValue % C0;
            if (p.dstNzNStride == 1) touch(pipe, dst, d_blk, uint64_t(p.nValue) * 32, true, api, "dst");
            for (uint32_t r = 0; r < p.nValue; ++r) {
                uint64_t d_row = d_blk + uint64_t(r) * p.dstNzNStride * 32;
                if (p.dstNzNStride != 1) touch(pipe, dst, d_row, 32, true, api, "dst");
                const uint8_t* s_row = s_mat + (uint64_t(r) * p.srcDValue + uint64_t(b) * C0) * sizeof(T);
                std::memcpy(base + d_row, s_row, cols * sizeof(T));
                std::memset(base + d_row + cols * sizeof(T), 0, (C0 - cols) * sizeof(T));
            }
        }
    }
    rt::count_copy(src_is_gm ? Hardware::GM : Hardware::UB, Hardware::L1, uint64_t(p.ndNum) * p.nValue * p.dValue * sizeof(T));
}

// Transposes one 512-byte fractal of 16 x C0 elements in place of a 16 x 16 b16 square.
inline void transpose_b16(uint8_t* dst, const uint8_t* src) {
    for (int r = 0; r < 16; ++r)
        for (int c = 0; c < 16; ++c) std::memcpy(dst + (c * 16 + r) * 2, src + (r * 16 + c) * 2, 2);
}

// b32: two 16x8 fractals side by side form a 16x16 square; b8: two 16x32 fractals stacked form
// a 32x32 square. The square is transposed and split back into two fractals the same way.
template <class T> void transpose_pair(uint8_t* out0, uint8_t* out1, const uint8_t* pair) {
    constexpr int E = sizeof(T);
    constexpr int N = E == 4 ? 16 : 32;  // square side
    auto in_at = [&](int r, int c) -> const uint8_t* {
        if (E == 4) return pair + (c < 8 ? (r * 8 + c) : 128 + r * 8 + (c - 8)) * E;
        return pair + (r * 32 + c) * E;  // stacked: rows 16..31 are the second fractal, contiguous
    };
    auto out_at = [&](int r, int c) -> uint8_t* {
        if (E == 4) return c < 8 ? out0 + (r * 8 + c) * E : out1 + (r * 8 + (c - 8)) * E;
        return r < 16 ? out0 + (r * 32 + c) * E : out1 + ((r - 16) * 32 + c) * E;
    };
    for (int r = 0; r < N; ++r)
        for (int c = 0; c < N; ++c) std::memcpy(out_at(c, r), in_at(r, c), E);
}

// The fractal walk of LoadData 2D from L1 (srcLocal given) or GM (srcLocal null).
template <class T>
void load2d(Pipe pipe, const LocalTensor<T>& dst, const LocalTensor<T>* srcLocal, const uint8_t* src, const AscendC::LoadData2DParams& p) {
    const char* api = "LoadData";
    require_cube_align(dst, api, "dst");
    if (srcLocal) require_cube_align(*srcLocal, api, "src");
    if (p.ifTranspose && sizeof(T) != 2)
        rt::Diag("cube.transpose_dtype", api)
            .msg(std::string("LoadData with ifTranspose = true on ") + dtype_name<T>() + ": the 2D load transposes only 16x16 "
                 "fractals of 2-byte types")
            .hint("use LoadDataWithTranspose (LoadData2dTransposeParams) for float/int32/int8 data")
            .fatal();
    for (uint32_t i = 0; i < p.repeatTimes; ++i) {
        uint64_t s = (uint64_t(p.startIndex) + uint64_t(i) * p.srcStride) * kFractalBytes;
        uint64_t d = uint64_t(i) * (1 + p.dstGap) * kFractalBytes;
        if (srcLocal) touch(pipe, *srcLocal, s, kFractalBytes, false, api, "src");
        else rt::access_gm(pipe, src + s, kFractalBytes, false, api, "src");
        touch(pipe, dst, d, kFractalBytes, true, api, "dst");
        uint8_t* dp = rt::arena(dst.hw()) + dst.addr_ + d;
        if (p.ifTranspose) transpose_b16(dp, src + s);
        else std::memmove(dp, src + s, kFractalBytes);
    }
    rt::count_copy(srcLocal ? Hardware::L1 : Hardware::GM, dst.hw(), uint64_t(p.repeatTimes) * kFractalBytes);
}

}  // namespace kw::cube

namespace AscendC {

template <typename T> inline void DataCopy(const LocalTensor<T>& dstLocal, const GlobalTensor<T>& srcGlobal, const Nd2NzParams& p) {
    kw::cube::nd2nz(kw::Pipe::MTE2, dstLocal, reinterpret_cast<const uint8_t*>(srcGlobal.addr_), true, p, "DataCopy(Nd2Nz)");
}
template <typename T> inline void DataCopy(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const Nd2NzParams& p) {
    kw::cube::touch(kw::Pipe::MTE3, srcLocal, 0, 32, false, "DataCopy(Nd2Nz)", "src");
    kw::cube::nd2nz(kw::Pipe::MTE3, dstLocal, reinterpret_cast<const uint8_t*>(srcLocal.ptr()), false, p, "DataCopy(Nd2Nz)");
}

// LoadData 2D: repeatTimes fractals; source fractal startIndex + i * srcStride, destination
// fractal i * (1 + dstGap); ifTranspose transposes each 16x16 b16 fractal (L1 -> L0B).
template <typename T> inline void LoadData(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const LoadData2DParams& p) {
    kw::cube::require_hw(srcLocal, Hardware::L1, Hardware::MAX, "LoadData", "src");
    kw::cube::require_hw(dstLocal, Hardware::L0A, Hardware::L0B, "LoadData", "dst");
    kw::cube::load2d(kw::Pipe::MTE1, dstLocal, &srcLocal, kw::rt::arena(Hardware::L1) + srcLocal.addr_, p);
}
// GM -> L1/L0 form: the same fractal walk over global memory, on MTE2.
template <typename T> inline void LoadData(const LocalTensor<T>& dstLocal, const GlobalTensor<T>& srcGlobal, const LoadData2DParams& p) {
    kw::cube::load2d<T>(kw::Pipe::MTE2, dstLocal, nullptr, reinterpret_cast<const uint8_t*>(srcGlobal.addr_), p);
}

// LoadDataWithTranspose: one square per repeat (b16: one 16x16 fractal; b32 and b8: two
// fractals merged into a square). Source square startIndex + i * srcStride, in units of the
// square. Repeat i's first destination fractal starts dstGap fractals after the end of repeat
// i-1's first fractal; the second fractal of a repeat starts dstFracGap fractals after the first ends.
template <typename T>
inline void LoadDataWithTranspose(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const LoadData2dTransposeParams& p) {
    const char* api = "LoadDataWithTranspose";
    namespace c = kw::cube;
    c::require_hw(srcLocal, Hardware::L1, Hardware::MAX, api, "src");
    c::require_hw(dstLocal, Hardware::L0B, Hardware::L0A, api, "dst");
    c::require_cube_align(srcLocal, api, "src");
    c::require_cube_align(dstLocal, api, "dst");
    constexpr bool pair = sizeof(T) != 2;
    const uint64_t square = pair ? 2 * c::kFractalBytes : c::kFractalBytes;
    for (uint32_t i = 0; i < p.repeatTimes; ++i) {
        uint64_t s = (uint64_t(p.startIndex) + uint64_t(i) * p.srcStride) * square;
        uint64_t d0 = uint64_t(i) * (1 + p.dstGap) * c::kFractalBytes;
        c::touch(kw::Pipe::MTE1, srcLocal, s, square, false, api, "src");
        c::touch(kw::Pipe::MTE1, dstLocal, d0, c::kFractalBytes, true, api, "dst");
        const uint8_t* sp = kw::rt::arena(Hardware::L1) + srcLocal.addr_ + s;
        uint8_t* dbase = kw::rt::arena(dstLocal.hw()) + dstLocal.addr_;
        if (!pair) {
            c::transpose_b16(dbase + d0, sp);
            continue;
        }
        uint64_t d1 = d0 + (1 + uint64_t(p.dstFracGap)) * c::kFractalBytes;
        c::touch(kw::Pipe::MTE1, dstLocal, d1, c::kFractalBytes, true, api, "dst");
        uint8_t tmp[1024];
        c::transpose_pair<T>(tmp, tmp + 512, sp);
        std::memcpy(dbase + d0, tmp, 512);
        std::memcpy(dbase + d1, tmp + 512, 512);
    }
    kw::rt::count_copy(Hardware::L1, dstLocal.hw(), uint64_t(p.repeatTimes) * square);
}

// Fills repeatTimes x blockNum blocks (512 bytes in L0A/L0B, 32 bytes in L1) with a constant,
// leaving dstGap blocks between repeats.
template <typename T, typename U = PrimT<T>, typename std::enable_if<IsSameType<PrimT<T>, U>::value, bool>::type = true>
inline void InitConstValue(const LocalTensor<T>& dstLocal, const InitConstValueParams<U>& p) {
    const char* api = "InitConstValue";
    namespace c = kw::cube;
    c::require_cube_align(dstLocal, api, "dst");
    const uint64_t block = dstLocal.hw() == Hardware::L1 ? 32 : c::kFractalBytes;
    const uint32_t per = p.blockNum ? p.blockNum : 1;
    for (uint32_t i = 0; i < p.repeatTimes; ++i) {
        uint64_t off = uint64_t(i) * (per + p.dstGap) * block;
        c::touch(kw::Pipe::MTE2, dstLocal, off, per * block, true, api, "dst");
        T* e = reinterpret_cast<T*>(kw::rt::arena(dstLocal.hw()) + dstLocal.addr_ + off);
        for (uint64_t k = 0; k < per * block / sizeof(T); ++k) e[k] = p.initValue;
    }
}

template <typename T> inline void SetLoadDataPaddingValue(const T) {}
inline void SetLoadDataBoundary(uint32_t) {}

}  // namespace AscendC

namespace kw {
// L1 -> bias table (C2): blockLen counts 64-byte units of the source; half sources are widened
// to the float bias table on the way, as the hardware does.
template <class D, class S>
void l1_to_bias(const LocalTensor<D>& dst, const LocalTensor<S>& src, uint32_t blocks, uint32_t blockLen, uint32_t srcGap,
                uint32_t dstGap) {
    const char* api = "DataCopy(L1->BT)";
    cube::require_hw(src, AscendC::Hardware::L1, AscendC::Hardware::MAX, api, "src");
    cube::require_cube_align(dst, api, "dst");
    const uint64_t n = uint64_t(blockLen) * 64 / sizeof(S);  // elements per burst
    for (uint32_t b = 0; b < blocks; ++b) {
        uint64_t s = uint64_t(b) * (uint64_t(blockLen) + srcGap) * 64, d = uint64_t(b) * (n * sizeof(D) + uint64_t(dstGap) * 64);
        cube::touch(Pipe::MTE1, src, s, n * sizeof(S), false, api, "src");
        const S* sp = reinterpret_cast<const S*>(rt::arena(src.hw()) + src.addr_ + s);
        std::vector<D> converted(n);
        for (uint64_t e = 0; e < n; ++e) converted[e] = static_cast<D>(static_cast<acc_t<S>>(sp[e]));
        cube::touch(Pipe::MTE1, dst, d, n * sizeof(D), true, api, "dst", reinterpret_cast<const uint8_t*>(converted.data()));
        std::memcpy(rt::arena(dst.hw()) + dst.addr_ + d, converted.data(), n * sizeof(D));
    }
    rt::count_copy(src.hw(), dst.hw(), uint64_t(blocks) * blockLen * 64);
}
}  // namespace kw
