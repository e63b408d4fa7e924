// Reductions with the device's accumulation order: a binary tree of adjacent pairs inside a
// repeat (inside a 32-byte block for BlockReduce*), every add rounded to T, so half sums
// round and overflow like the NPU. Max/Min return the first (lowest) index among ties, and
// indices are stored as raw bits in an element of T (read them with ReinterpretCast).
#pragma once
#include "kw/reduce_lanes.h"

namespace kw {
using AscendC::ReduceOrder;

// ---- whole-tensor ReduceSum/Max/Min with a work tensor ----
inline uint64_t div_ceil(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// Minimum work elements, as documented for CANN 8.x (firstRepeat: repeatTimes of the mask
// forms, count / elementsPerRepeat (at least 1) of the count forms).
inline uint64_t reduce_work_elems(bool minmax, bool calIndex, uint64_t firstRepeat, uint32_t esize) {
    const uint64_t per_blk = 32 / esize, per_rep = 256 / esize;
    if (!minmax) return div_ceil(firstRepeat, per_blk) * per_blk;
    uint64_t out1 = firstRepeat * 2;
    uint64_t start2 = div_ceil(out1, per_blk) * per_blk;
    if (!calIndex) return start2;
    uint64_t out2 = div_ceil(out1, per_rep) * 2;
    uint64_t end2 = div_ceil(out2, per_blk) * per_blk;
    uint64_t need = start2 + end2;
    if (out2 > 2) {
        uint64_t out3 = div_ceil(out2, per_rep) * 2;
        need = start2 + end2 + div_ceil(out3, per_blk) * per_blk;
    }
    return need;
}

template <class T> inline void require_work(const char* api, const LocalTensor<T>& work, uint64_t need) {
    require_aligned(work, api, "workLocal");
    if (uint64_t(work.GetSize()) >= need) return;
    rt::Diag("vec.reduce_work", api)
        .msg(std::string(api) + ", Worktensor's size should be more than " + std::to_string(need) + " elements (" +
             std::to_string(need * sizeof(T)) + " bytes), but get " + std::to_string(work.GetSize()))
        .val("required", (long long)need).val("actual", work.GetSize())
        .hint("size workLocal by the ReduceSum/ReduceMax work formula: per-repeat partial results (x2 for value+index), rounded "
              "up to 32 bytes, plus the later rounds when calIndex is true")
        .fatal();
}

// Shared body of the whole-tensor reductions. kind: 0 sum, 1 max, 2 min.
template <class T>
void reduce_all(const char* api, int kind, const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& work,
                const LaneMask& m, uint32_t repeats, uint32_t srcRep, bool calIndex, bool count_form) {
    const uint32_t lanes = 256 / sizeof(T);
    const uint64_t reps = repeats_run(m, repeats, lanes);
    if (reps == 0) return;
    const uint64_t first = count_form ? (m.total / lanes ? m.total / lanes : 1) : reps;
    if (kind != 0 || !count_form) require_work(api, work, reduce_work_elems(kind != 0, calIndex, first, sizeof(T)));
    LaneGrid<T> g = read_lanes(api, src, m, repeats, 1, srcRep);
    T result = T(0);
    uint64_t index = 0;
    std::vector<std::pair<uint64_t, T>> round1;
    if (kind == 0) {
        std::vector<T> part(g.reps);
        for (uint32_t r = 0; r < g.reps; ++r) part[r] = repeat_sum(g, r);
        if (count_form) {  // A2/A3 count form: repeat results added in order
            result = part[0];
            for (uint32_t r = 1; r < g.reps; ++r) result = add_rounded(result, part[r]);
            reduce_registers().acc_bits = bits_of(result);
        } else {  // mask form: later rounds are reductions of the partials, repeat by repeat
            for (uint32_t r = 0; r < g.reps; ++r) round1.emplace_back(r, part[r]);
            result = tree_rounds(part, lanes);
        }
    } else {
        bool have = false;
        for (uint32_t r = 0; r < g.reps; ++r) {
            T best = T(0);
            uint32_t lane = 0;
            if (!repeat_best(g, r, kind == 1, best, lane)) continue;
            round1.emplace_back(2 * uint64_t(r), best);
            round1.emplace_back(2 * uint64_t(r) + 1, from_bits<T>(index_bits<T>(lane)));
            if (!have || (kind == 1 ? acc_t<T>(best) > acc_t<T>(result) : acc_t<T>(best) < acc_t<T>(result))) {
                result = best;
                index = uint64_t(r) * lanes + lane;
                have = true;
            }
        }
        reduce_registers().value_bits = bits_of(result);
        reduce_registers().index_bits = index_bits<T>(index);
    }
    write_results<T, T>(api, work, round1, 32);  // the first round's partials, as the device leaves them
    std::vector<std::pair<uint64_t, T>> out{{0, result}};
    if (kind != 0 && calIndex) out.emplace_back(1, from_bits<T>(index_bits<T>(index)));
    write_results<T, T>(api, dst, out, sizeof(T));
    rt::count_vec(api, dtype_name<T>(), g.reps, uint64_t(g.reps) * lanes);
}
}  // namespace kw

namespace AscendC {

#define KW_RED_CHECK(API)                                                                                               \
    static_assert(SupportType<T, half, float>(),                                                                         \
                  "Failed to check dtype in " #API ", current api support dtype combination is src and dst both: half / float.")
#define KW_MASK_ARG(M) kw::lanes_from_bits(M, isSetMask, 256 / sizeof(T), api)
#define KW_CNT_ARG(M) kw::lanes_from_count(uint64_t(M), isSetMask, 256 / sizeof(T), api)

// ---- WholeReduceSum / RepeatReduceSum: one sum per repeat, dstRepStride in elements ----
#define KW_WHOLE_SUM(MASKT, MASKF)                                                                                      \
    template <typename T, bool isSetMask = true>                                                                         \
    inline void WholeReduceSum(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, MASKT mask, const int32_t repeatTimes, \
                               const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride) {     \
        KW_RED_CHECK(WholeReduceSum);                                                                                    \
        const char* api = "WholeReduceSum";                                                                              \
        kw::require_repeat(api, repeatTimes);                                                                            \
        kw::LaneGrid<T> g = kw::read_lanes(api, srcLocal, MASKF(mask), uint32_t(repeatTimes), srcBlkStride, srcRepStride); \
        std::vector<std::pair<uint64_t, T>> out;                                                                         \
        for (uint32_t r = 0; r < g.reps; ++r) out.emplace_back(uint64_t(r) * uint32_t(dstRepStride), kw::repeat_sum(g, r)); \
        kw::write_results<T, T>(api, dstLocal, out, sizeof(T));                                                          \
        kw::rt::count_vec(api, kw::dtype_name<T>(), g.reps, uint64_t(g.reps) * g.lanes);                                 \
    }
KW_WHOLE_SUM(const uint64_t*, KW_MASK_ARG)
KW_WHOLE_SUM(const int32_t, KW_CNT_ARG)
#undef KW_WHOLE_SUM

template <typename T, bool isSetMask = true>
inline void RepeatReduceSum(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const int32_t repeat, const int32_t elemsInOneRepeat,
                            const int32_t dstBlkStride, const int32_t srcBlkStride, const int32_t dstRepStride, const int32_t srcRepStride) {
    KW_RED_CHECK(RepeatReduceSum);
    (void)dstBlkStride;  // documented as having no effect
    WholeReduceSum<T, isSetMask>(dstLocal, srcLocal, elemsInOneRepeat, repeat, dstRepStride, srcBlkStride, srcRepStride);
}

// ---- WholeReduceMax / WholeReduceMin: value and in-repeat index per repeat ----
#define KW_WHOLE_BEST(API, IS_MAX, MASKT, MASKF)                                                                        \
    template <typename T, bool isSetMask = true>                                                                         \
    inline void API(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, MASKT mask, const int32_t repeatTimes,  \
                    const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride,                  \
                    ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX) {                                                \
        KW_RED_CHECK(API);                                                                                               \
        const char* api = #API;                                                                                          \
        kw::whole_reduce_best<T>(api, IS_MAX, dstLocal, srcLocal, MASKF(mask), repeatTimes, dstRepStride, srcBlkStride,  \
                                 srcRepStride, order);                                                                   \
    }
KW_WHOLE_BEST(WholeReduceMax, true, const uint64_t*, KW_MASK_ARG)
KW_WHOLE_BEST(WholeReduceMax, true, const int32_t, KW_CNT_ARG)
KW_WHOLE_BEST(WholeReduceMin, false, const uint64_t*, KW_MASK_ARG)
KW_WHOLE_BEST(WholeReduceMin, false, const int32_t, KW_CNT_ARG)
#undef KW_WHOLE_BEST

// ---- BlockReduceSum/Max/Min and PairReduceSum (mask after repeat in these signatures) ----
#define KW_BLOCK_RED(API, KIND, MASKT, MASKF)                                                                           \
    template <typename T, bool isSetMask = true>                                                                         \
    inline void API(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const int32_t repeat, MASKT mask,    \
                    const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride) {                \
        KW_RED_CHECK(API);                                                                                               \
        const char* api = #API;                                                                                          \
        kw::block_reduce<T>(api, KIND, dstLocal, srcLocal, MASKF(mask), repeat, dstRepStride, srcBlkStride, srcRepStride); \
    }
KW_BLOCK_RED(BlockReduceSum, 0, const int32_t, KW_CNT_ARG)
KW_BLOCK_RED(BlockReduceMax, 1, const int32_t, KW_CNT_ARG)
KW_BLOCK_RED(BlockReduceMin, 2, const int32_t, KW_CNT_ARG)
KW_BLOCK_RED(BlockReduceSum, 0, const uint64_t*, KW_MASK_ARG)
KW_BLOCK_RED(BlockReduceMax, 1, const uint64_t*, KW_MASK_ARG)
KW_BLOCK_RED(BlockReduceMin, 2, const uint64_t*, KW_MASK_ARG)
#undef KW_BLOCK_RED

// Adjacent pairs summed: lanes/2 results per repeat, dstRepStride in units of 128 bytes; a pair
// with both lanes masked off keeps its old dst value.
#define KW_PAIR_RED(MASKT, MASKF)                                                                                       \
    template <typename T, bool isSetMask = true>                                                                         \
    inline void PairReduceSum(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const int32_t repeat, MASKT mask, \
                              const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride) {      \
        KW_RED_CHECK(PairReduceSum);                                                                                     \
        const char* api = "PairReduceSum";                                                                               \
        kw::require_repeat(api, repeat);                                                                                 \
        kw::LaneGrid<T> g = kw::read_lanes(api, srcLocal, MASKF(mask), uint32_t(repeat), srcBlkStride, srcRepStride);    \
        std::vector<std::pair<uint64_t, T>> out;                                                                         \
        for (uint32_t r = 0; r < g.reps; ++r)                                                                            \
            for (uint32_t k = 0; k < g.lanes / 2; ++k)                                                                   \
                if (g.active(r, 2 * k) || g.active(r, 2 * k + 1))                                                        \
                    out.emplace_back(uint64_t(r) * uint32_t(dstRepStride) * (128 / sizeof(T)) + k,                       \
                                     kw::add_rounded(g.at(r, 2 * k), g.at(r, 2 * k + 1)));                               \
        kw::write_results<T, T>(api, dstLocal, out, 32);                                                                 \
        kw::rt::count_vec(api, kw::dtype_name<T>(), g.reps, uint64_t(g.reps) * g.lanes);                                 \
    }
KW_PAIR_RED(const int32_t, KW_CNT_ARG)
KW_PAIR_RED(const uint64_t*, KW_MASK_ARG)
#undef KW_PAIR_RED

// ---- ReduceSum / ReduceMax / ReduceMin over a whole tensor ----
// Mask forms: repeatTimes may exceed 255 (int32); srcBlkStride is 1. Count forms: any count.
#define KW_REDUCE_MASK(API, KIND, MASKT, MASKF, EXTRA_P, EXTRA_A)                                                        \
    template <typename T>                                                                                                \
    inline void API(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const LocalTensor<T>& workLocal, MASKT mask, \
                    const int32_t repeatTimes, const int32_t srcRepStride EXTRA_P) {                                     \
        KW_RED_CHECK(API);                                                                                               \
        const char* api = #API;                                                                                          \
        constexpr bool isSetMask = true;                                                                                 \
        kw::reduce_all<T>(api, KIND, dstLocal, srcLocal, workLocal, MASKF(mask), uint32_t(repeatTimes > 0 ? repeatTimes : 0), \
                          uint32_t(srcRepStride), EXTRA_A, false);                                                       \
    }
#define KW_COMMA ,
KW_REDUCE_MASK(ReduceSum, 0, const int32_t, KW_CNT_ARG, , false)
KW_REDUCE_MASK(ReduceSum, 0, const uint64_t*, KW_MASK_ARG, , false)
KW_REDUCE_MASK(ReduceMax, 1, const int32_t, KW_CNT_ARG, KW_COMMA bool calIndex = 0, calIndex)
KW_REDUCE_MASK(ReduceMax, 1, const uint64_t*, KW_MASK_ARG, KW_COMMA bool calIndex = 0, calIndex)
KW_REDUCE_MASK(ReduceMin, 2, const int32_t, KW_CNT_ARG, KW_COMMA bool calIndex = 0, calIndex)
KW_REDUCE_MASK(ReduceMin, 2, const uint64_t*, KW_MASK_ARG, KW_COMMA bool calIndex = 0, calIndex)
#undef KW_REDUCE_MASK
#undef KW_COMMA

template <typename T, bool isSetMask = true>
inline void ReduceSum(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const LocalTensor<T>& workLocal, const int32_t count) {
    KW_RED_CHECK(ReduceSum);
    kw::require_count("ReduceSum", count, srcLocal, "src");
    kw::reduce_all<T>("ReduceSum", 0, dstLocal, srcLocal, workLocal, kw::counter_lanes(uint64_t(count)), 0, 8, false, true);
}
#define KW_REDUCE_BEST_COUNT(API, KIND)                                                                                 \
    template <typename T>                                                                                                \
    inline void API(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const LocalTensor<T>& workLocal, const int32_t count, \
                    bool calIndex = 0) {                                                                                 \
        KW_RED_CHECK(API);                                                                                               \
        kw::require_count(#API, count, srcLocal, "src");                                                                 \
        kw::reduce_all<T>(#API, KIND, dstLocal, srcLocal, workLocal, kw::counter_lanes(uint64_t(count)), 0, 8, calIndex, true); \
    }
KW_REDUCE_BEST_COUNT(ReduceMax, 1)
KW_REDUCE_BEST_COUNT(ReduceMin, 2)
#undef KW_REDUCE_BEST_COUNT

// ---- scalar reads of the reduction registers (S pipe) ----
template <typename T> inline void GetReduceMaxMinCount(T& maxMinValue, T& maxMinIndex) {
    static_assert(SupportType<T, half, float>(), "Failed to check dtype in GetReduceMaxMinCount, current api support dtype combination is "
                                                 "maxMinValue and maxMinIndex both: half / float");
    maxMinValue = kw::from_bits<T>(kw::reduce_registers().value_bits);
    maxMinIndex = kw::from_bits<T>(kw::reduce_registers().index_bits);
    kw::rt::count_scalar("GetReduceMaxMinCount");
}
template <typename T> inline void GetReduceMaxMinCount(T& maxMinValue) {
    static_assert(SupportType<T, half, float>(), "Failed to check dtype in GetReduceMaxMinCount, current api support dtype combination is "
                                                 "maxMinValue: half / float");
    maxMinValue = kw::from_bits<T>(kw::reduce_registers().value_bits);
    kw::rt::count_scalar("GetReduceMaxMinCount");
}
template <typename T> inline T GetAccVal() {
    static_assert(SupportType<T, half, float>(), "Failed to check dtype in GetAccVal, current api support dtype combination is half / float");
    kw::rt::count_scalar("GetAccVal");
    return kw::from_bits<T>(kw::reduce_registers().acc_bits);
}

#undef KW_MASK_ARG
#undef KW_CNT_ARG
#undef KW_RED_CHECK
}  // namespace AscendC
