// Per-block state: SoC profile, block indices, on-chip arenas, work counters.
#include <sys/mman.h>
#include <cstdarg>
#include <cstdlib>
#include <cstring>
#include <map>
#include "internal.h"

uint64_t kw_tiling_key() { return kw::rt::config().tiling_key; }

namespace kw {

const char* pipe_name(Pipe p) {
    static const char* names[] = {"S", "V", "M", "MTE1", "MTE2", "MTE3", "FIX", "ALL"};
    return names[static_cast<int>(p)];
}

Pipe pipe_of(pipe_t p) {
    switch (p) {
        case PIPE_S: return Pipe::S;
        case PIPE_V: case PIPE_V2: return Pipe::V;
        case PIPE_M: return Pipe::M;
        case PIPE_MTE1: return Pipe::MTE1;
        case PIPE_MTE2: return Pipe::MTE2;
        case PIPE_MTE3: return Pipe::MTE3;
        case PIPE_FIX: return Pipe::FIX;
        default: return Pipe::COUNT;
    }
}

namespace rt {

BlockState& bs() {
    static BlockState s;
    return s;
}
ScalarReadFast g_scalar_read;
const char* const kGmRead = "gm_read";

Config& config() {
    static Config c;
    return c;
}
const SocInfo& soc() { return config().soc; }

int64_t block_idx() { return bs().block_idx; }
int64_t block_num() { return bs().block_num; }
int64_t sub_block_idx() { return bs().sub_block_idx; }
int64_t sub_block_num() { return bs().sub_block_num; }

// Arenas are a little larger than any SoC's memory so a checked overflow never touches the host heap.
// The process that forks the blocks fills one template per memory once (arenas_prepare); every block
// process starts with it copy-on-write, so a block pays only for the pages it writes.
namespace {
constexpr uint32_t kArenaSlack = 64 * 1024;
constexpr int kMemories = static_cast<int>(AscendC::Hardware::MAX);
struct Arena {
    uint8_t* mem = nullptr;  // the template (a private copy once written), or this process's own
    bool used = false;
};
Arena& arena_of(AscendC::Hardware hw) {
    static Arena arenas[kMemories];
    return arenas[static_cast<int>(hw)];
}
// twice the memory: InitBuffer may reserve past the end (queues.cpp kOverReserve); access_local stops any use there
size_t arena_bytes(AscendC::Hardware hw) { return 2 * size_t(arena_capacity(hw)) + kArenaSlack; }
uint8_t* filled(AscendC::Hardware hw) {
    size_t n = arena_bytes(hw);
    void* p = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) std::abort();
    if (config().poison) std::memset(p, 0xFF, n);
    return static_cast<uint8_t*>(p);
}
}  // namespace

uint32_t arena_capacity(AscendC::Hardware hw) {
    const SocInfo& s = soc();
    switch (hw) {
        case AscendC::Hardware::UB: return s.ub_bytes;
        case AscendC::Hardware::L1: return s.l1_bytes;
        case AscendC::Hardware::L0A: return s.l0a_bytes;
        case AscendC::Hardware::L0B: return s.l0b_bytes;
        case AscendC::Hardware::L0C: return s.l0c_bytes;
        case AscendC::Hardware::BIAS: return s.bt_bytes;
        case AscendC::Hardware::FIXBUF: return s.fb_bytes;
        default: return 0;
    }
}

void arenas_prepare() {
    for (int i = 0; i < kMemories; ++i) {
        auto hw = static_cast<AscendC::Hardware>(i);
        Arena& a = arena_of(hw);
        if (!a.mem && arena_capacity(hw)) a.mem = filled(hw);
    }
}

uint8_t* arena(AscendC::Hardware hw) {
    Arena& a = arena_of(hw);
    if (!a.mem) a.mem = filled(hw);  // no template (a process that did not prepare one)
    a.used = true;
    return a.mem;
}

bool arena_used(AscendC::Hardware hw) { return arena_of(hw).used; }

void arenas_reset() {
    for (int i = 0; i < kMemories; ++i) arena_of(static_cast<AscendC::Hardware>(i)).used = false;
}

AscendC::Hardware hardware_of(AscendC::TPosition pos) {
    using P = AscendC::TPosition;
    using H = AscendC::Hardware;
    switch (pos) {
        case P::GM: return H::GM;
        case P::A1: case P::B1: case P::C1: case P::TSCM: return H::L1;
        case P::A2: return H::L0A;
        case P::B2: return H::L0B;
        case P::CO1: return H::L0C;
        case P::C2: return H::BIAS;
        case P::CO2: return soc().cce_aicore <= 200 ? H::UB : H::GM;
        case P::C2PIPE2GM: return H::FIXBUF;
        default: return H::UB;
    }
}

const char* position_name(AscendC::TPosition pos) {
    static const char* n[] = {"GM", "A1", "A2", "B1", "B2", "C1", "C2", "CO1", "CO2", "VECIN", "VECOUT", "VECCALC",
                              "SPM", "TSCM", "C2PIPE2GM", "C2PIPE2LOCAL", "MAX"};
    int i = static_cast<int>(pos);
    return i >= 0 && i <= 16 ? n[i] : "?";
}

const char* hardware_name(AscendC::Hardware hw) {
    static const char* n[] = {"GM", "UB", "L1", "L0A", "L0B", "L0C", "BIAS", "FIXBUF", "MAX"};
    return n[static_cast<int>(hw)];
}

// ---- work counters (flushed into the block report at the end) ----
namespace {
struct VecCount {
    uint64_t instructions = 0, repeats = 0, elements = 0;
};
struct Counters {
    std::map<std::pair<std::string, std::string>, VecCount> vec;
    std::map<std::pair<std::string, std::string>, VecCount> cube;  // repeats = fractals, elements = MACs
    std::map<std::string, uint64_t> copy_bytes;
    std::map<std::string, uint64_t> copy_ops;
    std::map<std::string, uint64_t> scalar;
    std::map<std::string, uint64_t> sync;
};
Counters& counters() {
    static Counters c;
    return c;
}
std::string map_json(const std::map<std::string, uint64_t>& m) {
    std::string s = "{";
    for (auto& kv : m) s += (s.size() > 1 ? "," : "") + ("\"" + json_escape(kv.first) + "\":" + std::to_string(kv.second));
    return s + "}";
}
}  // namespace

// The pipe a copy between two memories runs on.
Pipe copy_pipe(AscendC::Hardware from, AscendC::Hardware to) {
    using H = AscendC::Hardware;
    if (from == H::GM) return Pipe::MTE2;
    if (from == H::L0C) return Pipe::FIX;
    if (from == H::UB) return to == H::UB ? Pipe::V : Pipe::MTE3;
    if (from == H::L1) return to == H::GM ? Pipe::MTE3 : Pipe::MTE1;
    return Pipe::MTE2;
}

void count_vec(const char* api, const char* dtype, uint64_t repeats, uint64_t elems, uint64_t strides) {
    VecCount& c = counters().vec[{api, dtype}];
    c.instructions += 1;
    c.repeats += repeats;
    c.elements += elems;
    trace_op(TraceKind::VEC, Pipe::V, api, dtype, uint32_t(repeats), elems, strides);
}
void count_copy(AscendC::Hardware from, AscendC::Hardware to, uint64_t bytes, uint64_t bursts, uint64_t burst, uint64_t gm_gap,
                const void* gm) {
    std::string k = std::string(hardware_name(from)) + "->" + hardware_name(to);
    counters().copy_bytes[k] += bytes;
    counters().copy_ops[k] += 1;
    TraceRecord r = trace_record(TraceKind::COPY, copy_pipe(from, to), nullptr, nullptr, uint32_t(bursts ? bursts : 1), bytes,
                                 (burst ? burst : bytes) | (gm_gap < 0xffffffffu ? gm_gap : 0xffffffffu) << 32);
    r.src = uint8_t(from);
    r.dst = uint8_t(to);
    r.w = uint32_t(reinterpret_cast<uintptr_t>(gm) % 512);
    if (gm) r.gm = uint32_t(reinterpret_cast<uintptr_t>(gm) >> 5 & 0x7fffffffu) | 0x80000000u;
    trace_add(r);
    static uint64_t gm_moved = 0;   // per block: each block is its own forked process
    if (config().trace_budget && config().track && (from == AscendC::Hardware::GM || to == AscendC::Hardware::GM)) {
        if (to == AscendC::Hardware::GM && gm)
            note_output_write(static_cast<const uint8_t*>(gm), bursts, burst ? burst : bytes, burst ? gm_gap : 0);
        if ((gm_moved += bytes) >= config().trace_budget) trace_cut();
    }
}
void count_cube(const char* api, const char* dtype, uint64_t fractals, uint64_t macs, uint32_t m, uint32_t n, uint32_t k) {
    VecCount& c = counters().cube[{api, dtype}];
    c.instructions += 1;
    c.repeats += fractals;
    c.elements += macs;
    trace_op(TraceKind::CUBE, Pipe::M, api, dtype, uint32_t(fractals), macs,
             uint64_t(m & 0x1fffff) | uint64_t(n & 0x1fffff) << 21 | uint64_t(k & 0x1fffff) << 42);
}
void count_scalar(const char* what) {
    // scalar GM loops call this per element: remember each name's counter by pointer (map nodes never move, the
    // counters are never cleared), not a std::string built and compared per call
    struct Slot { const char* what; uint64_t* n; };
    static Slot cache[8] = {};
    static unsigned next = 0;
    uint64_t* n = nullptr;
    for (const Slot& c : cache)
        if (c.what == what) {
            n = c.n;
            break;
        }
    if (!n) {
        n = &counters().scalar[what];
        cache[next++ % 8] = {what, n};
    }
    *n += 1;
    if (!trace_recording()) {   // the repeat calls (carry.cpp), KW_SIM_TRACE=0: the count alone, no record to merge
        static uint32_t unrecorded = 0;
        trace_forget_scalar();
        unrecorded = 0;
        g_scalar_read.name = what, g_scalar_read.counter = n, g_scalar_read.merged = &unrecorded;
        return;
    }
    if (!trace_scalar_again(what)) {
        trace_op(TraceKind::SCALAR, Pipe::S, what);
        trace_scalar_added(what);
    } else if (uint32_t* merged = trace_scalar_count()) {   // the next identical count is two increments
        g_scalar_read.name = what, g_scalar_read.counter = n, g_scalar_read.merged = merged;
    }
}
void count_sync(const char* what) { counters().sync[what] += 1; }

void counters_flush() {
    Counters& c = counters();
    std::string cube = "[";
    for (auto& kv : c.cube) {
        if (cube.size() > 1) cube += ",";
        cube += "{\"api\":\"" + json_escape(kv.first.first) + "\",\"dtype\":\"" + kv.first.second +
                "\",\"instructions\":" + std::to_string(kv.second.instructions) + ",\"fractals\":" +
                std::to_string(kv.second.repeats) + ",\"macs\":" + std::to_string(kv.second.elements) + "}";
    }
    cube += "]";
    std::string vec = "[";
    for (auto& kv : c.vec) {
        if (vec.size() > 1) vec += ",";
        vec += "{\"api\":\"" + json_escape(kv.first.first) + "\",\"dtype\":\"" + kv.first.second +
               "\",\"instructions\":" + std::to_string(kv.second.instructions) + ",\"repeats\":" + std::to_string(kv.second.repeats) +
               ",\"elements\":" + std::to_string(kv.second.elements) + "}";
    }
    vec += "]";
    report_line("{\"type\":\"counters\",\"block\":" + std::to_string(bs().block_idx) + ",\"vector\":" + vec + ",\"cube\":" + cube +
                ",\"copy_bytes\":" + map_json(c.copy_bytes) + ",\"copy_ops\":" + map_json(c.copy_ops) +
                ",\"scalar\":" + map_json(c.scalar) + ",\"sync\":" + map_json(c.sync) + "}");
}

static std::string& last_printed() {
    static std::string s;
    return s;
}

void printf_impl(const char* fmt, ...) {
    std::printf("[block %lld] ", static_cast<long long>(bs().block_idx));
    char buf[512];
    va_list ap, copy;
    va_start(ap, fmt);
    va_copy(copy, ap);
    std::vsnprintf(buf, sizeof buf, fmt, copy);
    va_end(copy);
    std::vprintf(fmt, ap);
    va_end(ap);
    std::fflush(stdout);
    last_printed() = buf;
    while (!last_printed().empty() && last_printed().back() == '\n') last_printed().pop_back();
}

const char* last_printf() { return last_printed().c_str(); }

}  // namespace rt
}  // namespace kw
