// TPipe buffer allocation (with a capacity ledger) and the TQue protocol.
#include <execinfo.h>
#include <algorithm>
#include "internal.h"
#include "kw/pipe.h"

namespace kw::rt {
namespace {
struct Reservation {
    void* owner;  // the TPipe's queue/buffer object
    AscendC::Hardware hw;
    uint32_t offset, bytes;
    uint32_t slot;  // bytes of one queue buffer (a TBuf: all of it)
    const char* kind;
    const void* pc;
    std::vector<void*> stack;  // where a reservation past the end was made (reported on its first use)
};
struct Ledger {
    std::vector<Reservation> items;
    uint32_t next[static_cast<int>(AscendC::Hardware::MAX)] = {};
    int count = 0;
};
Ledger& ledger() {
    static Ledger l;
    return l;
}
constexpr int kMaxBuffersPerPipe = 64;  // QBUF_MAX_LEN
// reservations may run this many times the memory size before InitBuffer itself fails (state.cpp
// sizes the arenas to match, so tensors there stay addressable until their first checked access)
constexpr uint64_t kOverReserve = 2;

std::string ledger_text(const Ledger& l, AscendC::Hardware hw, uint32_t& used) {
    std::string text;
    used = 0;
    for (auto& r : l.items)
        if (r.hw == hw) {
            text += std::string(text.empty() ? "" : " | ") + r.kind + "@" + std::to_string(r.offset) + " " + std::to_string(r.bytes);
            used += r.bytes;
        }
    return text;
}
const char* capacity_rule(AscendC::Hardware hw) { return std::string(hardware_name(hw)) == "UB" ? "ub.capacity" : "local.capacity"; }
const char* kCapacityHint =
    "shrink the tile length in the tiling (count every queue slot: depth x bytes), or reuse one TBuf for temporaries; the CPU "
    "twin aborts at such an InitBuffer ('curPoolAddr is %d, limits is %d'), the NPU only fails once the buffer is used";
}  // namespace

// A reservation past the end of the memory is not an error by itself (the NPU does not check
// InitBuffer; a kernel may reserve a buffer that its dtype path never touches). It is recorded and
// reported as a warning; the first access beyond the end (access_local) is the error.
uint32_t reserve_local(AscendC::Hardware hw, uint32_t bytes, const char* kind, const char* api, void* owner, uint32_t slot) {
    Ledger& l = ledger();
    int h = static_cast<int>(hw);
    uint32_t cap = arena_capacity(hw);
    const void* pc = caller_pc();
    if (++l.count > kMaxBuffersPerPipe)
        Diag("pipe.too_many_buffers", api)
            .msg("the TPipe manages more than " + std::to_string(kMaxBuffersPerPipe) + " buffers")
            .hint("merge small TBufs into one and take views with Get<T>(len)/GetWithOffset").fatal();
    uint64_t end = uint64_t(l.next[h]) + bytes;
    if (end > cap) {
        uint32_t used = 0;
        std::string text = ledger_text(l, hw, used);
        text += std::string(text.empty() ? "" : " | ") + kind + " (this one) " + std::to_string(bytes);
        Diag d(capacity_rule(hw), api);
        d.msg(std::string(api) + " needs " + std::to_string(bytes) + " more bytes of " + hardware_name(hw) + ", but " +
              std::to_string(used) + " of " + std::to_string(cap) + " are already reserved (total " + std::to_string(end) +
              " > " + std::to_string(cap) + " on " + soc().name + ")" +
              (end > kOverReserve * uint64_t(cap) ? "" : "; any use of the bytes past " + std::to_string(cap) + " fails") +
              ". Ledger: " + text)
            .val("requested", bytes).val("in_use", used).val("capacity", cap).val("total", (long long)end).hint(kCapacityHint);
        if (end > kOverReserve * uint64_t(cap)) d.fatal();
        d.warn();
    }
    uint32_t off = l.next[h];
    l.next[h] = uint32_t(end);
    l.items.push_back({owner, hw, off, bytes, slot ? slot : bytes, kind, pc, {}});
    if (end > cap) {
        void* frames[24];
        int n = backtrace(frames, 24);
        l.items.back().stack.assign(frames, frames + n);
    }
    return off;
}

// An instruction touches bytes past the end of an on-chip memory: only a reservation beyond the end
// gives a tensor there, so the error names that InitBuffer (its line is the cause).
[[noreturn]] void beyond_capacity(AscendC::Hardware hw, uint64_t offset, uint64_t bytes, bool write, const char* api, const char* operand) {
    Ledger& l = ledger();
    const uint32_t cap = arena_capacity(hw);
    const Reservation* hit = nullptr;
    for (auto& r : l.items)
        if (r.hw == hw && offset < uint64_t(r.offset) + r.bytes && offset + bytes > r.offset) hit = &r;
    uint32_t used = 0;
    std::string text = ledger_text(l, hw, used);
    std::string what = std::string(api) + (write ? " writes " : " reads ") + operand + " at " + hardware_name(hw) + " offset " +
                       std::to_string(offset) + " (" + std::to_string(bytes) + " bytes), past the end of " + hardware_name(hw) + " (" +
                       std::to_string(cap) + " bytes on " + soc().name + ")";
    Diag d(capacity_rule(hw), api);
    if (hit)
        d.msg("InitBuffer needs " + std::to_string(hit->bytes) + " more bytes of " + hardware_name(hw) + ", but " +
              std::to_string(hit->offset < cap ? hit->offset : cap) + " of " + std::to_string(cap) + " are already reserved (total " +
              std::to_string(uint64_t(hit->offset) + hit->bytes) + " > " + std::to_string(cap) + "), and " + what + ". Ledger: " + text)
            .val("requested", hit->bytes).val("in_use", hit->offset < cap ? hit->offset : cap)
            .val("total", (long long)(uint64_t(hit->offset) + hit->bytes))
            .at(hit->stack.data(), int(hit->stack.size()));
    else
        d.msg(what + ". Ledger: " + text);
    d.val("offset", (long long)offset).val("bytes", (long long)bytes).val("capacity", cap).hint(kCapacityHint).fatal();
}

void release_pipe(void*) { ledger() = Ledger(); }

uint32_t reserved_end(AscendC::Hardware hw) { return ledger().next[static_cast<int>(hw)]; }

// The end of the buffer of queue or TBuf `owner` that holds `offset` (0 when it holds none): how far an
// instruction may run past a shorter tensor view (TBuf::Get(n), SetSize) before it touches another buffer.
uint32_t buffer_end(AscendC::Hardware hw, uint32_t offset, const void* owner) {
    if (owner == nullptr) return 0;
    for (auto& r : ledger().items)
        if (r.owner == owner && r.hw == hw && offset >= r.offset && offset < uint64_t(r.offset) + r.bytes)
            return r.offset + (offset - r.offset) / r.slot * r.slot + r.slot;
    return 0;
}

}  // namespace kw::rt

