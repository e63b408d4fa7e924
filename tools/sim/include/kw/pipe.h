// TPipe / TQue / TQueBind / TBuf: buffer allocation and the queue protocol. Queue operations
// are the framework's synchronisation points (EnQue/DeQue: producer->consumer pipe,
// FreeTensor/AllocTensor: consumer->producer), modelled as vector-clock releases/acquires.
#pragma once
#include "kw/sync.h"

namespace kw {
// Which pipe writes into a buffer of this queue and which pipe reads it.
constexpr Pipe queue_producer(AscendC::TPosition src, AscendC::TPosition dst) {
    using P = AscendC::TPosition;
    return src == P::GM ? (dst == P::VECIN || dst == P::VECCALC || dst == P::VECOUT ? Pipe::MTE2 : Pipe::MTE2)
         : src == P::VECIN ? Pipe::MTE2
         : src == P::VECOUT || src == P::VECCALC ? Pipe::V
         : src == P::A1 || src == P::B1 || src == P::C1 ? Pipe::MTE2
         : src == P::A2 || src == P::B2 || src == P::C2 ? Pipe::MTE1
         : src == P::CO1 ? Pipe::M
         : src == P::CO2 ? Pipe::FIX
         : Pipe::V;
}
constexpr Pipe queue_consumer(AscendC::TPosition src, AscendC::TPosition dst) {
    using P = AscendC::TPosition;
    return dst == P::GM ? Pipe::MTE3
         : dst == P::VECIN || dst == P::VECCALC ? Pipe::V
         : dst == P::VECOUT ? (src == P::VECIN ? Pipe::MTE3 : Pipe::MTE3)
         : dst == P::A1 || dst == P::B1 || dst == P::C1 ? Pipe::MTE1
         : dst == P::A2 || dst == P::B2 || dst == P::C2 ? Pipe::M
         : dst == P::CO1 || dst == P::CO2 ? Pipe::FIX
         : Pipe::V;
}
constexpr AscendC::TPosition queue_src(AscendC::TPosition pos) {
    using P = AscendC::TPosition;
    return pos == P::VECIN || pos == P::A1 || pos == P::B1 || pos == P::C1 ? P::GM : pos;
}
constexpr AscendC::TPosition queue_dst(AscendC::TPosition pos) {
    using P = AscendC::TPosition;
    return pos == P::VECOUT || pos == P::CO2 ? P::GM : pos == P::A1 ? P::A1 : pos;
}
// Where the buffers of a queue live: the on-chip end of the queue.
constexpr AscendC::TPosition queue_storage(AscendC::TPosition src, AscendC::TPosition dst) {
    return src == AscendC::TPosition::GM ? dst : src;
}

enum class SlotState : uint8_t { FREE = 0, ALLOCATED, ENQUEUED, DEQUEUED };
constexpr int kMaxSlots = 16;

// Non-template core of a queue, so the protocol logic is compiled once in the runtime.
struct QueueCore {
    static constexpr uint32_t kMagic = 0x4B575155u;  // tells a queue apart from a TBuf in LocalTensor::owner_
    uint32_t magic = kMagic;
    AscendC::TPosition storage;
    Pipe producer, consumer;
    int32_t depth;
    uint8_t num = 0;
    uint32_t len = 0;   // bytes per buffer (rounded up to 32)
    uint32_t base = 0;  // offset of buffer 0 in the arena
    bool initialised = false;
    SlotState state[kMaxSlots] = {};
    Clock free_clock[kMaxSlots];
    Clock enq_clock[kMaxSlots];
    const void* alloc_pc[kMaxSlots] = {};
    int8_t fifo[kMaxSlots] = {};
    int fifo_head = 0, fifo_count = 0;
    int next_alloc = 0;
    const void* init_pc = nullptr;
    QueueCore(AscendC::TPosition st, Pipe prod, Pipe cons, int32_t d) : storage(st), producer(prod), consumer(cons), depth(d) {}
    ~QueueCore();
    void init(uint8_t n, uint32_t bytes, const char* kind);
    int alloc(const void* pc = nullptr);  // the slot index (fatal when none is free); pc: the user's call
    int slot_of(uint32_t addr, const char* api) const;  // fatal when the tensor is not ours
    void enque(int slot);
    int deque();
    void free_slot(int slot);
    int count_in_queue() const { return fifo_count; }
    bool has_idle() const;
};
}  // namespace kw

