// The cube unit's compute and write-back: Mmad (L0A x L0B -> L0C on the M pipe) and Fixpipe
// (L0C -> GM or L1 on the FIX pipe, NZ -> ND, dequantisation, ReLU). Layouts: kw/cube_layout.h.
#pragma once
#include <algorithm>
#include <vector>
#include "kw/cube_load.h"

namespace kw::cube {

template <class D, class A, class B> constexpr bool mmad_types_ok() {
    using AscendC::IsSameType;
    return (IsSameType<D, float>::value && IsSameType<A, half>::value && IsSameType<B, half>::value) ||
           (IsSameType<D, float>::value && IsSameType<A, bfloat16_t>::value && IsSameType<B, bfloat16_t>::value) ||
           (IsSameType<D, float>::value && IsSameType<A, float>::value && IsSameType<B, float>::value) ||
           (IsSameType<D, int32_t>::value && IsSameType<A, int8_t>::value && IsSameType<B, int8_t>::value) ||
           (IsSameType<D, int32_t>::value && IsSameType<A, uint8_t>::value && IsSameType<B, int8_t>::value);
}

// An operand element widened to the accumulator type (half through a lookup table: the host has
// no half arithmetic, and a soft-float call per element would cost more than the multiply-adds).
template <class Acc, class T> inline Acc widen(T v, const float* half_table) {
    if constexpr (std::is_same<T, half>::value) {
        uint16_t bits;
        std::memcpy(&bits, &v, sizeof bits);
        return Acc(half_table[bits]);
    } else {
        return Acc(acc_t<T>(v));
    }
}

// Geometry of one Mmad: fractal counts per axis and the k width of an L0A fractal row.
struct MmadShape {
    uint32_t m, n, k, mb, nb, kba, kbb, c0a, c0b;
};

template <class D, class A, class B>
void mmad(const LocalTensor<D>& c, const LocalTensor<A>& a, const LocalTensor<B>& b, const float* bias, const AscendC::MmadParams& p,
          const char* api) {
    require_hw(c, Hardware::L0C, Hardware::MAX, api, "dst (C matrix)");
    require_hw(a, Hardware::L0A, Hardware::MAX, api, "fm (A matrix)");
    require_hw(b, Hardware::L0B, Hardware::MAX, api, "filter (B matrix)");
    require_cube_align(c, api, "dst");
    require_cube_align(a, api, "fm");
    require_cube_align(b, api, "filter");
    require_range(api, "m", p.m, 0, 4095);
    require_range(api, "n", p.n, 0, 4095);
    require_range(api, "k", p.k, 0, 4095);
    if (p.m == 0 || p.n == 0 || p.k == 0) return;
    MmadShape s{p.m, p.n, p.k, ceil_div(p.m, kRows), ceil_div(p.n, kRows), 0, 0, c0<A>(), c0<B>()};
    // fp32 A with kDirectionAlign: L0A rows are padded to 16 k (two 8-wide fractals)
    s.kba = std::is_same<A, float>::value && p.kDirectionAlign ? 2 * ceil_div(p.k, 16) : ceil_div(p.k, s.c0a);
    s.kbb = ceil_div(p.k, s.c0b);
    touch(Pipe::M, a, 0, uint64_t(s.mb) * s.kba * kFractalBytes, false, api, "fm");
    touch(Pipe::M, b, 0, uint64_t(s.kbb) * s.nb * kFractalBytes, false, api, "filter");
    const uint64_t c_bytes = uint64_t(s.mb) * s.nb * kRows * kRows * sizeof(D);
    bool accumulate = bias == nullptr && (!p.cmatrixInitVal || p.isBias);
    if (accumulate) touch(Pipe::M, c, 0, c_bytes, false, api, "dst");
    touch(Pipe::M, c, 0, c_bytes, true, api, "dst");
    const A* ap = reinterpret_cast<const A*>(rt::arena(Hardware::L0A) + a.addr_);
    const B* bp = reinterpret_cast<const B*>(rt::arena(Hardware::L0B) + b.addr_);
    D* cp = reinterpret_cast<D*>(rt::arena(Hardware::L0C) + c.addr_);
    using Acc = typename std::conditional<std::is_same<D, int32_t>::value, int32_t, float>::type;
    // Unpack the zZ / nZ fractals into row-major A (m x k) and B (k x n), multiply on the host's
    // vector unit, then write the NZ accumulator: each sum runs over k in order, from zero.
    std::vector<Acc> am(size_t(p.m) * p.k), bm(size_t(p.k) * p.n), cm(size_t(p.m) * p.n, Acc(0));
    const float* ht = rt::half_to_float_table();
    for (uint32_t row = 0; row < p.m; ++row) {
        const A* arow = ap + uint64_t(row / kRows) * s.kba * kRows * s.c0a + (row % kRows) * s.c0a;
        Acc* dst = am.data() + uint64_t(row) * p.k;
        for (uint32_t kk = 0; kk < p.k; ++kk) dst[kk] = widen<Acc>(arow[uint64_t(kk / s.c0a) * kRows * s.c0a + kk % s.c0a], ht);
    }
    for (uint32_t kk = 0; kk < p.k; ++kk) {  // B row kk, from its n-major fractals
        const B* bk = bp + uint64_t(kk / s.c0b) * s.nb * kRows * s.c0b + kk % s.c0b;
        Acc* dst = bm.data() + uint64_t(kk) * p.n;
        for (uint32_t col = 0; col < p.n; ++col) dst[col] = widen<Acc>(bk[uint64_t(col / kRows) * kRows * s.c0b + (col % kRows) * s.c0b], ht);
    }
    if constexpr (std::is_same<Acc, float>::value) rt::gemm_f32(cm.data(), am.data(), bm.data(), p.m, p.n, p.k);
    else rt::gemm_i32(cm.data(), am.data(), bm.data(), p.m, p.n, p.k);
    for (uint32_t row = 0; row < p.m; ++row)
        for (uint32_t col = 0; col < p.n; ++col) {
            const Acc sum = cm[uint64_t(row) * p.n + col];
            D& out = cp[(uint64_t(col / kRows) * s.mb + row / kRows) * kRows * kRows + (row % kRows) * kRows + col % kRows];
            out = bias ? D(bias[col] + sum) : accumulate ? D(out + sum) : D(sum);
        }
    rt::count_cube(api, dtype_name<A>(), uint64_t(s.mb) * s.nb * std::max(s.kba, s.kbb), uint64_t(p.m) * p.n * p.k, p.m, p.n, p.k);
}

// One accumulator value through the fixpipe: optional ReLU, then the quantisation mode's conversion.
template <class Dst, class Src> Dst fix_convert(Src v, bool relu, QuantMode_t q, uint64_t deq, const char* api) {
    if (relu && v < Src(0)) v = Src(0);
    float scale = __builtin_bit_cast(float, uint32_t(deq & 0xffffffffu));
    switch (q) {
        case NoQuant: case F322F16: case F322BF16: return static_cast<Dst>(static_cast<acc_t<Src>>(v));
        case DEQF16: case VDEQF16: return static_cast<Dst>(float(v) * scale);
        case REQ8: case VREQ8: {
            float f = std::nearbyint(float(v) * scale);
            return static_cast<Dst>(f > 127.f ? 127.f : f < -128.f ? -128.f : f);
        }
        default:
            rt::Diag("cube.quant_mode", api)
                .msg("Fixpipe quantisation mode " + std::to_string(int(q)) + " is not emulated")
                .hint("supported here: NoQuant, F322F16, F322BF16, DEQF16/VDEQF16, REQ8/VREQ8").fatal();
    }
}

// Walks an mSize x nSize block of the L0C NZ matrix (column blocks srcStride rows apart) and
// hands each element with its row/column to `put`.
template <class Src, class Put>
void fix_walk(const LocalTensor<Src>& src, const AscendC::FixpipeParamsV220& p, const char* api, Put put) {
    require_hw(src, Hardware::L0C, Hardware::MAX, api, "src");
    require_cube_align(src, api, "src");
    if (p.mSize == 0 || p.nSize == 0) return;
    if (p.srcStride < p.mSize && ceil_div(p.nSize, kRows) > 1)
        rt::Diag("cube.fixpipe_stride", api)
            .msg("Fixpipe srcStride " + std::to_string(p.srcStride) + " is smaller than mSize " + std::to_string(p.mSize) +
                 ": the column blocks of the L0C matrix would overlap")
            .val("srcStride", p.srcStride).val("mSize", p.mSize)
            .hint("srcStride is the distance between 16-column blocks of L0C in rows: the m of the Mmad rounded up to 16")
            .fatal();
    const uint32_t nd = p.ndNum ? p.ndNum : 1;
    const Src* s = reinterpret_cast<const Src*>(rt::arena(Hardware::L0C) + src.addr_);
    for (uint32_t i = 0; i < nd; ++i) {
        uint64_t base = uint64_t(i) * p.srcNdStride * kRows * kRows;
        for (uint32_t blk = 0; blk < ceil_div(p.nSize, kRows); ++blk) {
            uint64_t off = base + uint64_t(blk) * p.srcStride * kRows;
            touch(Pipe::FIX, src, off * sizeof(Src), uint64_t(p.mSize) * kRows * sizeof(Src), false, api, "src");
        }
        for (uint32_t r = 0; r < p.mSize; ++r)
            for (uint32_t col = 0; col < p.nSize; ++col)
                put(i, r, col, s[base + uint64_t(col / kRows) * p.srcStride * kRows + uint64_t(r) * kRows + col % kRows]);
    }
}

// Destination element offset for the three output layouts.
inline uint64_t fix_dst_offset(AscendC::CO2Layout f, const AscendC::FixpipeParamsV220& p, uint32_t i, uint32_t r, uint32_t col,
                               size_t elem) {
    uint64_t nd = uint64_t(i) * p.dstNdStride;
    if (f == AscendC::CO2Layout::ROW_MAJOR) return nd + uint64_t(r) * p.dstStride + col;
    if (f == AscendC::CO2Layout::COLUMN_MAJOR) return nd + uint64_t(col) * p.dstStride + r;
    // NZ: 16-wide column blocks, dstStride counted in 32-byte units between blocks
    return nd + uint64_t(col / kRows) * p.dstStride * (32 / elem) + uint64_t(r) * kRows + col % kRows;
}

inline void fix_order_unit_flag(uint8_t unitFlag) {
    if (unitFlag) rt::acquire(Pipe::FIX, rt::release(Pipe::M));  // the unit flag hands L0C over per fractal
}

// L0C -> GM; deq(col) is the quantisation word of output column col. GM atomics apply.
template <class DstT, class SrcT, class Deq>
void fix_to_gm(AscendC::CO2Layout f, DstT* g, const LocalTensor<SrcT>& src, const AscendC::FixpipeParamsV220& p, Deq deq) {
    const char* api = "Fixpipe";
    fix_order_unit_flag(p.unitFlag);
    uint64_t bytes = 0;
    const int atomic = rt::atomic_mode();
    fix_walk(src, p, api, [&](uint32_t i, uint32_t r, uint32_t col, SrcT v) {
        DstT* e = g + fix_dst_offset(f, p, i, r, col, sizeof(DstT));
        rt::access_gm(Pipe::FIX, e, sizeof(DstT), true, api, "dst");
        DstT out = fix_convert<DstT>(v, p.reluEn, p.quantPre, deq(col), api);
        if (atomic == 0) {
            *e = out;
        } else {
            acc_t<DstT> a = acc_t<DstT>(*e), b = acc_t<DstT>(out);
            *e = DstT(atomic == 1 ? a + b : atomic == 2 ? (a > b ? a : b) : (a < b ? a : b));
        }
        bytes += sizeof(DstT);
    });
    rt::count_copy(Hardware::L0C, Hardware::GM, bytes);
}

// L0C -> L1.
template <class DstT, class SrcT, class Deq>
void fix_to_l1(AscendC::CO2Layout f, const LocalTensor<DstT>& dst, const LocalTensor<SrcT>& src, const AscendC::FixpipeParamsV220& p,
               Deq deq) {
    const char* api = "Fixpipe";
    require_hw(dst, Hardware::L1, Hardware::MAX, api, "dst");
    require_cube_align(dst, api, "dst");
    fix_order_unit_flag(p.unitFlag);
    uint64_t bytes = 0;
    fix_walk(src, p, api, [&](uint32_t i, uint32_t r, uint32_t col, SrcT v) {
        uint64_t off = fix_dst_offset(f, p, i, r, col, sizeof(DstT)) * sizeof(DstT);
        touch(Pipe::FIX, dst, off, sizeof(DstT), true, api, "dst");
        *reinterpret_cast<DstT*>(rt::arena(Hardware::L1) + dst.addr_ + off) = fix_convert<DstT>(v, p.reluEn, p.quantPre, deq(col), api);
        bytes += sizeof(DstT);
    });
    rt::count_copy(Hardware::L0C, Hardware::L1, bytes);
}

template <class BufT> const BufT* fix_scales(const LocalTensor<BufT>& cbuf, const AscendC::FixpipeParamsV220& p) {
    touch(Pipe::FIX, cbuf, 0, uint64_t(p.nSize) * sizeof(BufT), false, "Fixpipe", "cbufWorkspace");
    return reinterpret_cast<const BufT*>(rt::arena(cbuf.hw()) + cbuf.addr_);
}

}  // namespace kw::cube