namespace kw {
using rt::Diag;

static std::string slot_list(const QueueCore& q, SlotState st) {
    std::string s;
    for (int i = 0; i < q.num; ++i)
        if (q.state[i] == st) s += (s.empty() ? "" : ",") + std::to_string(i);
    return s;
}

void QueueCore::init(uint8_t n, uint32_t bytes, const char* kind) {
    if (n == 0 || n > kMaxSlots)
        Diag("queue.buffer_num", "InitBuffer")
            .msg("InitBuffer(que, " + std::to_string(n) + ", ...) asks for " + std::to_string(n) + " buffers; a queue takes 1.." +
                 std::to_string(kMaxSlots) + " (2 gives double buffering)")
            .val("num", n).hint("use BUFFER_NUM = 1 or 2").fatal();
    // CANN's CPU debugging asserts on a zero length; the NPU reserves nothing and runs on, so this is a
    // warning and the buffer's tensors hold 0 bytes (any use of them is ub.out_of_bounds)
    if (bytes == 0)
        Diag("pipe.buffer_length", "InitBuffer")
            .msg("buffer length is 0, which should be larger than 0 (CANN's CPU debugging stops here; on the NPU the "
                 "buffer is empty and any use of it overruns)")
            .hint("compute the tile bytes from the tiling before InitBuffer (a zero tile length usually means the tiling "
                  "field was never set)")
            .warn();
    num = n;
    len = (bytes + 31u) / 32u * 32u;
    init_pc = rt::caller_pc();
    base = rt::reserve_local(rt::hardware_of(storage), uint32_t(num) * len, kind, "InitBuffer", this, len);
    initialised = true;
}

QueueCore::~QueueCore() {
    if (!initialised || !rt::bs().in_block) return;
    for (int i = 0; i < num; ++i) {
        if (state[i] == SlotState::FREE) continue;
        const bool enqueued = state[i] == SlotState::ENQUEUED;
        const char* st = enqueued ? "EnQue'd but never DeQue'd" : "never freed";
        Diag d("queue.leak", "TQue");
        d.msg(std::string("a tensor of this queue (buffer ") + std::to_string(i) + " of " + std::to_string(num) + ") was " + st +
              " when the queue went away" +
              (enqueued ? "; on the NPU the EnQue's event flag is still set, so a later wait on that event id passes early"
                        : "; nothing waits for it any more, so the NPU runs on (CANN's npu_check reports ErrorLeak)"))
            .val("buffer", i).val("state", st)
            .hint("pair every AllocTensor with FreeTensor and every EnQue with DeQue on every path, including the tail tile")
            .at(alloc_pc[i]);
        // an allocated slot holds no pending event: a tensor kept allocated when the kernel ends (NPUKernelBench
        // GroupNormSwish allocates the next tile's output ahead) is harmless there
        if (enqueued) d.fatal();
        d.warn();
    }
}

int QueueCore::alloc(const void* pc) {
    if (!initialised)
        Diag("queue.uninitialised", "AllocTensor")
            .msg("AllocTensor on a queue that TPipe::InitBuffer never gave memory")
            .hint("call pipe.InitBuffer(queue, BUFFER_NUM, bytes) in Init()").fatal();
    for (int k = 0; k < num; ++k) {
        int s = (next_alloc + k) % num;
        if (state[s] != SlotState::FREE) continue;
        next_alloc = (s + 1) % num;
        rt::acquire(producer, free_clock[s], "AllocTensor");  // waits until the consumer released the buffer
        state[s] = SlotState::ALLOCATED;
        alloc_pc[s] = pc ? pc : rt::caller_pc();
        rt::count_sync("AllocTensor");
        return s;
    }
    Diag("queue.no_free_slot", "AllocTensor")
        .msg("AllocTensor with no free buffer: all " + std::to_string(num) + " buffers of this queue are in use (allocated: [" +
             slot_list(*this, SlotState::ALLOCATED) + "], enqueued: [" + slot_list(*this, SlotState::ENQUEUED) +
             "], dequeued but not freed: [" + slot_list(*this, SlotState::DEQUEUED) +
             "]); on the NPU this blocks forever (AI Core timeout, error 507014)")
        .val("buffers", num)
        .hint("FreeTensor every tensor after its last use (also in the tail iteration), or InitBuffer the queue with more buffers")
        .at(alloc_pc[(next_alloc + num - 1) % num])
        .fatal();
}

int QueueCore::slot_of(uint32_t addr, const char* api) const {
    if (initialised && addr >= base && addr < base + uint32_t(num) * len && (addr - base) % len == 0) return int((addr - base) / len);
    Diag("queue.foreign_tensor", api)
        .msg(std::string(api) + " got a tensor that this queue did not hand out (address " + std::to_string(addr) + " in " +
             rt::position_name(storage) + "; this queue owns [" + std::to_string(base) + ", " +
             std::to_string(base + uint32_t(num) * len) + ") in buffers of " + std::to_string(len) + " bytes)")
        .val("address", addr)
        .hint("return a tensor to the queue it came from, and pass the tensor itself, not a view at an offset")
        .fatal();
}

void QueueCore::enque(int s) {
    // CANN accepts an allocated or a dequeued buffer (a DeQue'd tensor may be EnQue'd again to hand it on)
    if (state[s] != SlotState::ALLOCATED && state[s] != SlotState::DEQUEUED)
        Diag("queue.bad_enque", "EnQue")
            .msg("EnQue of buffer " + std::to_string(s) + " which is " + (state[s] == SlotState::FREE ? "free" : "already enqueued"))
            .hint("EnQue a tensor once, after AllocTensor and the instruction that fills it").fatal();
    if (depth > 0 && fifo_count >= depth)
        Diag("queue.depth", "EnQue")
            .msg("usedCount is " + std::to_string(fifo_count + 1) + ", which exceeds the queue depth " + std::to_string(depth) +
                 " (EnQue without DeQue)")
            .val("depth", depth)
            .hint("DeQue before the next EnQue, or declare the queue as TQue<pos, 2> when two tensors are in flight").fatal();
    state[s] = SlotState::ENQUEUED;
    enq_clock[s] = rt::release(producer, "EnQue");
    fifo[(fifo_head + fifo_count) % kMaxSlots] = int8_t(s);
    ++fifo_count;
}

int QueueCore::deque() {
    if (fifo_count == 0)
        Diag("queue.deque_empty", "DeQue")
            .msg("DeQue on a queue with no EnQue'd tensor; on the NPU this waits forever (AI Core timeout, error 507014)")
            .hint("EnQue the tensor in CopyIn/Compute before the stage that DeQues it, once per tile").fatal();
    int s = fifo[fifo_head];
    fifo_head = (fifo_head + 1) % kMaxSlots;
    --fifo_count;
    state[s] = SlotState::DEQUEUED;
    rt::acquire(consumer, enq_clock[s], "DeQue");  // the consumer waits for the producer's EnQue
    rt::count_sync("DeQue");
    return s;
}

void QueueCore::free_slot(int s) {
    if (state[s] == SlotState::FREE)
        Diag("queue.double_free", "FreeTensor")
            .msg("FreeTensor of buffer " + std::to_string(s) + " which is already free")
            .hint("free each allocated tensor exactly once").fatal();
    if (state[s] == SlotState::ENQUEUED) {
        Diag("queue.free_enqueued", "FreeTensor")
            .msg("FreeTensor of buffer " + std::to_string(s) + " while it is still enqueued")
            .hint("DeQue the tensor before freeing it").warn();
        // drop it from the FIFO so the protocol stays consistent
        int8_t kept[kMaxSlots];
        int n = 0;
        for (int i = 0; i < fifo_count; ++i) {
            int8_t v = fifo[(fifo_head + i) % kMaxSlots];
            if (v != s) kept[n++] = v;
        }
        for (int i = 0; i < n; ++i) fifo[i] = kept[i];
        fifo_head = 0;
        fifo_count = n;
    }
    state[s] = SlotState::FREE;
    free_clock[s] = rt::release(consumer, "FreeTensor");  // the next AllocTensor of this buffer waits for this
}

bool QueueCore::has_idle() const {
    for (int i = 0; i < num; ++i)
        if (state[i] == SlotState::FREE) return true;
    return false;
}

}  // namespace kw

