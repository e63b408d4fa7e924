// Runtime-internal state shared by the runtime translation units (not seen by kernels).
#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>
#include "kw/runtime.h"

namespace kw::rt {

// ---- per-process (per-block) state ----
struct BlockState {
    int64_t block_idx = 0;
    int64_t block_num = 1;
    int64_t sub_block_idx = 0;
    int64_t sub_block_num = 1;
    uint32_t epoch = 0;  // SyncAll phases completed
    int atomic = 0;
    std::string atomic_dtype;
    int report_fd = -1;  // this block's JSON-lines report
    bool in_block = false;
    bool cube = false;   // an AIC instance of a MIX launch (runs the kernel compiled for the cube core)
    int64_t group = 0;   // MIX launches: the AI Core (AIC + its AIVs) this instance belongs to
    int launch = 0;      // launches of this run before this one (names the trace file)
};
BlockState& bs();

// ---- configuration shared by parent and children ----
struct Config {
    SocInfo soc{};
    uint64_t tiling_key = 0;
    int timeout_ms = 20000;
    std::string out_dir;
    bool race_check = true;
    bool track = true;       // pipe-hazard and GM race bookkeeping (off in carry.cpp's repeat calls: same code, same inputs)
    bool poison = true;
    uint32_t mix_ratio = 1;  // AIV instances per block: 2 for kernels that run the Matmul API (MIX 1:2)
    bool carry = false;      // this launch starts UB and L1 with the previous launch's contents (carry.cpp)
    bool keep = false;       // the blocks of this launch leave their UB and L1 for the next launch (carry.cpp)
    uint32_t cube_ratio = 0; // MIX launches of a kernel with its own cube code: AIVs per AIC (crosscore.cpp); 0 = none
    // a sampled launch (sample.cpp): only these blocks run, on GM sized for the task; empty: every block
    std::vector<uint32_t> sample;
    // a run for the instruction trace only (tools/referee/speed_shapes.py): nothing is judged, so a sampled launch's
    // SyncAll is a barrier among the sampled blocks (what the others would have written reads as zeros)
    bool trace_only = false;
    // a trace-only run's cut (tools/referee/speed_extend.py): a block stops once its copies to or from GM have moved
    // this many bytes, and its trace says it was cut short (the referee extends its steady state); 0 = never
    uint64_t trace_budget = 0;
};
Config& config();

// ---- GM buffers passed to (or allocated for) the kernel ----
struct GmBuffer {
    std::string name;
    uint8_t* base = nullptr;
    uint64_t bytes = 0;      // exact size
    uint64_t capacity = 0;   // rounded-up allocation (32 B) the kernel may touch
    uint64_t* shadow = nullptr;  // per-byte race shadow (shared mapping) or null
    std::string role;        // in / out / inout / workspace / tiling / host
    uint64_t segment = 0;    // mapped bytes: the most its allocator segment can leave it (segment_of)
    uint64_t reach = 0;      // accessible bytes: to the end of its segment (gm.cpp layout; past `capacity` a warning)
    const GmBuffer* next = nullptr;  // the tensor the allocator cut right after it in its segment, if any
    uint64_t span = 0;       // mapped bytes up to the guard page: [bytes, span) are canaries (gm_canary.cpp)
    uint8_t* tail_written = nullptr;  // per byte of [bytes, capacity): written through an AscendC API (shared)
    std::vector<uint8_t> fill;        // an output's starting bytes, repeated (the referee's poison, or 0xFF); empty: none
    uint8_t* written = nullptr;       // sampled launches: per byte of [0, capacity), written through an access (shared)
};
GmBuffer* gm_register(const std::string& name, uint64_t bytes, const std::string& role);
// a tensor list's descriptor (role "list") over already registered member buffers (runtime/list_tensor.cpp)
GmBuffer* gm_register_list(const std::string& name, const std::vector<GmBuffer*>& members,
                           const std::vector<std::vector<int64_t>>& dims);
std::vector<GmBuffer*>& gm_buffers();
constexpr uint8_t kGmCanary = 0xFF;  // past a buffer's end: garbage to the kernel, a canary to the runner
bool gm_check_canaries();  // after the launches: raw writes past a buffer's end (rule gm.raw_overrun)
// The operator's next calls in this process (carry.cpp): `launch` with other inputs, then with the
// inputs of `files` again, starting with the UB/L1 the other call left; 1 with a state.stale_local
// finding when that last call fails or writes other bytes than the first, else 0.
// The buffers hold the first call's outputs afterwards.
int repeat_calls(const std::map<GmBuffer*, std::string>& files, const std::function<int()>& launch);
void gm_reset_core_state();  // forget in-core GM ordering (new block)
// ---- sampled launches (sample.cpp) ----
bool sampled();                        // only some blocks run (Config::sample)
bool sample_runs(uint32_t group);      // that block (MIX: that AI Core) is one of the sample
[[noreturn]] void unsampleable(const char* api, const std::string& why);  // blocks exchange data: the sample cannot judge
// the bytes the sampled blocks wrote: the buffer's file holds only those (a sparse file), `ranges` lists them
void sample_write(const GmBuffer* b, const std::string& path, const std::string& ranges);
// ---- generated inputs (generated.cpp): filled on first touch from the seed and the element offset ----
void generate_input(GmBuffer* b, uint64_t seed);   // a float32 input; its pages fault in on demand
bool generated_fault(void* addr);                  // a fault inside a generated input: filled, true
bool is_generated(const GmBuffer* b);
constexpr uint8_t kPoison = 0xFF;                   // a sampled output's bytes before any store
void poison_on_touch(GmBuffer* b);                  // a sampled output: its pages start as kPoison when touched
bool poisoned_on_touch(const GmBuffer* b);          // it is one (and now readable in this process)

// ---- pipe state ----
void pipes_reset();  // new block: fresh clocks, shadows, flags
void arenas_reset();
void arenas_prepare();  // the poisoned arena templates the forked blocks start from (before the first fork)
bool arena_used(AscendC::Hardware hw);  // this block has touched that memory

// ---- state across launches (carry.cpp) ----
void carry_setup();                 // parent, before the first launch: a shared snapshot per core
void carry_save(uint32_t slot);     // a block that ended cleanly leaves its UB and L1 on its core (slot)
void carry_restore(uint32_t slot);  // a block of a `carry` launch starts with what its core holds
void gm_reset_shadows();            // a new launch: no block has touched GM in this launch yet

// ---- reporting ----
void report_line(const std::string& json);  // append one JSON object line to this block's report
std::string json_escape(const std::string& s);
// SIGFPE from an integer division by zero: finish it as the NPU does not trap (scalar_div.cpp); false: not one
bool finish_division_by_zero(void* uctx);
std::string frames_json(void* const* frames, int n);
void counters_flush();
void install_crash_handlers();

// ---- instruction trace (runtime/trace.cpp; read by tools/sim/trace.py for the cost model) ----
enum class TraceKind : uint8_t {
    COPY = 1,     // pipe; src/dst: Hardware; x: bursts; y: bytes; z: burst bytes | GM-side gap << 32; w: GM address % 512
    VEC = 2,      // pipe V; x: repeats; y: elements; z: strides (see count_vec)
    CUBE = 3,     // pipe M; x: fractals; y: multiply-adds; z: m | n << 21 | k << 42
    SCALAR = 4,   // pipe S; name: what (local_read, gm_read, ...)
    REL = 5,      // pipe: the releasing pipe; x: token (all its ops issued so far are done)
    ACQ = 6,      // pipe: the waiting pipe; x: token it waits for
    BARRIER = 7,  // pipe (Pipe::COUNT: all pipes, and the scalar unit)
    SYNCALL = 8,  // every block meets here
};
struct TraceRecord {
    uint8_t kind, pipe, src, dst;
    uint16_t name, dtype;  // interned strings
    uint32_t count;        // identical consecutive records merged
    uint32_t x, w;
    uint32_t gm;           // COPY: the first GM byte's 32-byte sector (bit 31 set; 0: not known), for the L2 model
    uint64_t y, z;
};
static_assert(sizeof(TraceRecord) == 40, "the trace file layout is fixed (tools/sim/trace.py)");
uint16_t trace_name(const char* s);
uint32_t* trace_scalar_count();
bool trace_recording();          // records are kept (not a repeat call of carry.cpp, not KW_SIM_TRACE=0)
void trace_forget_scalar();      // the next scalar op starts a record (what trace_add does when recording nothing)   // the merged count of the last record while a scalar op repeats, else null
TraceRecord trace_record(TraceKind kind, Pipe pipe, const char* name = nullptr, const char* dtype = nullptr, uint32_t x = 0,
                         uint64_t y = 0, uint64_t z = 0);
void trace_add(const TraceRecord& r);
inline void trace_op(TraceKind kind, Pipe pipe, const char* name = nullptr, const char* dtype = nullptr, uint32_t x = 0,
                     uint64_t y = 0, uint64_t z = 0) {
    trace_add(trace_record(kind, pipe, name, dtype, x, y, z));
}
// count_scalar's shortcut: one more of the SCALAR op `name` recorded last (false: record it with trace_op, then
// call trace_scalar_added)
bool trace_scalar_again(const char* name);
void trace_scalar_added(const char* name);
uint32_t trace_token();
void trace_reset();
void trace_flush();
[[noreturn]] void trace_cut();   // ends this block here: its trace is flushed marked as cut (scheduler.cpp)
void trace_mark_cut(uint64_t out_bytes);
// a trace-only run's cut block: the output pages its copies to GM wrote, its distinct output bytes (sample.cpp)
void note_output_write(const uint8_t* gm, uint64_t bursts, uint64_t burst, uint64_t gap);
uint64_t output_bytes_written();

// ---- scheduler ----
struct LaunchBody {
    virtual void run() = 0;
    virtual void run_cube() {}  // the AIC instances of a MIX launch (Config::cube_ratio > 0)
    virtual ~LaunchBody() = default;
};
// A blocked instance hands control back to the parent: 'S' at SyncAll, 'W' at a cross-core wait whose
// flag is not set yet. Returns when the parent resumes it.
void yield_to_parent(char why);

// ---- cross-core flags of MIX launches (crosscore.cpp) ----
void crosscore_setup(uint32_t groups, uint32_t ratio);  // parent, before the instances start
uint64_t crosscore_generation();                        // flag sets so far (the parent resumes waiters after one)
// Runs body once per block in [0, block_dim) in forked children with SyncAll support.
// Returns the overall status: 0 ok, 1 rule violation, 2 crash, 3 timeout, 4 bad launch.
int run_blocks(uint32_t block_dim, LaunchBody& body);
// Accumulates over every launch of a run (host code may launch several kernels).
struct LaunchSummary {
    int status = 0;
    uint32_t block_dim = 0;
    int launches = 0;
    std::string detail;
    std::vector<std::string> block_status;
};
LaunchSummary& last_launch();

}  // namespace kw::rt
