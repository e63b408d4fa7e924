// Interface of the emulator runtime (implemented in tools/sim/runtime/*.cpp, compiled once).
// Header-side API code calls these to check hardware rules, track pipes and count work.
#pragma once
#include <string>
#include "kw/base.h"

namespace kw {

// The pipes of an AI Core. MTE2: GM->UB/L1, MTE3: UB->GM, V: vector, S: scalar, M: cube.
enum class Pipe : uint8_t { S = 0, V, M, MTE1, MTE2, MTE3, FIX, COUNT };
constexpr int kPipes = static_cast<int>(Pipe::COUNT);
const char* pipe_name(Pipe p);
Pipe pipe_of(pipe_t p);

// A vector clock over pipes: c[q] = how many ops of pipe q are known complete. `token` names the
// release that made it in the instruction trace (0: none), so the cost model sees the same waits.
struct Clock {
    uint32_t c[kPipes] = {0, 0, 0, 0, 0, 0, 0};
    uint32_t token = 0;
};

struct Buffer;  // one InitBuffer'd region, for ledgers and tensor provenance

namespace rt {

struct SocInfo {
    char name[40];
    int cce_aicore;
    bool split_arch;
    uint32_t aic_cores, aiv_cores;
    uint32_t ub_bytes, l1_bytes, l0a_bytes, l0b_bytes, l0c_bytes, bt_bytes, fb_bytes;
};
const SocInfo& soc();

int64_t block_idx();
int64_t block_num();
int64_t sub_block_idx();
int64_t sub_block_num();
// A kernel that uses the Matmul API is a MIX kernel on split-architecture SoCs: each block is one
// AIC and `ratio` AIV cores, and the AIV ones run the kernel body (GetBlockIdx() = block*ratio + sub).
// Called from a static initialiser of the Matmul header, before any launch.
int declare_mix_ratio(uint32_t ratio);

// On-chip memories of this core. Tensors store byte offsets into these arenas.
uint8_t* arena(AscendC::Hardware hw);
uint32_t arena_capacity(AscendC::Hardware hw);
AscendC::Hardware hardware_of(AscendC::TPosition pos);
const char* position_name(AscendC::TPosition pos);
const char* hardware_name(AscendC::Hardware hw);

// ---- diagnostics ----
// Every finding carries a rule id, a message with the values, and a hint; fatal ones end the
// block the way the CPU twin aborts (the NPU would hang, fault or silently corrupt instead).
class Diag {
public:
    Diag(const char* rule, const char* api);
    Diag& msg(const std::string& m);
    Diag& hint(const std::string& h);
    Diag& val(const char* key, long long v);
    Diag& val(const char* key, const std::string& v);
    Diag& at(const void* pc);  // a recorded call site (e.g. the AllocTensor of a leaked slot)
    Diag& at(void* const* frames, int n);  // a recorded call stack (its first user frame is the site)
    [[noreturn]] void fatal();
    void warn();
    void error();  // an error recorded without ending the process (parent-side findings)
    struct Impl;

private:
    Impl* impl_;
};
void* caller_pc();  // noinline: a pc inside the API call of the user's code

// ---- work counters (also the instruction trace the cost model reads) ----
// `strides` of a mask/repeat-form instruction: vec_strides(dstBlk, src0Blk, src1Blk, dstRep, src0Rep, src1Rep); 0: count form
constexpr uint64_t vec_strides(uint64_t db, uint64_t s0b, uint64_t s1b, uint64_t dr, uint64_t s0r, uint64_t s1r) {
    return 1ull << 63 | (db & 0xff) | (s0b & 0xff) << 8 | (s1b & 0xff) << 16 | (dr & 0xff) << 24 | (s0r & 0xff) << 32 | (s1r & 0xff) << 40;
}
void count_vec(const char* api, const char* dtype, uint64_t repeats, uint64_t elems, uint64_t strides = 0);
// a copy of `bytes` in `bursts` bursts of `burst` bytes (0: one burst), `gm_gap` bytes apart on the GM side;
// `gm` is the first GM byte (for its alignment)
void count_copy(AscendC::Hardware from, AscendC::Hardware to, uint64_t bytes, uint64_t bursts = 1, uint64_t burst = 0,
                uint64_t gm_gap = 0, const void* gm = nullptr);
void count_scalar(const char* what);
// A scalar GM read (GetValue in a loop) repeats the outcome of the last one while nothing changes: inside
// [lo, hi) of a buffer with no race shadow no check can fire (in bounds, short of the padding, no pipe order
// for Pipe::S), and count_scalar(name) is two increments (its counter and the merged trace record). gm.cpp sets
// the window after a full check; state.cpp the counts after a full count; trace.cpp and a new block clear them.
struct ScalarReadFast {
    const uint8_t* lo[4] = {};   // a GEMM's loop alternates its operands: a window per buffer, the last four
    const uint8_t* hi[4] = {};
    unsigned next = 0;
    const char* name = nullptr;
    uint64_t* counter = nullptr;
    uint32_t* merged = nullptr;
};
extern ScalarReadFast g_scalar_read;
extern const char* const kGmRead;   // "gm_read": one pointer in every unit (the fast path compares pointers)
inline bool scalar_read_fast(const void* addr, uint64_t bytes, const char* what) {
    ScalarReadFast& f = g_scalar_read;
    const uint8_t* p = static_cast<const uint8_t*>(addr);
    if (f.name != what || *f.merged == 0xFFFFFFFFu) return false;
    if (!(p >= f.lo[0] && p + bytes <= f.hi[0]) && !(p >= f.lo[1] && p + bytes <= f.hi[1]) &&
        !(p >= f.lo[2] && p + bytes <= f.hi[2]) && !(p >= f.lo[3] && p + bytes <= f.hi[3]))
        return false;
    ++*f.counter;
    ++*f.merged;
    return true;
}
void count_sync(const char* what);
// cube work: one instruction of `api` covering `fractals` fractal operations and `macs` multiply-adds (an m x k by k x n MMAD)
void count_cube(const char* api, const char* dtype, uint64_t fractals, uint64_t macs, uint32_t m = 0, uint32_t n = 0,
                uint32_t k = 0);

// ---- cube arithmetic (runtime/gemm.cpp) ----
// c[m x n] += a[m x k] * b[k x n], row-major, each element summing its products in increasing k.
void gemm_f32(float* c, const float* a, const float* b, uint32_t m, uint32_t n, uint32_t k);
void gemm_i32(int32_t* c, const int32_t* a, const int32_t* b, uint32_t m, uint32_t n, uint32_t k);
// float value of every half bit pattern (a table lookup instead of a soft-float call per element)
const float* half_to_float_table();

// ---- pipe hazards on on-chip memory ----
// `api` names the instruction; `pos` the logical position of the tensor (for messages).
// `incoming`, for a write, is the bytes it stores (`bytes` long): a write that leaves every byte as it was
// cannot race (the GM race rule's idempotent store), so an unordered one is a warning, not a hazard.
void access_local(Pipe p, AscendC::Hardware hw, uint32_t offset, uint64_t bytes, bool write, const char* api,
                  const char* operand, const uint8_t* incoming = nullptr);
Clock release(Pipe src, const char* api = nullptr);                 // snapshot: all ops issued so far on src are done
void acquire(Pipe dst, const Clock& c, const char* api = nullptr);  // dst now waits for that snapshot
void set_flag(Pipe src, Pipe dst, int id, const char* api);
void wait_flag(Pipe src, Pipe dst, int id, const char* api);
void pipe_barrier(Pipe p);  // Pipe::COUNT means PIPE_ALL

// ---- global memory ----
// Checks that [addr, addr+bytes) lies in a buffer passed to the kernel, tracks cross-block
// races (per SyncAll epoch) and in-core MTE ordering on GM.
void access_gm(Pipe p, const void* addr, uint64_t bytes, bool write, const char* api, const char* operand);
// A store of `value` (bytes long) to addr, scalar or a copy's burst: as access_gm(write); a store that leaves the
// bytes as they are (another block stored the same value in this phase, e.g. a found-inf flag set to 1.0 by
// every block that finds one, or a copy whose last tile overlaps the next block's with the same data) is not a
// race, since the result is the same in any order.
void access_gm_store(Pipe p, const void* addr, uint64_t bytes, const void* value, const char* api, const char* operand);
void set_atomic(int mode, const char* dtype);  // 0 none, 1 add, 2 max, 3 min
int atomic_mode();
void sync_all(const char* api);
// CrossCoreSetFlag / CrossCoreWaitFlag (runtime/crosscore.cpp)
void cross_set(int mode, uint32_t flag, const char* api);
void cross_wait(uint32_t flag, const char* api);
uint8_t* workspace_base();
uint64_t workspace_bytes();
uint8_t* user_workspace(uint8_t* workspace);

// ---- scalar (S pipe) reads/writes of local memory: auto-synchronised by the compiler ----
void scalar_local(AscendC::Hardware hw, uint32_t offset, uint32_t bytes, bool write);

// ---- buffers and pipes ----
struct BufferRecord {
    AscendC::Hardware hw;
    uint32_t offset;
    uint32_t bytes;
    const void* pc;
    const char* kind;  // "TQue" / "TBuf" / ...
};
uint32_t reserve_local(AscendC::Hardware hw, uint32_t bytes, const char* kind, const char* api, void* owner, uint32_t slot = 0);
uint32_t buffer_end(AscendC::Hardware hw, uint32_t offset, const void* owner);
void release_pipe(void* owner);
// High-water mark of the TPipe ledger in an on-chip memory: APIs that take scratch space from
// the free UB (high-level APIs without sharedTmpBuffer, Select's last 8 KiB) compare against it.
uint32_t reserved_end(AscendC::Hardware hw);
void register_queue(void* q);
void unregister_queue(void* q);
void end_of_kernel_checks();
void printf_impl(const char* fmt, ...);
const char* last_printf();  // this block's last AscendC::printf line ("" when none): what a Trap() stops on

}  // namespace rt
}  // namespace kw
