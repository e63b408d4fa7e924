// Pipe-hazard tracking on on-chip memory. Every instruction gets a sequence number on its
// pipe; every 32-byte block remembers its last writer and last reader per pipe. Flags,
// barriers and queue operations move vector clocks; an access that is not ordered after
// the conflicting one (and not covered by the compiler's automatic sync) is a hazard.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <unordered_map>
#include <vector>
#include "internal.h"

namespace kw::rt {
namespace {

struct Entry {
    uint32_t w_seq = 0;
    uint8_t w_pipe = 0;
    uint32_t r_seq[kPipes] = {};
};
// On-chip blocks also remember which of their 32 bytes each pipe read since the last write (bit i = byte i): a
// write that keeps those bytes cannot disturb that reader (GM's sparse shadow keeps the smaller Entry).
struct LocalEntry : Entry {
    uint32_t r_bytes[kPipes] = {};
};

constexpr int kMaxPendingSets = 4;

// One entry per 32-byte block of a memory, zero-initialised lazily: calloc of a block this large maps
// fresh pages, so a kernel pays only for the part of the memory it touches.
class Shadow {
public:
    Shadow() = default;
    Shadow(const Shadow&) = delete;
    Shadow& operator=(Shadow&& o) noexcept {
        std::swap(p_, o.p_);
        std::swap(n_, o.n_);
        return *this;
    }
    ~Shadow() { std::free(p_); }
    bool empty() const { return n_ == 0; }
    size_t size() const { return n_; }
    void resize(size_t n) {
        std::free(p_);
        p_ = static_cast<LocalEntry*>(std::calloc(n, sizeof(LocalEntry)));
        if (!p_) std::abort();
        n_ = n;
    }
    LocalEntry& operator[](size_t i) { return p_[i]; }

private:
    LocalEntry* p_ = nullptr;
    size_t n_ = 0;
};

struct PipeState {
    uint32_t issued[kPipes] = {};
    Clock vc[kPipes];  // vc[p].c[q]: ops of q known complete before p's next op
    Shadow shadow[static_cast<int>(AscendC::Hardware::MAX)];
    // pending SetFlags per (src, dst, id), oldest first: the NPU counts repeated sets of one flag
    // (cann-ops kernels set a FetchEventID flag twice and wait twice), each wait takes the oldest
    uint8_t flag_count[kPipes][kPipes][16] = {};
    Clock flag_clock[kPipes][kPipes][16][kMaxPendingSets];
};
// The state is large (a clock per pending flag); a block process starts with the runner's untouched copy,
// so it is rebuilt only when this process has used it.
bool& pipes_dirty() {
    static bool dirty = false;
    return dirty;
}
PipeState& pipe_state() {
    static PipeState s;
    return s;
}
PipeState& ps() {
    pipes_dirty() = true;
    return pipe_state();
}

// With --cce-auto-sync the compiler orders scalar against every pipe and vector against
// vector; everything else is the kernel's (or the queues') job.
bool auto_synced(Pipe a, Pipe b) { return a == Pipe::S || b == Pipe::S || (a == Pipe::V && b == Pipe::V); }

std::string hazard_hint(Pipe from, Pipe to) {
    std::string f = pipe_name(from), t = pipe_name(to);
    if (from == to)
        return "two " + f + " copies write the same bytes; put PipeBarrier<PIPE_" + f + ">() between them";
    return "order the " + f + " instruction before the " + t + " one: pass the tensor through a TQue (EnQue/DeQue, "
           "AllocTensor/FreeTensor), or add SetFlag<HardEvent::" + f + "_" + t + ">(id) after the " + f +
           " instruction and WaitFlag<HardEvent::" + f + "_" + t + ">(id) before the " + t + " one";
}

[[noreturn]] void hazard(const char* kind, Pipe earlier, uint32_t earlier_seq, Pipe now, AscendC::Hardware hw, uint32_t offset,
                         const char* api, const char* operand) {
    std::string what = std::string(kind) == "RAW" ? "reads data that an earlier " + std::string(pipe_name(earlier)) + " instruction writes"
                     : std::string(kind) == "WAR" ? "overwrites data that an earlier " + std::string(pipe_name(earlier)) + " instruction still reads"
                                                  : "writes bytes that an earlier " + std::string(pipe_name(earlier)) + " instruction also writes";
    Diag(("pipe.hazard." + std::string(kind == std::string("RAW") ? "raw" : kind == std::string("WAR") ? "war" : "waw")).c_str(), api)
        .msg(std::string(api) + " (" + pipe_name(now) + " pipe) " + what + " at " + hardware_name(hw) + " offset " +
             std::to_string(offset) + " (operand " + operand + "), with no synchronisation between them; on the NPU the pipes run "
             "concurrently, so the result depends on timing")
        .val("earlier_pipe", pipe_name(earlier)).val("later_pipe", pipe_name(now)).val("offset", offset)
        .val("earlier_instruction", earlier_seq)
        .hint(hazard_hint(earlier, now))
        .fatal();
}

uint32_t next_seq(Pipe p) { return ++ps().issued[static_cast<int>(p)]; }

// Issued ops of each pipe the scalar unit has already waited for in the trace (see scalar_local).
uint32_t scalar_waited[kPipes] = {};

}  // namespace

[[noreturn]] void beyond_capacity(AscendC::Hardware hw, uint64_t offset, uint64_t bytes, bool write, const char* api,
                                 const char* operand);  // queues.cpp: names the InitBuffer that reserved past the end

void pipes_reset() {
    std::fill(std::begin(scalar_waited), std::end(scalar_waited), 0u);
    if (!pipes_dirty()) return;
    PipeState& s = pipe_state();
    s.~PipeState();
    new (&s) PipeState();
    pipes_dirty() = false;
}

namespace {
// An unordered write whose bytes in block k equal what the memory holds: whichever order the pipes take, every
// reader and the final contents see the same bytes (e.g. a Catlass matmul reloading the same bias into the bias
// table on each L0 tile; AddRmsNormCast's Gather rewriting the lanes of rstd an MTE3 copy does not read). Reported
// once as a warning: the missing sync is real, its effect on this data is nil.
// `only`: the bytes of the block that matter (for a WAR, those the earlier readers read; bit i = byte k*32+i).
bool same_bytes(AscendC::Hardware hw, uint32_t offset, uint64_t bytes, uint64_t k, const uint8_t* incoming, Pipe earlier,
                Pipe now, const char* kind, const char* api, uint32_t only = ~0u) {
    if (!incoming) return false;
    uint64_t lo = std::max<uint64_t>(offset, k * 32), hi = std::min<uint64_t>(uint64_t(offset) + bytes, k * 32 + 32);
    for (uint64_t b = lo; b < hi; ++b)
        if ((only >> (b - k * 32) & 1u) && arena(hw)[b] != incoming[b - offset]) return false;
    static bool warned = false;
    if (!warned) {
        warned = true;
        Diag("pipe.hazard.same_bytes", api)
            .msg(std::string(api) + " (" + pipe_name(now) + " pipe) writes " + hardware_name(hw) + " offset " + std::to_string(k * 32) +
                 " with no synchronisation after an earlier " + pipe_name(earlier) + " instruction (" + kind +
                 "), but every byte the order could affect keeps its value, so no result changes on this data")
            .val("earlier_pipe", pipe_name(earlier)).val("later_pipe", pipe_name(now)).val("offset", (long long)(k * 32))
            .hint(hazard_hint(earlier, now))
            .warn();
    }
    return true;
}
}  // namespace

void access_local(Pipe p, AscendC::Hardware hw, uint32_t offset, uint64_t bytes, bool write, const char* api, const char* operand,
                  const uint8_t* incoming) {
    if (bytes == 0) return;
    PipeState& s = ps();
    Shadow& sh = s.shadow[static_cast<int>(hw)];
    uint32_t cap = arena_capacity(hw);
    if (uint64_t(offset) + bytes > cap) beyond_capacity(hw, offset, bytes, write, api, operand);
    if (!config().track) return;
    if (sh.empty()) sh.resize(cap / 32 + 2048);
    uint32_t seq = next_seq(p);
    int pi = static_cast<int>(p);
    uint64_t first = offset / 32, last = (uint64_t(offset) + bytes - 1) / 32;
    if (last >= sh.size()) last = sh.size() - 1;
    const Clock& mine = s.vc[pi];
    for (uint64_t k = first; k <= last; ++k) {
        LocalEntry& e = sh[k];
        Pipe wp = static_cast<Pipe>(e.w_pipe);
        if (e.w_seq != 0) {
            bool ordered = mine.c[e.w_pipe] >= e.w_seq;
            bool other_pipe = wp != p && !auto_synced(wp, p), same_dma = write && wp == p && (p == Pipe::MTE2 || p == Pipe::MTE1);
            if ((other_pipe || same_dma) && !ordered && !(write && same_bytes(hw, offset, bytes, k, incoming, wp, p, "WAW", api)))
                hazard(write ? "WAW" : "RAW", wp, e.w_seq, p, hw, uint32_t(k * 32), api, operand);
        }
        if (write) {
            for (int r = 0; r < kPipes; ++r) {
                if (r == pi || e.r_seq[r] == 0) continue;
                if (!auto_synced(static_cast<Pipe>(r), p) && mine.c[r] < e.r_seq[r] &&
                    !same_bytes(hw, offset, bytes, k, incoming, static_cast<Pipe>(r), p, "WAR", api, e.r_bytes[r]))
                    hazard("WAR", static_cast<Pipe>(r), e.r_seq[r], p, hw, uint32_t(k * 32), api, operand);
            }
            e.w_seq = seq;
            e.w_pipe = static_cast<uint8_t>(p);
            std::fill(std::begin(e.r_seq), std::end(e.r_seq), 0u);
            std::fill(std::begin(e.r_bytes), std::end(e.r_bytes), 0u);
        } else {
            e.r_seq[pi] = seq;
            uint64_t lo = std::max<uint64_t>(offset, k * 32) - k * 32, hi = std::min<uint64_t>(uint64_t(offset) + bytes, k * 32 + 32) - k * 32;
            e.r_bytes[pi] |= uint32_t((hi - lo == 32 ? ~0ull : ((1ull << (hi - lo)) - 1)) << lo);
        }
    }
}

namespace {
// The trace's record of a release (a token) or of a wait for one.
uint32_t trace_sync(TraceKind kind, Pipe p, uint32_t token, const char* api) {
    TraceRecord r = trace_record(kind, p, api, nullptr, token ? token : trace_token());
    trace_add(r);
    return r.x;
}
}  // namespace

// The compiler orders scalar accesses after the pipe that last wrote the bytes (--cce-auto-sync): the
// scalar unit stalls until that pipe is done. The trace records the stall as a release of the writer and a
// wait of the scalar unit. The scalar unit issues every instruction in order, so whatever any pipe is given
// after the stall starts after that pipe's work (as after WaitFlag<X_S>): a reload of the same UB after
// GetValue has read the first load is no WAW (MultiKernelBench cumsum_reverse).
void scalar_local(AscendC::Hardware hw, uint32_t offset, uint32_t bytes, bool write) {
    PipeState& s = ps();
    Shadow& sh = s.shadow[static_cast<int>(hw)];
    uint32_t need[kPipes] = {};
    for (uint64_t k = offset / 32; bytes && k <= (uint64_t(offset) + bytes - 1) / 32 && k < sh.size(); ++k) {
        const Entry& e = sh[k];
        if (e.w_seq && e.w_pipe != uint8_t(Pipe::S)) need[e.w_pipe] = std::max(need[e.w_pipe], e.w_seq);
        if (write)
            for (int r = 0; r < kPipes; ++r)
                if (r != int(Pipe::S)) need[r] = std::max(need[r], e.r_seq[r]);
    }
    for (int p = 0; p < kPipes; ++p)
        if (need[p] > scalar_waited[p]) {
            scalar_waited[p] = s.issued[p];
            Clock done = s.vc[p];
            done.c[p] = s.issued[p];
            for (int q = 0; q < kPipes; ++q)
                for (int r = 0; r < kPipes; ++r) s.vc[q].c[r] = std::max(s.vc[q].c[r], done.c[r]);
            uint32_t t = trace_sync(TraceKind::REL, Pipe(p), 0, "auto-sync");
            trace_sync(TraceKind::ACQ, Pipe::S, t, "auto-sync");
        }
    access_local(Pipe::S, hw, offset, bytes, write, write ? "SetValue" : "GetValue", "tensor");
}

Clock release(Pipe src, const char* api) {
    PipeState& s = ps();
    int i = static_cast<int>(src);
    Clock c = s.vc[i];
    c.c[i] = s.issued[i];
    c.token = trace_sync(TraceKind::REL, src, 0, api);
    return c;
}

void acquire(Pipe dst, const Clock& c, const char* api) {
    Clock& mine = ps().vc[static_cast<int>(dst)];
    for (int q = 0; q < kPipes; ++q) mine.c[q] = std::max(mine.c[q], c.c[q]);
    if (c.token) trace_sync(TraceKind::ACQ, dst, c.token, api);
}

void set_flag(Pipe src, Pipe dst, int id, const char* api) {
    if (id < 0 || id > 15)
        Diag("flag.event_id", api).msg("event id " + std::to_string(id) + " is outside 0..7").val("event_id", id)
            .hint("use an id from GetTPipePtr()->FetchEventID(evt) or EVENT_ID0..EVENT_ID7").fatal();
    PipeState& s = ps();
    int a = static_cast<int>(src), b = static_cast<int>(dst);
    Clock c = release(src, api);
    uint8_t& n = s.flag_count[a][b][id];
    if (n == kMaxPendingSets)
        Diag("flag.set_overflow", api)
            .msg(std::string("SetFlag<HardEvent::") + pipe_name(src) + "_" + pipe_name(dst) + ">(" + std::to_string(id) + ") is set " +
                 std::to_string(n + 1) + " times without a WaitFlag in between")
            .val("event_id", id).val("pending", n)
            .hint("pair every SetFlag with a WaitFlag of the same HardEvent and id before setting it again").fatal();
    s.flag_clock[a][b][id][n++] = c;
    count_sync("SetFlag");
}

void wait_flag(Pipe src, Pipe dst, int id, const char* api) {
    PipeState& s = ps();
    int a = static_cast<int>(src), b = static_cast<int>(dst);
    if (id < 0 || id > 15 || s.flag_count[a][b][id] == 0)
        Diag("flag.wait_without_set", api)
            .msg(std::string("WaitFlag<HardEvent::") + pipe_name(src) + "_" + pipe_name(dst) + ">(" + std::to_string(id) +
                 ") has no SetFlag with the same event and id before it; on the NPU this core waits forever "
                 "(AI Core timeout, error 507014)")
            .val("event", std::string(pipe_name(src)) + "_" + pipe_name(dst)).val("event_id", id)
            .hint("every WaitFlag needs an earlier SetFlag of the same HardEvent and id (before a loop, set the flag once "
                  "so the first iteration's WaitFlag can pass)")
            .fatal();
    Clock* pending = s.flag_clock[a][b][id];
    acquire(dst, pending[0], api);
    // the scalar unit issues every instruction in order: while it waits, nothing after the wait is issued
    // to any pipe, so a wait on S orders the source's work before everything that follows (vc holds no
    // trace token: the wait's one acquire above is what the trace records)
    if (dst == Pipe::S)
        for (int q = 0; q < kPipes; ++q) acquire(static_cast<Pipe>(q), s.vc[b], api);
    uint8_t& n = s.flag_count[a][b][id];
    for (int k = 1; k < n; ++k) pending[k - 1] = pending[k];
    --n;
    count_sync("WaitFlag");
}

void pipe_barrier(Pipe p) {
    PipeState& s = ps();
    trace_op(TraceKind::BARRIER, p);
    if (p == Pipe::COUNT) {
        for (int a = 0; a < kPipes; ++a)
            for (int q = 0; q < kPipes; ++q) s.vc[a].c[q] = s.issued[q];
        count_sync("PipeBarrier<PIPE_ALL>");
        return;
    }
    int i = static_cast<int>(p);
    s.vc[i].c[i] = s.issued[i];
    count_sync("PipeBarrier");
}

}  // namespace kw::rt

