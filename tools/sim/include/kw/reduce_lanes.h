// Lane grids and accumulation order of the vector reductions (device order: adjacent-pair trees,
// every add rounded to T); shared by the mask/repeat forms and the whole-tensor forms in vec_reduce.h.
#pragma once
#include "kw/vec_operands.h"

namespace kw {
using AscendC::ReduceOrder;

// The special registers read by GetReduceMaxMinCount / GetAccVal.
struct ReduceRegisters {
    uint32_t value_bits = 0, index_bits = 0;  // last max/min value and index, as bits of T
    uint32_t acc_bits = 0;                    // last ReduceSum (count form) result, as bits of T
};
inline ReduceRegisters& reduce_registers() {
    static ReduceRegisters r;
    return r;
}
template <class T> inline uint32_t bits_of(T v) {
    uint32_t b = 0;
    std::memcpy(&b, &v, sizeof(T));
    return b;
}
template <class T> inline T from_bits(uint32_t b) {
    T v;
    std::memcpy(&v, &b, sizeof(T));
    return v;
}
template <class T> inline T add_rounded(T a, T b) { return T(acc_t<T>(a) + acc_t<T>(b)); }

// Adjacent-pair binary tree over n (a power of two) values, rounding every add to T.
template <class T> inline T tree_sum(std::vector<T> v) {
    for (size_t w = v.size() / 2; w >= 1; w /= 2)
        for (size_t i = 0; i < w; ++i) v[i] = add_rounded(v[2 * i], v[2 * i + 1]);
    return v.empty() ? T(0) : v[0];
}

// Later rounds of a reduction: the partial results are reduced again, `lanes` at a time
// (zero-padded), until one value is left.
template <class T> inline T tree_rounds(std::vector<T> part, size_t lanes) {
    while (part.size() > 1) {
        std::vector<T> next;
        for (size_t i = 0; i < part.size(); i += lanes) {
            std::vector<T> chunk(lanes, T(0));
            for (size_t k = 0; k < lanes && i + k < part.size(); ++k) chunk[k] = part[i + k];
            next.push_back(tree_sum(chunk));
        }
        part.swap(next);
    }
    return part.empty() ? T(0) : part[0];
}

// The source lanes of a reduction, repeat by repeat (inactive lanes hold 0 and on = 0).
template <class T> struct LaneGrid {
    uint32_t lanes = 0, reps = 0;
    std::vector<T> v;
    std::vector<uint8_t> on;
    T at(uint32_t r, uint32_t j) const { return v[size_t(r) * lanes + j]; }
    bool active(uint32_t r, uint32_t j) const { return on[size_t(r) * lanes + j] != 0; }
    std::vector<T> row(uint32_t r, uint32_t from, uint32_t n) const {
        return std::vector<T>(v.begin() + size_t(r) * lanes + from, v.begin() + size_t(r) * lanes + from + n);
    }
};
template <class T>
LaneGrid<T> read_lanes(const char* api, const LocalTensor<T>& src, const LaneMask& m, uint32_t repeats, uint32_t blk, uint32_t rep) {
    require_aligned(src, api, "src");
    LaneGrid<T> g;
    g.lanes = 256 / sizeof(T);
    g.reps = uint32_t(repeats_run(m, repeats, g.lanes));
    g.v.assign(size_t(g.reps) * g.lanes, T(0));
    g.on.assign(g.v.size(), 0);
    const Operand ops[1] = {operand(src, blk, rep, "src", false)};
    const T* s = src.ptr();
    lanes_pass<1>(api, m, repeats, g.lanes, ops, [&](const uint64_t* idx, uint32_t r, uint32_t j) {
        g.v[size_t(r) * g.lanes + j] = s[idx[0]];
        g.on[size_t(r) * g.lanes + j] = 1;
    });
    return g;
}

template <class T> inline T repeat_sum(const LaneGrid<T>& g, uint32_t r) { return tree_sum(g.row(r, 0, g.lanes)); }

// Best value of a repeat and its lane (lowest lane among ties); false when no lane is active.
template <class T> inline bool repeat_best(const LaneGrid<T>& g, uint32_t r, bool is_max, T& best, uint32_t& lane) {
    bool found = false;
    for (uint32_t j = 0; j < g.lanes; ++j) {
        if (!g.active(r, j)) continue;
        acc_t<T> x = acc_t<T>(g.at(r, j)), b = acc_t<T>(best);
        if (!found || (is_max ? x > b : x < b)) {
            best = g.at(r, j);
            lane = j;
            found = true;
        }
    }
    return found;
}

// Writes per-element results into dst at element offsets, after bounds checks and hazard reports.
template <class T, class E>
void write_results(const char* api, const LocalTensor<T>& dst, const std::vector<std::pair<uint64_t, E>>& out, uint32_t align) {
    require_aligned(dst, api, "dst", align);
    if (out.empty()) return;
    uint64_t lo = ~0ull, hi = 0;
    for (auto& kv : out) lo = kv.first < lo ? kv.first : lo, hi = kv.first > hi ? kv.first : hi;
    if ((hi + 1) * sizeof(E) > dst.len_) repeat_out_of_bounds(api, "dst", (hi * sizeof(E)) / sizeof(T), dst.GetSize());
    rt::access_local(Pipe::V, dst.hw(), dst.addr_ + uint32_t(lo * sizeof(E)), (hi - lo + 1) * sizeof(E), true, api, "dst");
    E* d = reinterpret_cast<E*>(dst.ptr());
    for (auto& kv : out) d[kv.first] = kv.second;
}

template <class T> inline uint32_t index_bits(uint64_t index) {
    return sizeof(T) == 2 ? uint32_t(index & 0xffffu) : uint32_t(index);
}

inline void require_repeat(const char* api, int32_t repeat) {
    if (repeat >= 0 && repeat <= 255) return;
    rt::Diag("vec.repeat_range", api)
        .msg(std::string(api) + " got repeatTimes " + std::to_string(repeat) + "; the valid range is 0 ~ 255")
        .val("repeatTimes", repeat).hint("split the work into several calls of at most 255 repeats").fatal();
}

// WholeReduceMax/Min: one result per repeat, laid out by `order`.
template <class T>
void whole_reduce_best(const char* api, bool is_max, const LocalTensor<T>& dst, const LocalTensor<T>& src, const LaneMask& m,
                       int32_t repeats, int32_t dstRep, int32_t srcBlk, int32_t srcRep, ReduceOrder order) {
    require_repeat(api, repeats);
    LaneGrid<T> g = read_lanes(api, src, m, uint32_t(repeats), uint32_t(srcBlk), uint32_t(srcRep));
    std::vector<std::pair<uint64_t, T>> out;
    std::vector<std::pair<uint64_t, uint32_t>> idx_only;
    bool have = false;
    T gbest = T(0);
    uint64_t gindex = 0;
    for (uint32_t r = 0; r < g.reps; ++r) {
        T best = T(0);
        uint32_t lane = 0;
        if (!repeat_best(g, r, is_max, best, lane)) continue;
        if (!have || (is_max ? acc_t<T>(best) > acc_t<T>(gbest) : acc_t<T>(best) < acc_t<T>(gbest))) {
            gbest = best;
            gindex = uint64_t(r) * g.lanes + lane;
            have = true;
        }
        const uint64_t base = uint64_t(r) * uint32_t(dstRep);
        switch (order) {
            case ReduceOrder::ORDER_VALUE_INDEX:
                out.emplace_back(2 * base, best), out.emplace_back(2 * base + 1, from_bits<T>(index_bits<T>(lane)));
                break;
            case ReduceOrder::ORDER_INDEX_VALUE:
                out.emplace_back(2 * base, from_bits<T>(index_bits<T>(lane))), out.emplace_back(2 * base + 1, best);
                break;
            case ReduceOrder::ORDER_ONLY_VALUE: out.emplace_back(base, best); break;
            default: idx_only.emplace_back(base, lane); break;
        }
    }
    if (order == ReduceOrder::ORDER_ONLY_INDEX) write_results<T, uint32_t>(api, dst, idx_only, 4);
    else write_results<T, T>(api, dst, out, order == ReduceOrder::ORDER_ONLY_VALUE ? uint32_t(sizeof(T)) : uint32_t(2 * sizeof(T)));
    if (have) reduce_registers().value_bits = bits_of(gbest), reduce_registers().index_bits = index_bits<T>(gindex);
    rt::count_vec(api, dtype_name<T>(), g.reps, uint64_t(g.reps) * g.lanes);
}

// BlockReduce*: 8 results per repeat (one per 32-byte block), dstRepStride in units of 8 results.
// Blocks without an active lane keep their old dst value (A2/A3).
template <class T>
void block_reduce(const char* api, int kind, const LocalTensor<T>& dst, const LocalTensor<T>& src, const LaneMask& m, int32_t repeats,
                  int32_t dstRep, int32_t srcBlk, int32_t srcRep) {
    require_repeat(api, repeats);
    LaneGrid<T> g = read_lanes(api, src, m, uint32_t(repeats), uint32_t(srcBlk), uint32_t(srcRep));
    const uint32_t per = 32 / sizeof(T);
    std::vector<std::pair<uint64_t, T>> out;
    for (uint32_t r = 0; r < g.reps; ++r)
        for (uint32_t b = 0; b < 8; ++b) {
            bool any = false;
            T best = T(0);
            for (uint32_t j = b * per; j < (b + 1) * per; ++j) {
                if (!g.active(r, j)) continue;
                if (!any || (kind == 1 ? acc_t<T>(g.at(r, j)) > acc_t<T>(best) : acc_t<T>(g.at(r, j)) < acc_t<T>(best))) best = g.at(r, j);
                any = true;
            }
            if (!any) continue;
            out.emplace_back(uint64_t(r) * uint32_t(dstRep) * 8 + b, kind == 0 ? tree_sum(g.row(r, b * per, per)) : best);
        }
    write_results<T, T>(api, dst, out, sizeof(T) == 2 ? 16 : 32);
    rt::count_vec(api, dtype_name<T>(), g.reps, uint64_t(g.reps) * g.lanes);
}
}  // namespace kw
