// The instruction trace: per block, the ordered stream of what each pipe did (copies with their
// burst shape, vector and cube instructions with their dtype and work, scalar accesses, and the
// synchronisation between pipes as release/acquire tokens), written at the end of the block as
// `trace_<launch>_<block>.bin` for the cost model (tools/perf). Records are fixed-size and
// appended to memory; identical consecutive records are merged into one with a count, so a
// scalar loop costs one record, not thousands.
//
// File: "KWTR", u32 version, u32 records, u32 names, u32 flags (bit 0: truncated, bit 1: cut at a trace-only
// run's budget), u32 sub_block_num,
// then the records (struct TraceRecord, 40 bytes each), then the interned names, NUL-separated.
#include <fcntl.h>
#include <unistd.h>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <unordered_map>
#include <vector>
#include "internal.h"

namespace kw::rt {
namespace {

constexpr uint32_t kVersion = 1;
constexpr size_t kMaxRecords = 2u << 20;  // 80 MB per block; past it the trace says it is truncated

struct State {
    std::vector<TraceRecord> recs;
    std::vector<std::string> names{""};  // id 0: no name
    std::unordered_map<const char*, uint16_t> by_ptr;
    std::unordered_map<std::string, uint16_t> by_text;
    uint32_t tokens = 0;
    bool truncated = false;
    bool cut = false;        // a trace-only run's block stopped at its budget (trace_cut): the file's flags bit 1
    uint64_t cut_out_bytes = 0;   // ... and the output bytes (whole pages) its copies wrote: `cut_<launch>_<block>.txt`
    const char* last_scalar = nullptr;  // the name of the last record when it is a SCALAR op (trace_scalar_again)
    const char* recent[8] = {};  // names looked up last (per-element scalar APIs ask for the same few)
    uint16_t recent_id[8] = {};
    unsigned next = 0;
};
State& st() {
    static State s;
    return s;
}

// KW_SIM_TRACE=0 turns recording off (the overhead benchmark, evals/perf_overhead.py, compares both).
bool enabled() {
    static const bool on = [] {
        const char* v = std::getenv("KW_SIM_TRACE");
        return !(v && std::strcmp(v, "0") == 0);
    }();
    return on;
}

bool same(const TraceRecord& a, const TraceRecord& b) {
    return a.kind == b.kind && a.pipe == b.pipe && a.src == b.src && a.dst == b.dst && a.name == b.name && a.dtype == b.dtype &&
           a.x == b.x && a.w == b.w && a.y == b.y && a.z == b.z;
}

}  // namespace

uint16_t trace_name(const char* s) {
    if (s == nullptr) return 0;
    State& t = st();
    for (unsigned i = 0; i < 8; ++i)
        if (t.recent[i] == s) return t.recent_id[i];
    auto it = t.by_ptr.find(s);
    if (it != t.by_ptr.end()) {
        t.recent[t.next % 8] = s, t.recent_id[t.next++ % 8] = it->second;
        return it->second;
    }
    auto jt = t.by_text.find(s);
    uint16_t id;
    if (jt != t.by_text.end()) {
        id = jt->second;
    } else {
        id = t.names.size() < 65535 ? uint16_t(t.names.size()) : 0;
        if (id) {
            t.names.emplace_back(s);
            t.by_text.emplace(s, id);
        }
    }
    t.by_ptr.emplace(s, id);
    return id;
}

TraceRecord trace_record(TraceKind kind, Pipe pipe, const char* name, const char* dtype, uint32_t x, uint64_t y, uint64_t z) {
    TraceRecord r{};
    r.kind = uint8_t(kind);
    r.pipe = uint8_t(pipe);
    r.name = trace_name(name);
    r.dtype = trace_name(dtype);
    r.count = 1;
    r.x = x;
    r.y = y;
    r.z = z;
    return r;
}

bool trace_scalar_again(const char* name) {
    // a scalar loop records the same SCALAR op again and again: count it on the last record without building one
    State& t = st();
    if (t.last_scalar != name || name == nullptr || t.recs.empty() || !config().track) return false;
    t.recs.back().count += 1;
    return true;
}

void trace_scalar_added(const char* name) {
    State& t = st();
    t.last_scalar = !t.recs.empty() && t.recs.back().kind == uint8_t(TraceKind::SCALAR) &&
                    t.recs.back().name == trace_name(name) && t.recs.back().dtype == 0 ? name : nullptr;
}

bool trace_recording() { return enabled() && config().track; }

void trace_forget_scalar() { st().last_scalar = nullptr; }

uint32_t* trace_scalar_count() {
    State& t = st();
    return t.last_scalar && !t.recs.empty() && config().track ? &t.recs.back().count : nullptr;
}

void trace_add(const TraceRecord& r) {
    st().last_scalar = nullptr;
    g_scalar_read.name = nullptr;   // the merged record may move or end
    if (!enabled() || !config().track) return;  // the repeat calls of carry.cpp are not the judged call
    State& t = st();
    if (!t.recs.empty() && r.kind != uint8_t(TraceKind::REL) && r.kind != uint8_t(TraceKind::ACQ) && same(t.recs.back(), r)) {
        t.recs.back().count += r.count;
        return;
    }
    if (t.recs.size() >= kMaxRecords) {
        t.truncated = true;
        return;
    }
    t.recs.push_back(r);
}

uint32_t trace_token() { return ++st().tokens; }

void trace_mark_cut(uint64_t out_bytes) {
    st().cut = true;
    st().cut_out_bytes = out_bytes;
}

void trace_reset() {
    st() = State();
    g_scalar_read = ScalarReadFast();
}

void trace_flush() {
    if (!enabled() || !config().track) return;
    State& t = st();
    BlockState& b = bs();
    // an AIC instance of a MIX kernel with its own cube code shares its block index with an AIV: its own name
    // (tools/sim/trace.py does not read it yet)
    std::string who = b.cube ? "aic" + std::to_string(b.group) : std::to_string(b.block_idx);
    std::string path = config().out_dir + "/trace_" + std::to_string(b.launch) + "_" + who + ".bin";
    int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return;
    std::string names;
    for (auto& n : t.names) names += n + '\0';
    uint32_t head[6] = {0x5254574bu /* "KWTR" */, kVersion, uint32_t(t.recs.size()), uint32_t(t.names.size()),
                        (t.truncated ? 1u : 0u) | (t.cut ? 2u : 0u), uint32_t(b.sub_block_num)};
    std::string out(reinterpret_cast<const char*>(head), sizeof(head));
    out.append(reinterpret_cast<const char*>(t.recs.data()), t.recs.size() * sizeof(TraceRecord));
    out += names;
    size_t done = 0;
    while (done < out.size()) {
        ssize_t n = write(fd, out.data() + done, out.size() - done);
        if (n <= 0) break;
        done += size_t(n);
    }
    close(fd);
    if (t.cut) {
        std::ofstream cut(config().out_dir + "/cut_" + std::to_string(b.launch) + "_" + who + ".txt");
        cut << t.cut_out_bytes << "\n";
    }
}

}  // namespace kw::rt