namespace kw::rt {
// In-core ordering of GM accesses (e.g. MTE3 writes a workspace that MTE2 reads back).
// Sparse: only the 32-byte GM blocks this core touched are tracked.
namespace {
std::unordered_map<uint64_t, Entry>& gm_pipe_shadow() {
    static std::unordered_map<uint64_t, Entry> m;
    return m;
}
}  // namespace

void gm_reset_core_state() { gm_pipe_shadow().clear(); }

void access_gm_pipes(Pipe p, uint64_t addr, uint64_t bytes, bool write, const char* api, const char* operand) {
    if (bytes == 0 || p == Pipe::S || !config().track) return;  // scalar GM access is ordered by the compiler
    PipeState& s = ps();
    uint32_t seq = next_seq(p);
    int pi = static_cast<int>(p);
    const Clock& mine = s.vc[pi];
    auto& m = gm_pipe_shadow();
    for (uint64_t k = addr / 32; k <= (addr + bytes - 1) / 32; ++k) {
        auto it = m.find(k);
        if (it == m.end()) {
            if (!write) continue;
            it = m.emplace(k, Entry()).first;
        }
        Entry& e = it->second;
        Pipe wp = static_cast<Pipe>(e.w_pipe);
        if (e.w_seq != 0 && wp != p && !auto_synced(wp, p) && mine.c[e.w_pipe] < e.w_seq)
            hazard(write ? "WAW" : "RAW", wp, e.w_seq, p, AscendC::Hardware::GM, uint32_t((k * 32) & 0xffffffffu), api, operand);
        if (write) {
            for (int r = 0; r < kPipes; ++r)
                if (r != pi && e.r_seq[r] && !auto_synced(static_cast<Pipe>(r), p) && mine.c[r] < e.r_seq[r])
                    hazard("WAR", static_cast<Pipe>(r), e.r_seq[r], p, AscendC::Hardware::GM, uint32_t((k * 32) & 0xffffffffu), api, operand);
            e.w_seq = seq;
            e.w_pipe = static_cast<uint8_t>(p);
            std::fill(std::begin(e.r_seq), std::end(e.r_seq), 0u);
        } else {
            e.r_seq[pi] = seq;
        }
    }
}
}  // namespace kw::rt
