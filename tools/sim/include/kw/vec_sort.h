// Sort32 / MrgSort (A2/A3 region-proposal layout): every sorted element is an 8-byte record with
// the score in the low bytes (a float, or a half followed by 2 reserved bytes) and the uint32
// index in the high 4 bytes. Sorting is descending by score; equal scores keep their order.
#pragma once
#include <algorithm>
#include "kw/vec_operands.h"

namespace AscendC {
constexpr uint8_t MRG_SORT_ELEMENT_LEN = 4;
struct MrgSort4Info {
    MrgSort4Info() {}
    MrgSort4Info(const uint16_t elementLengthsIn[MRG_SORT_ELEMENT_LEN], const bool ifExhaustedSuspensionIn, const uint16_t validBitIn,
                 const uint16_t repeatTimesIn)
        : ifExhaustedSuspension(ifExhaustedSuspensionIn), validBit(validBitIn), repeatTimes(uint8_t(repeatTimesIn)) {
        for (int i = 0; i < MRG_SORT_ELEMENT_LEN; ++i) elementLengths[i] = elementLengthsIn[i];
    }
    uint16_t elementLengths[MRG_SORT_ELEMENT_LEN] = {0};
    bool ifExhaustedSuspension = false;
    uint16_t validBit = 0;
    uint8_t repeatTimes = 1;
};
template <typename T> struct MrgSortSrcList {
    MrgSortSrcList() {}
    MrgSortSrcList(const LocalTensor<T>& src1In, const LocalTensor<T>& src2In, const LocalTensor<T>& src3In, const LocalTensor<T>& src4In)
        : src1(src1In[0]), src2(src2In[0]), src3(src3In[0]), src4(src4In[0]) {}
    LocalTensor<T> src1;
    LocalTensor<T> src2;
    LocalTensor<T> src3;
    LocalTensor<T> src4;
};
}  // namespace AscendC

namespace kw {
struct SortRecord {
    uint8_t bytes[8];
};
template <class T> inline float record_score(const SortRecord& r) {
    T s;
    std::memcpy(&s, r.bytes, sizeof(T));
    return float(s);
}
inline uint16_t (&mrg_sort_result())[4] {
    static uint16_t n[4] = {0, 0, 0, 0};
    return n;
}

// Merges up to four sorted queues of records; returns how many records of each were taken.
template <class T>
void merge_queues(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>* const (&src)[4], const uint16_t (&len)[4], uint16_t valid,
                  bool stop_when_empty, uint32_t (&taken)[4]) {
    if (valid != 3 && valid != 7 && valid != 15)
        rt::Diag("vec.mrgsort_valid", api)
            .msg("validBit " + std::to_string(valid) + " is not one of 3, 7, 15 (the first 2, 3 or 4 queues)")
            .val("validBit", valid).hint("merge 2, 3 or 4 queues; pad the missing ones with empty queues").fatal();
    const int queues = valid == 3 ? 2 : valid == 7 ? 3 : 4;
    require_aligned(dst, api, "dst");
    std::vector<SortRecord> q[4];
    const char* names[4] = {"src1", "src2", "src3", "src4"};
    uint64_t total = 0;
    for (int i = 0; i < queues; ++i) {
        require_aligned(*src[i], api, names[i], 8);
        require_room(*src[i], uint64_t(len[i]) * 8, api, names[i]);
        rt::access_local(Pipe::V, src[i]->hw(), src[i]->addr_, uint64_t(len[i]) * 8, false, api, names[i]);
        const SortRecord* p = reinterpret_cast<const SortRecord*>(src[i]->ptr());
        q[i].assign(p, p + len[i]);
        total += len[i];
    }
    std::vector<SortRecord> out;
    size_t pos[4] = {0, 0, 0, 0};
    while (out.size() < total) {
        int best = -1;
        for (int i = 0; i < queues; ++i) {
            if (pos[i] >= q[i].size()) continue;
            if (best < 0 || record_score<T>(q[i][pos[i]]) > record_score<T>(q[best][pos[best]])) best = i;
        }
        out.push_back(q[best][pos[best]++]);
        if (stop_when_empty && pos[best] == q[best].size()) break;
    }
    require_room(dst, out.size() * 8, api, "dst");
    rt::access_local(Pipe::V, dst.hw(), dst.addr_, out.size() * 8, true, api, "dst");
    std::memcpy(dst.ptr(), out.data(), out.size() * 8);
    for (int i = 0; i < 4; ++i) taken[i] = i < queues ? uint32_t(pos[i]) : 0, mrg_sort_result()[i] = uint16_t(taken[i]);
    rt::count_vec(api, dtype_name<T>(), 1, out.size());
}
}  // namespace kw