namespace AscendC {

using TBufHandle = uint8_t*;  // a queue slot, as the untyped DeQue() returns it

template <TPosition src, TPosition dst, int32_t depth, auto mask = 0> class TQueBind {
public:
    static constexpr bool isTQue = true;
    static constexpr TPosition kStorage = kw::queue_storage(src, dst);
    TQueBind() : core_(kStorage, kw::queue_producer(src, dst), kw::queue_consumer(src, dst), depth) {}
    // A copy (a queue passed by value) works on the original's buffers, as in CANN where the buffer
    // states live in the TPipe: its AllocTensor/FreeTensor synchronise with the original's.
    TQueBind(const TQueBind& o) : core_(o.core_), origin_(o.q().initialised ? &o.q() : nullptr) { core_.initialised = false; }
    TQueBind& operator=(const TQueBind& o) {
        if (this != &o && o.q().initialised) origin_ = &o.q();
        return *this;
    }

    // noinline: the return address is then the user's AllocTensor call (reported if the tensor leaks)
    template <typename T> __attribute__((noinline)) LocalTensor<T> AllocTensor() {
        int s = q().alloc(__builtin_return_address(0));
        return tensor_of<T>(s);
    }
    // CANN frees through the tensor's own buffer handle, so the NPU accepts a tensor given back to the
    // wrong queue (e.g. two VECIN queues swapped): the owner frees it, with a warning.
    template <typename T> void FreeTensor(LocalTensor<T>& tensor) {
        kw::QueueCore* owner = static_cast<kw::QueueCore*>(tensor.owner_);
        if (owner != nullptr && owner != &q() && *static_cast<const uint32_t*>(tensor.owner_) == kw::QueueCore::kMagic &&
            owner->initialised && owner->storage == q().storage) {
            kw::rt::Diag("queue.foreign_tensor", "FreeTensor")
                .msg("FreeTensor got a tensor of another queue; it is freed in the queue it came from")
                .hint("return a tensor to the queue it came from").warn();
            owner->free_slot(owner->slot_of(tensor.addr_, "FreeTensor"));
            return;
        }
        q().free_slot(q().slot_of(tensor.addr_, "FreeTensor"));
    }
    template <typename T> bool EnQue(const LocalTensor<T>& tensor) {
        q().enque(q().slot_of(tensor.addr_, "EnQue"));
        return true;
    }
    template <TPosition srcUserPos, TPosition dstUserPos, typename T> bool EnQue(const LocalTensor<T>& tensor) { return EnQue(tensor); }
    template <typename T> LocalTensor<T> DeQue() { return tensor_of<T>(q().deque()); }
    template <TPosition srcUserPos, TPosition dstUserPos, typename T> LocalTensor<T> DeQue() { return DeQue<T>(); }
    // the untyped form: the slot's handle (kernels call it to complete an EnQue/DeQue round trip)
    TBufHandle DeQue() {
        int s = q().deque();
        return kw::rt::arena(kw::rt::hardware_of(kStorage)) + q().base + uint32_t(s) * q().len;
    }
    bool VacantInQue() { return q().count_in_queue() < (depth > 0 ? depth : kw::kMaxSlots); }
    bool HasTensorInQue() { return q().count_in_queue() > 0; }
    int32_t GetTensorCountInQue() { return q().count_in_queue(); }
    bool HasIdleBuffer() { return q().has_idle(); }
    void FreeAllEvent() {}
    template <typename T> TBufState GetState(const LocalTensor<T>& tensor) const {
        return static_cast<TBufState>(q().state[q().slot_of(tensor.addr_, "GetState")]);
    }

    kw::QueueCore core_;
    kw::QueueCore* origin_ = nullptr;
    kw::QueueCore& q() const { return origin_ ? *origin_ : const_cast<kw::QueueCore&>(core_); }

private:
    template <typename T> LocalTensor<T> tensor_of(int slot) const {
        LocalTensor<T> t;
        t.addr_ = q().base + uint32_t(slot) * q().len;
        t.len_ = q().len;
        t.pos_ = kStorage;
        t.owner_ = &q();
        return t;
    }
};

template <TPosition pos, int32_t depth, auto mask = 0>
class TQue : public TQueBind<kw::queue_src(pos), kw::queue_dst(pos), depth, mask> {};

template <TPosition pos = TPosition::LCM> class TBuf {
public:
    static constexpr bool isTQue = false;
    TBuf() = default;
    template <typename T> LocalTensor<T> Get() { return Get<T>(len_ / sizeof(T)); }
    template <typename T> LocalTensor<T> Get(uint32_t len) {
        check_init("Get");
        if (uint64_t(len) * sizeof(T) > len_)
            kw::rt::Diag("tbuf.size", "TBuf::Get")
                .msg("Get<" + std::string(kw::dtype_name<T>()) + ">(" + std::to_string(len) + ") asks for " +
                     std::to_string(uint64_t(len) * sizeof(T)) + " bytes but the TBuf holds " + std::to_string(len_))
                .val("requested_bytes", (long long)(uint64_t(len) * sizeof(T))).val("buffer_bytes", len_)
                .hint("size the buffer in InitBuffer(buf, bytes) for the largest Get, or request fewer elements")
                .fatal();
        LocalTensor<T> t;
        t.addr_ = base_;
        t.len_ = uint32_t(len * sizeof(T));
        t.pos_ = pos;
        t.owner_ = this;
        return t;
    }
    template <typename T> LocalTensor<T> GetWithOffset(uint32_t size, uint32_t bufOffset) {
        check_init("GetWithOffset");
        if (bufOffset % 32 != 0 || uint64_t(size) * sizeof(T) + bufOffset > len_)
            kw::rt::Diag("tbuf.offset", "TBuf::GetWithOffset")
                .msg("GetWithOffset(" + std::to_string(size) + ", " + std::to_string(bufOffset) + ") needs a 32-byte aligned offset and " +
                     std::to_string(uint64_t(size) * sizeof(T) + bufOffset) + " bytes, but the TBuf holds " + std::to_string(len_))
                .hint("bufOffset is in bytes and must be a multiple of 32; size is in elements")
                .fatal();
        LocalTensor<T> t;
        t.addr_ = base_ + bufOffset;
        t.len_ = uint32_t(size * sizeof(T));
        t.pos_ = pos;
        t.owner_ = this;
        return t;
    }
    template <typename T> LocalTensor<T> AllocTensor() { return Get<T>(); }
    template <typename T> void FreeTensor(LocalTensor<T>&) {}
    template <typename T> bool EnQue(const LocalTensor<T>&) { return true; }
    template <typename T> LocalTensor<T> DeQue() { return Get<T>(); }

    void kw_init(uint32_t len) {
        len_ = (len + 31u) / 32u * 32u;
        base_ = kw::rt::reserve_local(kw::rt::hardware_of(pos), len_, "TBuf", "InitBuffer", this);
        init_ = true;
    }

private:
    // The NPU hands out a tensor of an uninitialised TBuf without complaint (kernels Get() buffers that
    // only another dtype path initialises and uses): a warning here, and the tensor holds 0 bytes, so
    // any instruction on it fails with ub.out_of_bounds.
    void check_init(const char* api) const {
        if (!init_)
            kw::rt::Diag("tbuf.uninitialised", api)
                .msg("a TBuf is used before TPipe::InitBuffer gave it memory; the tensor holds 0 bytes")
                .hint("call pipe.InitBuffer(buf, bytes) in Init() before Get()")
                .warn();
    }
    uint32_t base_ = 0, len_ = 0;
    bool init_ = false;
};

class TPipe {
public:
    TPipe();
    ~TPipe();
    TPipe(const TPipe&) = delete;
    TPipe& operator=(const TPipe&) = delete;
    void Init() {}
    void Destroy();
    void Reset();
    template <class T> bool InitBuffer(T& que, uint8_t num, uint32_t len) {
        static_assert(T::isTQue, "TPipe::InitBuffer(T& que, uint8_t num, uint32_t len) not supports T as TBuf");
        que.core_.init(num, len, "TQue");
        que.origin_ = nullptr;
        return true;
    }
    template <TPosition pos> bool InitBuffer(TBuf<pos>& buf, uint32_t len) {
        if (len == 0)  // as for queues (queues.cpp): CANN's CPU debugging stops, the NPU runs on with an empty buffer
            kw::rt::Diag("pipe.buffer_length", "InitBuffer")
                .msg("buffer length is 0, which should be larger than 0 (CANN's CPU debugging stops here; on the NPU the "
                     "buffer is empty and any use of it overruns)")
                .hint("compute the TBuf size from the tiling before InitBuffer")
                .warn();
        buf.kw_init(len);
        return true;
    }
    template <HardEvent evt> TEventID AllocEventID() { return alloc_event(static_cast<int>(evt), true); }
    template <HardEvent evt> void ReleaseEventID(TEventID id) { release_event(static_cast<int>(evt), id); }
    template <HardEvent evt> TEventID FetchEventID() { return alloc_event(static_cast<int>(evt), false); }
    TEventID FetchEventID(HardEvent evt) { return alloc_event(static_cast<int>(evt), false); }
    template <TPosition pos, typename T> LocalTensor<T> GetAbsAddr(int32_t offset, int32_t size) const {
        LocalTensor<T> t;
        t.addr_ = uint32_t(offset);
        t.len_ = uint32_t(size) * sizeof(T);
        t.pos_ = pos;
        return t;
    }

private:
    TEventID alloc_event(int evt, bool take);
    void release_event(int evt, TEventID id);
    uint8_t event_used_[static_cast<int>(HardEvent::MAX)] = {};
};


template <TPosition pos, int32_t depth = 1, auto mask = 0> using TSCM = TQueBind<pos, TPosition::TSCM, depth, mask>;

}  // namespace AscendC

// The current pipe: a global function in CANN 8.x (not a member of AscendC).
AscendC::TPipe* GetTPipePtr();
