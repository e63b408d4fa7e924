// In-core synchronisation (flags, barriers), cross-core SyncAll, block indices, atomics,
// workspace and debug printing.
#pragma once
#include "kw/tensor.h"

namespace kw {
struct EventPipes {
    Pipe src, dst;
};
constexpr EventPipes event_pipes(AscendC::HardEvent e) {
    using H = AscendC::HardEvent;
    switch (e) {
        case H::MTE2_MTE1: return {Pipe::MTE2, Pipe::MTE1};
        case H::MTE1_MTE2: return {Pipe::MTE1, Pipe::MTE2};
        case H::MTE1_M: return {Pipe::MTE1, Pipe::M};
        case H::M_MTE1: return {Pipe::M, Pipe::MTE1};
        case H::MTE2_V: return {Pipe::MTE2, Pipe::V};
        case H::V_MTE2: return {Pipe::V, Pipe::MTE2};
        case H::MTE3_V: return {Pipe::MTE3, Pipe::V};
        case H::V_MTE3: return {Pipe::V, Pipe::MTE3};
        case H::M_V: return {Pipe::M, Pipe::V};
        case H::V_M: return {Pipe::V, Pipe::M};
        case H::V_V: return {Pipe::V, Pipe::V};
        case H::MTE3_MTE1: return {Pipe::MTE3, Pipe::MTE1};
        case H::MTE1_MTE3: return {Pipe::MTE1, Pipe::MTE3};
        case H::MTE1_V: return {Pipe::MTE1, Pipe::V};
        case H::MTE2_M: return {Pipe::MTE2, Pipe::M};
        case H::M_MTE2: return {Pipe::M, Pipe::MTE2};
        case H::V_MTE1: return {Pipe::V, Pipe::MTE1};
        case H::M_FIX: return {Pipe::M, Pipe::FIX};
        case H::FIX_M: return {Pipe::FIX, Pipe::M};
        case H::MTE3_MTE2: return {Pipe::MTE3, Pipe::MTE2};
        case H::MTE2_MTE3: return {Pipe::MTE2, Pipe::MTE3};
        case H::S_V: return {Pipe::S, Pipe::V};
        case H::V_S: return {Pipe::V, Pipe::S};
        case H::S_MTE2: return {Pipe::S, Pipe::MTE2};
        case H::MTE2_S: return {Pipe::MTE2, Pipe::S};
        case H::S_MTE3: return {Pipe::S, Pipe::MTE3};
        case H::MTE3_S: return {Pipe::MTE3, Pipe::S};
        case H::MTE2_FIX: return {Pipe::MTE2, Pipe::FIX};
        case H::FIX_MTE2: return {Pipe::FIX, Pipe::MTE2};
        case H::FIX_S: return {Pipe::FIX, Pipe::S};
        case H::M_S: return {Pipe::M, Pipe::S};
        case H::FIX_MTE3: return {Pipe::FIX, Pipe::MTE3};
        case H::MTE1_FIX: return {Pipe::MTE1, Pipe::FIX};
        case H::FIX_MTE1: return {Pipe::FIX, Pipe::MTE1};
        case H::FIX_FIX: return {Pipe::FIX, Pipe::FIX};
        default: return {Pipe::S, Pipe::S};
    }
}
}  // namespace kw

// Raw pipe intrinsics (compiler builtins on the NPU), used directly by some kernels.
inline void set_flag(pipe_t src, pipe_t dst, event_t id) { kw::rt::set_flag(kw::pipe_of(src), kw::pipe_of(dst), int(id), "set_flag"); }
inline void set_flag(pipe_t src, pipe_t dst, int id) { kw::rt::set_flag(kw::pipe_of(src), kw::pipe_of(dst), id, "set_flag"); }
inline void wait_flag(pipe_t src, pipe_t dst, event_t id) { kw::rt::wait_flag(kw::pipe_of(src), kw::pipe_of(dst), int(id), "wait_flag"); }
inline void wait_flag(pipe_t src, pipe_t dst, int id) { kw::rt::wait_flag(kw::pipe_of(src), kw::pipe_of(dst), id, "wait_flag"); }
inline void pipe_barrier(pipe_t p) { kw::rt::pipe_barrier(p == PIPE_ALL ? kw::Pipe::COUNT : kw::pipe_of(p)); }

