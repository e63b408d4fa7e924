// Generated inputs for inputs too big to hold (sampled launches past the referee's element budget): the buffer
// is mapped without access and each chunk is filled on its first touch (a fault), from the seed and the element
// offset alone, so the referee regenerates any region bit for bit (referee/region_values.py) and only the chunks
// the sampled blocks read cost memory. The values: splitmix64(seed, element index) -> uniform [0, 1) in float32
// (24 bits), torch.rand's distribution. Raw-pointer loads fault like API accesses, so both see the same data.
// The outputs of a sampled launch are poisoned the same way (kPoison on first touch): a raw-pointer store marks
// no byte as written, but the bytes it changed differ from the poison (sample.cpp).
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cstring>
#include <vector>
#include "internal.h"

namespace kw::rt {

namespace {
constexpr uint64_t kChunk = 64 << 10;   // bytes filled per fault (a multiple of the page size)

struct Generated {
    uint8_t* begin;   // page-aligned start of the guarded part
    uint8_t* end;
    uint8_t* base;    // the buffer's first element
    uint64_t seed;
    bool poison;      // an output of a sampled launch: filled with kPoison, not values
    uint8_t* state;   // per chunk, shared by the blocks (forked processes): 0 empty, 1 being filled, 2 filled
};

// The blocks run as concurrent processes: a chunk is filled once, by the first to touch it, and the others only
// open it (a second fill would erase what a block already stored there)
uint8_t* chunk_states(uint64_t bytes) {
    void* p = mmap(nullptr, bytes / kChunk + 1, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? nullptr : static_cast<uint8_t*>(p);
}
std::vector<Generated>& regions() {
    static std::vector<Generated> r;
    return r;
}

inline uint64_t mix(uint64_t z) {
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

void fill(uint8_t* base, uint64_t seed, uint64_t from, uint64_t to) {   // elements [from, to) of a float32 buffer
    float* f = reinterpret_cast<float*>(base);
    const uint64_t key = mix(seed);
    for (uint64_t i = from; i < to; ++i) f[i] = float(mix(key ^ i) >> 40) * (1.0f / 16777216.0f);
}
}  // namespace

bool generated_fault(void* addr) {
    auto* a = static_cast<uint8_t*>(addr);
    for (const Generated& g : regions()) {
        if (a < g.begin || a >= g.end) continue;
        uint8_t* lo = g.begin + uint64_t(a - g.begin) / kChunk * kChunk;
        uint8_t* hi = std::min(lo + kChunk, g.end);
        if (mprotect(lo, uint64_t(hi - lo), PROT_READ | PROT_WRITE) != 0) return false;
        uint8_t* st = g.state + uint64_t(lo - g.begin) / kChunk;
        uint8_t empty = 0;
        if (__atomic_compare_exchange_n(st, &empty, uint8_t(1), false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
            if (g.poison)
                std::memset(lo, kPoison, uint64_t(hi - lo));
            else
                fill(g.base, g.seed, uint64_t(lo - g.base) / 4, uint64_t(hi - g.base) / 4);
            __atomic_store_n(st, uint8_t(2), __ATOMIC_RELEASE);
        } else {
            while (__atomic_load_n(st, __ATOMIC_ACQUIRE) != 2) sched_yield();   // another block is filling it
        }
        return true;
    }
    return false;
}

bool is_generated(const GmBuffer* b) {
    for (const Generated& g : regions())
        if (g.base == b->base && !g.poison) return true;
    return false;
}

void poison_on_touch(GmBuffer* b) {
    const uint64_t page = uint64_t(sysconf(_SC_PAGESIZE));
    uint8_t* end = b->base + b->bytes / page * page;
    std::memset(end, kPoison, b->bytes - uint64_t(end - b->base));
    uint8_t* state = chunk_states(uint64_t(end - b->base));
    if (!state || (end > b->base && mprotect(b->base, uint64_t(end - b->base), PROT_NONE) != 0)) {
        std::memset(b->base, kPoison, uint64_t(end - b->base));
        end = b->base;
    }
    regions().push_back({b->base, end, b->base, 0, true, state});   // an empty guarded part still says it is poisoned
}

bool poisoned_on_touch(const GmBuffer* b) {
    for (Generated& g : regions())
        if (g.base == b->base && g.poison) {   // the parent reads it back: open it (the touched pages hold the data)
            mprotect(g.begin, uint64_t(g.end - g.begin), PROT_READ | PROT_WRITE);
            return true;
        }
    return false;
}

void generate_input(GmBuffer* b, uint64_t seed) {
    const uint64_t page = uint64_t(sysconf(_SC_PAGESIZE));
    const uint64_t n = b->bytes / 4;
    uint8_t* end = b->base + n * 4 / page * page;   // whole pages inside the tensor: guarded; the rest now
    fill(b->base, seed, uint64_t(end - b->base) / 4, n);
    uint8_t* state = chunk_states(uint64_t(end - b->base));
    if (state && end > b->base && mprotect(b->base, uint64_t(end - b->base), PROT_NONE) == 0)
        regions().push_back({b->base, end, b->base, seed, false, state});
    else
        fill(b->base, seed, 0, uint64_t(end - b->base) / 4);
}

}  // namespace kw::rt