namespace AscendC {

template <typename DstT, typename Src0T, typename Src1T>
inline void Mmad(const LocalTensor<DstT>& dstLocal, const LocalTensor<Src0T>& fmLocal, const LocalTensor<Src1T>& filterLocal,
                 const MmadParams& mmadParams) {
    static_assert(kw::cube::mmad_types_ok<DstT, Src0T, Src1T>(),
                  "Failed to check dtype in Mmad, current api support dtype combination is dst float with src half/half, "
                  "bfloat16_t/bfloat16_t or float/float, and dst int32_t with src int8_t/int8_t.");
    if (mmadParams.unitFlag) kw::rt::acquire(kw::Pipe::M, kw::rt::release(kw::Pipe::FIX));
    kw::cube::mmad(dstLocal, fmLocal, filterLocal, nullptr, mmadParams, "Mmad");
}

// With a bias-table operand the C matrix starts from the bias row instead of zero or L0C.
template <typename DstT, typename Src0T, typename Src1T, typename BiasT>
inline void Mmad(const LocalTensor<DstT>& dstLocal, const LocalTensor<Src0T>& fmLocal, const LocalTensor<Src1T>& filterLocal,
                 const LocalTensor<BiasT>& biasLocal, const MmadParams& mmadParams) {
    static_assert(kw::cube::mmad_types_ok<DstT, Src0T, Src1T>(),
                  "Failed to check dtype in Mmad, current api support dtype combination is dst float with src half/half, "
                  "bfloat16_t/bfloat16_t or float/float, and dst int32_t with src int8_t/int8_t.");
    kw::cube::require_hw(biasLocal, Hardware::BIAS, Hardware::MAX, "Mmad", "bias");
    kw::cube::require_cube_align(biasLocal, "Mmad", "bias");
    kw::cube::touch(kw::Pipe::M, biasLocal, 0, uint64_t(mmadParams.n) * sizeof(BiasT), false, "Mmad", "bias");
    std::vector<float> bias(mmadParams.n);
    const BiasT* bp = reinterpret_cast<const BiasT*>(kw::rt::arena(Hardware::BIAS) + biasLocal.addr_);
    for (uint32_t i = 0; i < mmadParams.n; ++i) bias[i] = float(kw::acc_t<BiasT>(bp[i]));
    if (mmadParams.unitFlag) kw::rt::acquire(kw::Pipe::M, kw::rt::release(kw::Pipe::FIX));
    kw::cube::mmad(dstLocal, fmLocal, filterLocal, bias.data(), mmadParams, "Mmad");
}

template <typename DstT, typename SrcT, const FixpipeConfig& config = CFG_ROW_MAJOR>
inline void Fixpipe(const GlobalTensor<DstT>& dstGlobal, const LocalTensor<SrcT>& srcLocal, const FixpipeParamsV220& p) {
    kw::cube::fix_to_gm(config.format, dstGlobal.addr_, srcLocal, p, [&](uint32_t) { return p.deqScalar; });
}
template <typename DstT, typename SrcT, const FixpipeConfig& config = CFG_ROW_MAJOR>
inline void Fixpipe(const LocalTensor<DstT>& dstLocal, const LocalTensor<SrcT>& srcLocal, const FixpipeParamsV220& p) {
    kw::cube::fix_to_l1(config.format, dstLocal, srcLocal, p, [&](uint32_t) { return p.deqScalar; });
}

// Forms with a per-channel quantisation vector in L1 (uint64 per output column; its low 32 bits
// hold the float scale).
template <typename DstT, typename SrcT, const FixpipeConfig& config = CFG_ROW_MAJOR, typename BufT = uint64_t,
          typename std::enable_if<IsSameType<PrimT<BufT>, uint64_t>::value, bool>::type = true>
inline void Fixpipe(const GlobalTensor<DstT>& dstGlobal, const LocalTensor<SrcT>& srcLocal, const LocalTensor<BufT>& cbufWorkspace,
                    const FixpipeParamsV220& p) {
    const BufT* q = kw::cube::fix_scales(cbufWorkspace, p);
    kw::cube::fix_to_gm(config.format, dstGlobal.addr_, srcLocal, p, [&](uint32_t col) { return uint64_t(q[col]); });
}
template <typename DstT, typename SrcT, const FixpipeConfig& config = CFG_ROW_MAJOR, typename BufT = uint64_t,
          typename std::enable_if<IsSameType<PrimT<BufT>, uint64_t>::value, bool>::type = true>
inline void Fixpipe(const LocalTensor<DstT>& dstLocal, const LocalTensor<SrcT>& srcLocal, const LocalTensor<BufT>& cbufWorkspace,
                    const FixpipeParamsV220& p) {
    const BufT* q = kw::cube::fix_scales(cbufWorkspace, p);
    kw::cube::fix_to_l1(config.format, dstLocal, srcLocal, p, [&](uint32_t col) { return uint64_t(q[col]); });
}

// Fixpipe configuration registers: the parameters above carry everything the emulation needs.
template <typename T> inline void SetFixPipeConfig(const LocalTensor<T>&, const LocalTensor<T>&, bool = false) {}
template <typename T, bool setRelu = false> inline void SetFixPipeConfig(const LocalTensor<T>&, bool = false) {}
inline void SetFixpipeNz2ndFlag(uint16_t, uint16_t, uint16_t) {}
inline void SetFixpipePreQuantFlag(uint64_t) {}
inline void SetFixPipeClipRelu(uint64_t) {}
template <typename T> inline void SetFixPipeAddr(const LocalTensor<T>&, uint16_t) {}

}  // namespace AscendC
