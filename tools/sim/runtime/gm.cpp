// Global memory: the buffers handed to the kernel live in shared mappings so every block
// (a forked process) sees the same data. Accesses are bounds-checked against those buffers,
// and a per-byte shadow records which block wrote/read each byte in which SyncAll phase.
#include <sys/mman.h>
#include <cstring>
#include <algorithm>
#include <memory>
#include "internal.h"

namespace kw::rt {

void access_gm_pipes(Pipe p, uint64_t addr, uint64_t bytes, bool write, const char* api, const char* operand);

namespace {
struct Shadow {
    uint16_t writer;  // block+1 (bit 15: atomic write), 0 = never written
    uint16_t wepoch;
    uint16_t reader;  // block+1, 0 = never read; 0xFFFF = several blocks
    uint16_t repoch;
};
static_assert(sizeof(Shadow) == sizeof(uint64_t), "shadow packs into 8 bytes");
constexpr uint64_t kRaceCheckLimit = 256ull << 20;  // bytes of GM beyond which the race shadow is skipped
constexpr uint64_t kAllocGranule = 512;  // device allocations are whole multiples of this
constexpr uint64_t kAllocExtra = 32;     // torch_npu's caching allocator adds this before rounding
// torch_npu's caching allocator (NPUCachingAllocator get_allocation_size): a block of up to 1 MiB is cut from
// a 2 MiB segment, one below 10 MiB from a 20 MiB segment, a larger one is a segment rounded up to 2 MiB;
// blocks are cut from a segment's start in allocation order, so past a block lies the next tensor or free,
// mapped memory: the MTE does not fault there
constexpr uint64_t kSmallSize = 1ull << 20, kSmallSegment = 2ull << 20;
constexpr uint64_t kMinLargeAlloc = 10ull << 20, kLargeSegment = 20ull << 20, kRoundLarge = 2ull << 20;
constexpr uint64_t kSysWorkspace220 = 16ull << 20;
constexpr uint64_t kSysWorkspace200 = 2ull << 20;

std::vector<GmBuffer*>& buffers() {
    static std::vector<GmBuffer*> b;
    return b;
}
GmBuffer* g_last_hit = nullptr;  // the buffer the last access fell in (scalar loops stay in one or two)
uint64_t total_gm() {
    uint64_t t = 0;
    for (auto* b : buffers()) t += b->capacity;
    return t;
}
void* shared_map(uint64_t bytes) {
    void* p = mmap(nullptr, bytes ? bytes : 1, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        std::fprintf(stderr, "kernelwright: cannot map %llu bytes of emulated GM\n", (unsigned long long)bytes);
        std::abort();
    }
    return p;
}
std::string fmt_bytes(uint64_t b) { return std::to_string(b) + " bytes"; }
uint64_t segment_of(uint64_t capacity) {
    if (capacity <= kSmallSize) return kSmallSegment;
    if (capacity < kMinLargeAlloc) return kLargeSegment;
    return (capacity + kRoundLarge - 1) / kRoundLarge * kRoundLarge;
}
// a tensor the caching allocator gave a block (EXEC_NPU_CMD allocates the workspace only when its size is not 0)
bool device_tensor(const GmBuffer* b) {
    return b->bytes > 0 && (b->role == "in" || b->role == "out" || b->role == "inout" || b->role == "workspace");
}
// Where the allocator puts each tensor, in the harness's order (the manifest's: inputs, outputs, workspace): a
// block is cut from the start of the smallest free remainder of a segment of its pool (small: blocks up to
// 1 MiB) that holds it, else from a new segment; a large block keeps a remainder of 1 MiB or less (not split).
// Sets each buffer's reach (bytes from its start to its segment's end) and the tensor cut right after it.
void layout() {
    static size_t done = 0;
    if (done == buffers().size()) return;
    done = buffers().size();
    g_last_hit = nullptr;
    struct Seg { uint64_t size, used; bool small; GmBuffer* last; };
    std::vector<Seg> segs;
    for (auto* b : buffers()) {
        b->reach = b->capacity, b->next = nullptr;
        if (!device_tensor(b)) continue;
        bool small = b->capacity <= kSmallSize;
        Seg* pick = nullptr;
        for (auto& g : segs)
            if (g.small == small && g.size - g.used >= b->capacity && (!pick || g.size - g.used < pick->size - pick->used)) pick = &g;
        if (!pick) {
            segs.push_back({segment_of(b->capacity), 0, small, nullptr});
            pick = &segs.back();
        }
        if (pick->last) pick->last->next = b;
        b->reach = std::min(pick->size - pick->used, b->segment);
        pick->used += b->capacity;
        if (!small && pick->size - pick->used <= kSmallSize) pick->used = pick->size;   // not split off
        pick->last = b;
    }
}
}  // namespace

std::vector<GmBuffer*>& gm_buffers() { return buffers(); }

GmBuffer* gm_register(const std::string& name, uint64_t bytes, const std::string& role) {
    auto* b = new GmBuffer;
    b->name = name;
    b->bytes = bytes;
    // the device allocation behind a tensor: torch_npu's caching allocator (NPUCachingAllocator
    // round_size: size + 32, rounded up to 512) hands out blocks in multiples of 512 bytes with at
    // least 32 bytes to spare, so a DataCopy that runs a little past the tensor's end stays inside
    // memory the tensor owns; it is accepted (gm.padding warns) and the padding holds garbage
    b->capacity = (bytes + kAllocExtra + kAllocGranule - 1) / kAllocGranule * kAllocGranule;
    b->segment = role == "list" || role == "tiling" ? b->capacity : segment_of(b->capacity);
    // Guard pages around every buffer turn far raw-pointer overruns into a clean crash report; the bytes
    // between the tensor's end and the guard hold canaries, so a near one is found after the run.
    b->span = (b->segment + 4095) / 4096 * 4096;
    uint8_t* map = static_cast<uint8_t*>(shared_map(b->span + 2 * 4096));
    mprotect(map, 4096, PROT_NONE);
    mprotect(map + 4096 + b->span, 4096, PROT_NONE);
    b->base = map + 4096;
    b->role = role;
    std::memset(b->base + bytes, kGmCanary, b->span - bytes);
    if (b->segment > bytes) b->tail_written = static_cast<uint8_t*>(shared_map(b->segment - bytes));
    if (sampled() && !config().trace_only && (role == "in" || role == "out" || role == "inout"))
        b->written = static_cast<uint8_t*>(shared_map(b->capacity));  // lazily committed: touched pages only
    if (config().race_check && total_gm() + b->capacity <= kRaceCheckLimit)
        b->shadow = static_cast<uint64_t*>(shared_map(b->capacity * sizeof(uint64_t)));
    buffers().push_back(b);
    return b;
}

static GmBuffer* find_buffer(const uint8_t* p, uint64_t bytes) {
    layout();
    GmBuffer* last = g_last_hit;
    if (last && p >= last->base && p + bytes <= last->base + last->reach) return last;
    for (auto* b : buffers())
        if (p >= b->base && p + bytes <= b->base + b->reach) return g_last_hit = b;
    return nullptr;
}

static std::string describe_miss(const uint8_t* p, uint64_t bytes) {
    GmBuffer* best = nullptr;
    int64_t dist = 0;
    for (auto* b : buffers()) {
        int64_t d = p < b->base ? int64_t(b->base - p) : int64_t(p - (b->base + b->bytes));
        if (p >= b->base && p < b->base + b->reach) d = int64_t((p + bytes) - (b->base + b->reach));
        if (!best || std::llabs(d) < std::llabs(dist)) best = b, dist = d;
    }
    if (!best) return "no GM buffer was passed to the kernel";
    int64_t off = int64_t(p - best->base);
    return "the nearest buffer is '" + best->name + "' (" + fmt_bytes(best->bytes) + "); the access covers bytes [" +
           std::to_string(off) + ", " + std::to_string(off + int64_t(bytes)) + ") of it";
}

// An access past the tensor's block, inside its allocator segment (find_buffer): the NPU does not fault. A read
// gets whatever lies there (canaries here); a write overwrites the tensor the allocator placed next, an error
// naming it, or free memory when none follows, which passes by luck (a warning: another allocation order or a
// fuller pool corrupts a tensor).
static void past_allocation(const GmBuffer* b, uint64_t off, uint64_t bytes, bool write, const char* api) {
    std::string where = std::string(api) + (write ? " writes" : " reads") + " bytes [" + std::to_string(off) + ", " +
                        std::to_string(off + bytes) + ") of '" + b->name + "', which holds " + fmt_bytes(b->bytes) +
                        " in a " + fmt_bytes(b->capacity) + " device block";
    const GmBuffer* next = write ? b->next : nullptr;
    if (next)
        Diag("gm.out_of_bounds", api)
            .msg(where + ": past the block, where torch_npu's caching allocator places the next tensor, '" + next->name +
                 "'; on the NPU this write overwrites it")
            .val("buffer", b->name).val("bytes", (long long)b->bytes).val("end", (long long)(off + bytes))
            .hint("check the per-core offset (GetBlockIdx() * length) and the tail length of the last tile")
            .fatal();
    static std::vector<const GmBuffer*> warned;  // one warning per buffer (and block)
    if (std::find(warned.begin(), warned.end(), b) != warned.end()) return;
    warned.push_back(b);
    Diag("gm.past_allocation", api)
        .msg(where + ": past the block, inside the allocator's segment (" + fmt_bytes(b->reach) + " from the tensor's start), where the NPU does "
             "not fault: " + (write ? "the bytes land in free memory only because no tensor was allocated after '" +
                                          b->name + "' (with another allocation order they overwrite one)"
                                    : "the bytes read are another tensor's or garbage, and the kernel must not use them"))
        .val("buffer", b->name).val("bytes", (long long)b->bytes).val("end", (long long)(off + bytes))
        .hint("keep copies inside the tensor (DataCopyPad, or a tail length for the last tile): the kernel relies on luck")
        .warn();
}

static const void* g_store_value = nullptr;  // set by access_gm_store for the duration of one access

void access_gm_store(Pipe p, const void* addr, uint64_t bytes, const void* value, const char* api, const char* operand) {
    g_store_value = value;
    access_gm(p, addr, bytes, true, api, operand);
    g_store_value = nullptr;
}

void access_gm(Pipe p, const void* addr, uint64_t bytes, bool write, const char* api, const char* operand) {
    if (bytes == 0) return;
    const uint8_t* a = static_cast<const uint8_t*>(addr);
    GmBuffer* b = find_buffer(a, bytes);
    if (!b)
        Diag("gm.out_of_bounds", api)
            .msg(std::string(api) + (write ? " writes " : " reads ") + std::to_string(bytes) + " bytes of global memory (operand " +
                 operand + ") outside every buffer passed to the kernel: " + describe_miss(a, bytes))
            .val("bytes", (long long)bytes)
            .hint("on the NPU this is 'The DDR address of the MTE instruction is out of range' or silent corruption of another "
                  "tensor; check the per-core offset (GetBlockIdx() * length) and the tail length of the last tile")
            .fatal();
    if (p != Pipe::S) access_gm_pipes(p, uint64_t(reinterpret_cast<uintptr_t>(a)), bytes, write, api, operand);
    uint64_t off = uint64_t(a - b->base);
    if (write && off + bytes > b->bytes && b->tail_written) {  // an API's write into the padding is not a raw overrun
        uint64_t from = off > b->bytes ? off : b->bytes;
        std::memset(b->tail_written + (from - b->bytes), 1, off + bytes - from);
    }
    if (write && b->written && off < b->capacity) std::memset(b->written + off, 1, std::min(bytes, b->capacity - off));
    if (off + bytes > b->capacity) past_allocation(b, off, bytes, write, api);
    static std::vector<const GmBuffer*> warned;  // one warning per buffer (and block)
    if (off + bytes > (b->bytes + 31) / 32 * 32 && off + bytes <= b->capacity &&
        std::find(warned.begin(), warned.end(), b) == warned.end()) {
        warned.push_back(b);
        Diag("gm.padding", api)
            .msg(std::string(api) + (write ? " writes" : " reads") + " bytes [" + std::to_string(off) + ", " +
                 std::to_string(off + bytes) + ") of '" + b->name + "', which holds " + fmt_bytes(b->bytes) +
                 ": past the tensor's end, inside the " + fmt_bytes(b->capacity) + " the device allocates for it (the NPU "
                 "accepts this; those bytes are garbage when read and lost when written)")
            .val("buffer", b->name).val("bytes", (long long)b->bytes).val("end", (long long)(off + bytes))
            .hint("copy only the tensor's bytes (DataCopyPad, or a tail length rounded down) if the kernel must not depend on "
                  "the allocator's rounding")
            .warn();
    }
    if (!b->shadow && p == Pipe::S && !write &&   // the next scalar reads of this buffer need no check (runtime.h)
        std::find(g_scalar_read.lo, g_scalar_read.lo + 4, b->base) == g_scalar_read.lo + 4) {
        unsigned i = g_scalar_read.next++ % 4;
        g_scalar_read.lo[i] = b->base;
        g_scalar_read.hi[i] = b->base + std::min(b->capacity, (b->bytes + 31) / 32 * 32);
    }
    if (!b->shadow || !config().track) return;
    BlockState& st = bs();
    uint16_t me = uint16_t((config().cube_ratio ? st.group : st.block_idx) + 1);  // MIX: the AIC and its AIVs order by flags
    uint16_t ep = uint16_t(st.epoch + 1);
    bool atomic = write && st.atomic != 0;
    // an idempotent store, byte by byte (a copy's burst may leave some bytes as they were and change others)
    const uint8_t* value = write ? static_cast<const uint8_t*>(g_store_value) : nullptr;
    uint64_t prev_in = 0, prev_out = 0;  // neighbouring bytes usually share a state: reuse its outcome
    bool have_prev = false, prev_unchanged = false;
    for (uint64_t i = off; i < std::min(off + bytes, b->capacity); ++i) {  // the shadow covers the block
        bool unchanged = value && a[i - off] == value[i - off];
        if (have_prev && b->shadow[i] == prev_in && unchanged == prev_unchanged) {
            b->shadow[i] = prev_out;
            continue;
        }
        prev_in = b->shadow[i], have_prev = true, prev_unchanged = unchanged;
        Shadow sh = __builtin_bit_cast(Shadow, b->shadow[i]);
        uint16_t w = sh.writer & 0x7fff;
        bool w_atomic = sh.writer & 0x8000;
        const char* race = nullptr;
        uint16_t other = 0;
        if (sh.writer && w != me && sh.wepoch == ep && !(atomic && w_atomic) && !unchanged)
            race = write ? "both write" : "read-after-write", other = w;
        else if (write && sh.reader && sh.repoch == ep && sh.reader != me) race = "write-after-read", other = sh.reader;
        if (race) {
            std::string who = other == 0xFFFF ? std::string("other blocks") : "block " + std::to_string(other - 1);
            std::string what = std::string(race) == "both write" ? "writes bytes that " + who + " also writes"
                             : std::string(race) == "read-after-write" ? "reads bytes that " + who + " writes"
                                                                        : "writes bytes that " + who + " reads";
            Diag("gm.race", api)
                .msg("block " + std::to_string(st.block_idx) + " " + what + " in the same SyncAll phase (buffer '" + b->name +
                     "', byte " + std::to_string(i) + "); blocks run concurrently on the NPU, so the result depends on timing")
                .val("buffer", b->name).val("byte", (long long)i).val("other_block", other == 0xFFFF ? -1 : other - 1)
                .val("phase", st.epoch)
                .hint("give every block its own output range, accumulate with SetAtomicAdd, or put SyncAll() between the "
                      "writes and the reads of another block's data")
                .fatal();
        }
        if (write) {
            sh.writer = uint16_t(me | (atomic ? 0x8000 : 0));
            sh.wepoch = ep;
        } else if (sh.repoch == ep && sh.reader && sh.reader != me) {
            sh.reader = 0xFFFF;
        } else if (sh.repoch != ep || !sh.reader) {
            sh.reader = me;
            sh.repoch = ep;
        }
        b->shadow[i] = prev_out = __builtin_bit_cast(uint64_t, sh);
    }
}

void set_atomic(int mode, const char* dtype) {
    bs().atomic = mode;
    bs().atomic_dtype = dtype;
}
int atomic_mode() { return bs().atomic; }

static uint64_t sys_workspace_bytes() { return soc().cce_aicore >= 220 ? kSysWorkspace220 : kSysWorkspace200; }

uint8_t* workspace_base() {
    for (auto* b : buffers())
        if (b->role == "workspace") return b->base;
    return nullptr;
}
uint64_t workspace_bytes() {
    for (auto* b : buffers())
        if (b->role == "workspace") return b->bytes;
    return 0;
}
uint8_t* user_workspace(uint8_t* workspace) { return workspace ? workspace + sys_workspace_bytes() : nullptr; }

void gm_reset_shadows() {
    if (!config().track) return;
    for (auto* b : buffers())
        if (b->shadow) std::memset(b->shadow, 0, b->capacity * sizeof(uint64_t));
}

}  // namespace kw::rt