namespace AscendC {
namespace {
TPipe*& current_pipe() {
    static TPipe* p = nullptr;
    return p;
}
}  // namespace

TPipe::TPipe() { current_pipe() = this; }
TPipe::~TPipe() {
    kw::rt::release_pipe(this);
    if (current_pipe() == this) current_pipe() = nullptr;
}
void TPipe::Destroy() { kw::rt::release_pipe(this); }
void TPipe::Reset() { kw::rt::release_pipe(this); }

TEventID TPipe::alloc_event(int evt, bool take) {
    for (int id = 0; id < 8; ++id) {
        if (event_used_[evt] & (1u << id)) continue;
        if (take) event_used_[evt] |= uint8_t(1u << id);
        return TEventID(id);
    }
    kw::rt::Diag("pipe.event_ids", "AllocEventID")
        .msg("all 8 event ids of this HardEvent are allocated")
        .hint("ReleaseEventID the ids you no longer need").fatal();
}
void TPipe::release_event(int evt, TEventID id) {
    if (id >= 0 && id < 8) event_used_[evt] &= uint8_t(~(1u << id));
}

TPipe* kw_current_tpipe() {
    static TPipe fallback_pipe_for_event_ids_only;  // kernels may call GetTPipePtr() before constructing one
    return current_pipe() ? current_pipe() : &fallback_pipe_for_event_ids_only;
}
}  // namespace AscendC

AscendC::TPipe* GetTPipePtr() { return AscendC::kw_current_tpipe(); }