namespace AscendC {
#define KW_SORT_DTYPE(API)                                                                                              \
    static_assert(SupportType<T, half, float>(), "Failed to check dtype in " #API ", current api support dtype combination is src and dst both: half / float.")

// Sorts each group of 32 scores (with their uint32 indices) into 32 records (256 bytes) of dst.
template <typename T>
inline void Sort32(const LocalTensor<T>& dstLocal, const LocalTensor<T>& src0Local, const LocalTensor<uint32_t>& src1Local, const int32_t repeatTimes) {
    KW_SORT_DTYPE(Sort32);
    const char* api = "Sort32";
    kw::require_aligned(dstLocal, api, "dst");
    kw::require_aligned(src0Local, api, "src0");
    kw::require_aligned(src1Local, api, "src1");
    const uint64_t n = uint64_t(repeatTimes > 0 ? repeatTimes : 0) * 32;
    kw::require_room(src0Local, n * sizeof(T), api, "src0");
    kw::require_room(src1Local, n * 4, api, "src1");
    kw::require_room(dstLocal, n * 8, api, "dst");
    kw::touch(api, src0Local, n, false, "src0");
    kw::touch(api, src1Local, n, false, "src1");
    std::vector<kw::SortRecord> out(n);
    for (uint64_t base = 0; base < n; base += 32) {
        uint32_t order[32];
        for (uint32_t j = 0; j < 32; ++j) order[j] = j;
        std::stable_sort(order, order + 32, [&](uint32_t a, uint32_t b) {
            return float(src0Local.ptr()[base + a]) > float(src0Local.ptr()[base + b]);
        });
        for (uint32_t j = 0; j < 32; ++j) {
            kw::SortRecord& r = out[base + j];
            std::memset(r.bytes, 0, 8);
            std::memcpy(r.bytes, src0Local.ptr() + base + order[j], sizeof(T));
            std::memcpy(r.bytes + 4, src1Local.ptr() + base + order[j], 4);
        }
    }
    kw::rt::access_local(kw::Pipe::V, dstLocal.hw(), dstLocal.addr_, n * 8, true, api, "dst");
    std::memcpy(dstLocal.ptr(), out.data(), n * 8);
    kw::rt::count_vec(api, kw::dtype_name<T>(), uint64_t(repeatTimes), n);
}

// Merges sorted queues; with repeatTimes > 1 (four contiguous queues of equal length, validBit 15,
// no suspension) each repeat merges the next four queues.
template <typename T>
inline void MrgSort(const LocalTensor<T>& dstLocal, const MrgSortSrcList<T>& srcLocal, const MrgSort4Info& params) {
    KW_SORT_DTYPE(MrgSort);
    const uint16_t(&len)[4] = params.elementLengths;
    const uint64_t group = uint64_t(len[0]) + len[1] + len[2] + len[3];
    for (uint32_t r = 0; r < params.repeatTimes; ++r) {
        const uint64_t shift = uint64_t(r) * group * 8 / sizeof(T);  // in elements of T
        const LocalTensor<T> s1 = srcLocal.src1[uint32_t(shift)], s2 = srcLocal.src2[uint32_t(shift)], s3 = srcLocal.src3[uint32_t(shift)],
                             s4 = srcLocal.src4[uint32_t(shift)];
        const LocalTensor<T>* const src[4] = {&s1, &s2, &s3, &s4};
        uint32_t taken[4];
        kw::merge_queues<T>("MrgSort", dstLocal[uint32_t(shift)], src, len, params.validBit, params.ifExhaustedSuspension, taken);
    }
}
template <typename T, bool isExhaustedSuspension = false>
inline void MrgSort(const LocalTensor<T>& dstLocal, const MrgSortSrcList<T>& sortList, const uint16_t elementCountList[4], uint32_t sortedNum[4],
                    uint16_t validBit, const int32_t repeatTimes) {
    uint16_t lens[4] = {elementCountList[0], elementCountList[1], elementCountList[2], elementCountList[3]};
    MrgSort4Info info(lens, isExhaustedSuspension, validBit, uint16_t(repeatTimes));
    MrgSort(dstLocal, sortList, info);
    for (int i = 0; i < 4; ++i) sortedNum[i] = kw::mrg_sort_result()[i];
}
inline void GetMrgSortResult(uint16_t& mrgSortList1, uint16_t& mrgSortList2, uint16_t& mrgSortList3, uint16_t& mrgSortList4) {
    kw::rt::count_scalar("GetMrgSortResult");
    mrgSortList1 = kw::mrg_sort_result()[0], mrgSortList2 = kw::mrg_sort_result()[1];
    mrgSortList3 = kw::mrg_sort_result()[2], mrgSortList4 = kw::mrg_sort_result()[3];
}
// Length, in elements of T, of elemCount sorted records.
template <typename T> inline uint32_t GetSortLen(const uint32_t elemCount) { return elemCount * 8 / sizeof(T); }
#undef KW_SORT_DTYPE
}  // namespace AscendC