namespace AscendC {

template <HardEvent event> inline void SetFlag(int32_t eventID) {
    constexpr kw::EventPipes p = kw::event_pipes(event);
    kw::rt::set_flag(p.src, p.dst, eventID, "SetFlag");
}
template <HardEvent event> inline void WaitFlag(int32_t eventID) {
    constexpr kw::EventPipes p = kw::event_pipes(event);
    kw::rt::wait_flag(p.src, p.dst, eventID, "WaitFlag");
}
template <pipe_t pipe> inline void PipeBarrier() { kw::rt::pipe_barrier(pipe == PIPE_ALL ? kw::Pipe::COUNT : kw::pipe_of(pipe)); }
template <MemDsbT arg0> inline void DataSyncBarrier() { kw::rt::pipe_barrier(kw::Pipe::COUNT); }

template <pipe_t src, pipe_t dst> class TQueSync {
public:
    void SetFlag(TEventID id) { kw::rt::set_flag(kw::pipe_of(src), kw::pipe_of(dst), id, "TQueSync::SetFlag"); }
    void WaitFlag(TEventID id) { kw::rt::wait_flag(kw::pipe_of(src), kw::pipe_of(dst), id, "TQueSync::WaitFlag"); }
};

inline int64_t GetBlockIdx() { return kw::rt::block_idx(); }
inline int64_t GetBlockNum() { return kw::rt::block_num(); }
inline int64_t GetSubBlockIdx() { return kw::rt::sub_block_idx(); }
inline int64_t GetSubBlockNum() { return kw::rt::sub_block_num(); }
inline int64_t GetTaskRation() { return kw::rt::sub_block_num(); }
inline int64_t GetSystemCycle() { return 0; }

template <bool isAIVOnly = true> inline void SyncAll() { kw::rt::sync_all("SyncAll"); }
template <bool isAIVOnly = true>
inline void SyncAll(const GlobalTensor<int32_t>& gmWorkspace, const LocalTensor<int32_t>& ubWorkspace, const int32_t usedCores = 0) {
    int64_t cores = usedCores > 0 ? usedCores : GetBlockNum();
    if (gmWorkspace.GetSize() != 0 && gmWorkspace.GetSize() * sizeof(int32_t) < static_cast<uint64_t>(cores) * 32)
        kw::rt::Diag("syncall.workspace", "SyncAll")
            .msg("the GM workspace of the soft SyncAll holds " + std::to_string(gmWorkspace.GetSize() * 4) +
                 " bytes but needs at least GetBlockNum()*32 = " + std::to_string(cores * 32))
            .hint("allocate blockNum*32 bytes of zero-initialised GM workspace for SyncAll")
            .fatal();
    if (ubWorkspace.GetSize() * sizeof(int32_t) < static_cast<uint64_t>(cores) * 32)
        kw::rt::Diag("syncall.workspace", "SyncAll")
            .msg("the UB workspace of the soft SyncAll holds " + std::to_string(ubWorkspace.GetSize() * 4) +
                 " bytes but needs at least GetBlockNum()*32 = " + std::to_string(cores * 32))
            .hint("give SyncAll a UB tensor of at least blockNum*32 bytes")
            .fatal();
    kw::rt::sync_all("SyncAll");
}

template <typename T> inline void SetAtomicAdd() { kw::rt::set_atomic(1, kw::dtype_name<T>()); }
template <typename T> inline void SetAtomicMax() { kw::rt::set_atomic(2, kw::dtype_name<T>()); }
template <typename T> inline void SetAtomicMin() { kw::rt::set_atomic(3, kw::dtype_name<T>()); }
template <typename T> inline void SetAtomicType() {}
inline void SetAtomicNone() { kw::rt::set_atomic(0, ""); }

inline __gm__ uint8_t* GetUserWorkspace(GM_ADDR workspace) { return kw::rt::user_workspace(workspace); }
inline __gm__ uint8_t* GetSysWorkSpacePtr() { return kw::rt::workspace_base(); }
inline void SetSysWorkspace(GM_ADDR) {}
inline void SetSysWorkspaceForce(GM_ADDR) {}

template <typename T> inline void InitOutput(GlobalTensor<T> gmWorkspaceAddr, uint32_t size, T value = 0) {
    kw::rt::access_gm(kw::Pipe::MTE3, gmWorkspaceAddr.addr_, uint64_t(size) * sizeof(T), true, "InitOutput", "gm");
    for (uint32_t i = 0; i < size; ++i) gmWorkspaceAddr.addr_[i] = value;
}

template <typename T, CacheLine entireType = CacheLine::SINGLE_CACHE_LINE, DcciDst dcciDst = DcciDst::CACHELINE_OUT>
inline void DataCacheCleanAndInvalid(const GlobalTensor<T>&) {}
template <typename T, CacheLine entireType = CacheLine::SINGLE_CACHE_LINE, DcciDst dcciDst = DcciDst::CACHELINE_OUT>
inline void DataCacheCleanAndInvalid(const LocalTensor<T>&) {}
inline void ICachePreLoad(const int64_t) {}

template <class... Args> inline void printf(const char* fmt, Args... args) { kw::rt::printf_impl(fmt, args...); }
template <class... Args> inline void PRINTF(const char* fmt, Args... args) { kw::rt::printf_impl(fmt, args...); }
inline void PrintTimeStamp(uint32_t) {}
inline void Trap() {
    const std::string said = kw::rt::last_printf();
    kw::rt::Diag("kernel.trap", "Trap")
        .msg(said.empty() ? std::string("the kernel called Trap()") : "the kernel called Trap() after printing: " + said)
        .hint("a Trap() stops the core on the NPU").fatal();
}
template <typename T> inline void DumpTensor(const LocalTensor<T>& t, uint32_t desc, uint32_t dumpSize) {
    std::printf("DumpTensor desc=%u: ", desc);
    t.Print(dumpSize);
}
template <typename T> inline void DumpTensor(const GlobalTensor<T>& t, uint32_t desc, uint32_t dumpSize) {
    std::printf("DumpTensor desc=%u:", desc);
    for (uint32_t i = 0; i < dumpSize; ++i) std::printf(" %g", static_cast<double>(static_cast<float>(t.addr_[i])));
    std::printf("\n");
}
template <typename T> inline void DumpTensor(const LocalTensor<T>& t, uint32_t desc, uint32_t dumpSize, const ShapeInfo&) {
    DumpTensor(t, desc, dumpSize);
}

// Scalar helpers of the S unit.
template <int countValue> inline int64_t ScalarGetCountOfValue(uint64_t valueIn) {
    return countValue ? __builtin_popcountll(valueIn) : 64 - __builtin_popcountll(valueIn);
}
inline int64_t ScalarCountLeadingZero(uint64_t valueIn) { return valueIn ? __builtin_clzll(valueIn) : 64; }
inline int64_t CountBitsCntSameAsSignBit(int64_t valueIn) {
    uint64_t v = static_cast<uint64_t>(valueIn);
    return (valueIn < 0 ? ScalarCountLeadingZero(~v) : ScalarCountLeadingZero(v)) - 1;
}
template <int countValue> inline int64_t ScalarGetSFFValue(uint64_t valueIn) {
    uint64_t v = countValue ? valueIn : ~valueIn;
    return v ? __builtin_ctzll(v) : -1;
}
template <typename srcT, typename dstT, RoundMode roundMode> inline dstT ScalarCast(srcT valueIn) {
    float f = static_cast<float>(valueIn);
    switch (roundMode) {
        case RoundMode::CAST_FLOOR: return static_cast<dstT>(std::floor(f));
        case RoundMode::CAST_CEIL: return static_cast<dstT>(std::ceil(f));
        case RoundMode::CAST_ROUND: return static_cast<dstT>(std::round(f));
        case RoundMode::CAST_TRUNC: return static_cast<dstT>(std::trunc(f));
        case RoundMode::CAST_RINT: return static_cast<dstT>(std::nearbyint(f));
        default: return static_cast<dstT>(valueIn);
    }
}

}  // namespace AscendC
