// Sampled launches: a task too big to emulate whole runs at its own shapes on a few of its blocks. The host
// tiling sees the real shapes; GM is sized for the task but lazily committed (anonymous shared mappings, and
// outputs not poisoned), so only the pages the sampled blocks touch cost memory. Every GM write of a sampled
// block marks its bytes; the runner hands back exactly those bytes (a sparse file and its ranges), which the
// referee compares. Blocks that wait for each other (SyncAll, cross-core flags between AI Cores) read what
// blocks outside the sample write: such a kernel is declared unsampleable, never judged on partial data.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <algorithm>
#include <fstream>
#include <map>
#include "internal.h"

namespace kw::rt {

bool sampled() { return !config().sample.empty(); }

bool sample_runs(uint32_t group) {
    const auto& s = config().sample;
    return s.empty() || std::find(s.begin(), s.end(), group) != s.end();
}

void unsampleable(const char* api, const std::string& why) {
    Diag("sample.unsampleable", api)
        .msg("the kernel cannot be judged on a sample of its blocks: " + why)
        .hint("the referee runs every block (at shrunk shapes) or declares the case too big to judge")
        .fatal();
}

namespace {
// pages of [base, base + bytes) that were ever touched (mincore: resident in the shared mapping)
std::vector<unsigned char> resident_pages(const uint8_t* base, uint64_t bytes, uint64_t page) {
    std::vector<unsigned char> v((bytes + page - 1) / page, 1);
    const uint8_t* aligned = reinterpret_cast<const uint8_t*>(reinterpret_cast<uintptr_t>(base) / page * page);
    if (aligned != base || mincore(const_cast<uint8_t*>(base), bytes, v.data()) != 0) std::fill(v.begin(), v.end(), 1);
    return v;
}
}  // namespace

namespace {
// per output buffer, the pages this block's copies to GM wrote (a trace-only run's cut block, trace_cut)
std::map<const GmBuffer*, std::vector<bool>> g_written_pages;
uint64_t g_pages_written = 0;
}  // namespace

void note_output_write(const uint8_t* gm, uint64_t bursts, uint64_t burst, uint64_t gap) {
    static const uint64_t page = uint64_t(sysconf(_SC_PAGESIZE));
    for (const GmBuffer* b : gm_buffers()) {
        if (b->role != "out" || gm < b->base || gm >= b->base + b->bytes) continue;
        std::vector<bool>& seen = g_written_pages[b];
        if (seen.empty()) seen.resize((b->bytes + page - 1) / page);
        for (uint64_t i = 0; i < (bursts ? bursts : 1); ++i) {
            const uint64_t lo = uint64_t(gm - b->base) + i * (burst + gap);
            const uint64_t hi = std::min(lo + burst, b->bytes);
            for (uint64_t q = lo / page; lo < hi && q <= (hi - 1) / page; ++q)
                if (!seen[q]) seen[q] = true, ++g_pages_written;
        }
        return;
    }
}

uint64_t output_bytes_written() { return g_pages_written * uint64_t(sysconf(_SC_PAGESIZE)); }

void sample_write(const GmBuffer* b, const std::string& path, const std::string& ranges) {
    int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    std::ofstream out(ranges);
    if (fd < 0 || !out) return;
    if (ftruncate(fd, off_t(b->bytes)) != 0) {
        close(fd);
        return;
    }
    const uint64_t page = uint64_t(sysconf(_SC_PAGESIZE));
    const uint64_t n = b->written ? b->bytes : 0;
    const bool data = !is_generated(b);   // a generated input: only where it was written (a finding), no data
    const bool raw = poisoned_on_touch(b);   // bytes a raw-pointer store changed are written too
    std::vector<unsigned char> touched = n ? resident_pages(b->written, n, page) : std::vector<unsigned char>();
    if (raw && n) {   // pages a raw store touched hold no mark: their own residency tells
        std::vector<unsigned char> own = resident_pages(b->base, n, page);
        for (size_t k = 0; k < touched.size(); ++k) touched[k] = (touched[k] | own[k]) & 1;
    }
    uint64_t i = 0;
    while (i < n) {
        if (!touched[i / page]) {
            i = (i / page + 1) * page;
            continue;
        }
        auto wrote = [&](uint64_t k) { return b->written[k] || (raw && b->base[k] != kPoison); };
        if (!wrote(i)) {
            ++i;
            continue;
        }
        uint64_t j = i;
        while (j < n && touched[j / page] && wrote(j)) ++j;
        // a raw store's byte equal to the poison is not told from an unwritten one: the data goes back for the
        // whole touched page, so an element any of whose bytes changed reads back whole
        const uint64_t from = raw ? i / page * page : i, to = raw ? std::min(n, (j + page - 1) / page * page) : j;
        for (uint64_t done = from; data && done < to;) {
            ssize_t w = pwrite(fd, b->base + done, size_t(to - done), off_t(done));
            if (w <= 0) break;
            done += uint64_t(w);
        }
        out << i << ' ' << (j - i) << '\n';
        i = j;
    }
    close(fd);
}

}  // namespace kw::rt
