// GlobalTensor / LocalTensor with the CANN 8.x member signatures. Local tensors are byte
// offsets into the emulated on-chip memories, so wrong offsets really alias and overflow.
#pragma once
#include "kw/runtime.h"

namespace AscendC {

constexpr int K_MAX_SHAPE_DIM = 8;
struct ShapeInfo {
    uint8_t shapeDim = 0;
    uint8_t originalShapeDim = 0;
    uint32_t shape[K_MAX_SHAPE_DIM] = {0};
    uint32_t originalShape[K_MAX_SHAPE_DIM] = {0};
    DataFormat dataFormat = DataFormat::ND;
    ShapeInfo() = default;
    ShapeInfo(const uint8_t inputShapeDim, const uint32_t inputShape[], const uint8_t inputOriginalShapeDim,
              const uint32_t inputOriginalShape[], const DataFormat inputFormat)
        : shapeDim(inputShapeDim), originalShapeDim(inputOriginalShapeDim), dataFormat(inputFormat) {
        for (int i = 0; i < inputShapeDim && i < K_MAX_SHAPE_DIM; ++i) shape[i] = inputShape[i];
        for (int i = 0; i < inputOriginalShapeDim && i < K_MAX_SHAPE_DIM; ++i) originalShape[i] = inputOriginalShape[i];
    }
    ShapeInfo(const uint8_t inputShapeDim, const uint32_t inputShape[], const DataFormat inputFormat)
        : ShapeInfo(inputShapeDim, inputShape, inputShapeDim, inputShape, inputFormat) {}
    ShapeInfo(const uint8_t inputShapeDim, const uint32_t inputShape[]) : ShapeInfo(inputShapeDim, inputShape, DataFormat::ND) {}
};

template <typename T> class GlobalTensor {
public:
    using PrimType = PrimT<T>;
    GlobalTensor() = default;
    void SetGlobalBuffer(__gm__ PrimType* buffer, uint64_t bufferSize) {
        addr_ = buffer;
        size_ = bufferSize;
    }
    void SetGlobalBuffer(__gm__ PrimType* buffer) {
        addr_ = buffer;
        size_ = 0;
    }
    const __gm__ PrimType* GetPhyAddr() const { return addr_; }
    __gm__ PrimType* GetPhyAddr(const uint64_t offset) const { return addr_ + offset; }
    PrimType GetValue(const uint64_t offset) const {
        if (!kw::rt::scalar_read_fast(addr_ + offset, sizeof(PrimType), kw::rt::kGmRead)) {
            kw::rt::access_gm(kw::Pipe::S, addr_ + offset, sizeof(PrimType), false, "GlobalTensor::GetValue", "this");
            kw::rt::count_scalar(kw::rt::kGmRead);
        }
        return addr_[offset];
    }
    __gm__ PrimType& operator()(const uint64_t offset) const { return addr_[offset]; }
    void SetValue(const uint64_t offset, PrimType value) {
        kw::rt::access_gm_store(kw::Pipe::S, addr_ + offset, sizeof(PrimType), &value, "GlobalTensor::SetValue", "this");
        kw::rt::count_scalar("gm_write");
        addr_[offset] = value;
    }
    uint64_t GetSize() const { return size_; }
    GlobalTensor operator[](const uint64_t offset) const {
        GlobalTensor r;
        r.addr_ = addr_ + offset;
        r.size_ = size_ > offset ? size_ - offset : 0;
        r.shape_ = shape_;
        return r;
    }
    void SetShapeInfo(const ShapeInfo& s) { shape_ = s; }
    ShapeInfo GetShapeInfo() const { return shape_; }
    template <CacheRwMode rwMode = CacheRwMode::RW> void SetL2CacheHint(CacheMode) {}

    __gm__ PrimType* addr_ = nullptr;  // public in spirit: the emulation's copy routines read it
    uint64_t size_ = 0;
    ShapeInfo shape_;
};

template <typename T> struct SymbolOverride;

template <typename T> class LocalTensor {
public:
    using PrimType = PrimT<T>;
    LocalTensor() = default;
    LocalTensor(const LocalTensor&) = default;
    LocalTensor& operator=(const LocalTensor&) = default;
    // `dst = a + b;` (defined in kw/tensor_ops.h)
    template <typename U> LocalTensor& operator=(const SymbolOverride<U>& e);

    // The CPU twin returns a host pointer here (the NPU returns an integer address).
    __ubuf__ PrimType* GetPhyAddr() const { return ptr(); }
    __ubuf__ PrimType* GetPhyAddr(const uint32_t offset) const {
        check_index(offset, "GetPhyAddr", true);
        return ptr() + offset;
    }
    PrimType GetValue(const uint32_t index) const {
        check_index(index, "GetValue", false);
        kw::rt::scalar_local(hw(), addr_ + index * sizeof(PrimType), sizeof(PrimType), false);
        kw::rt::count_scalar("local_read");
        return ptr()[index];
    }
    __ubuf__ PrimType& operator()(const uint32_t offset) const {
        check_index(offset, "operator()", false);
        return ptr()[offset];
    }
    template <typename T1> void SetValue(const uint32_t index, const T1 value) const {
        check_index(index, "SetValue", false);
        kw::rt::scalar_local(hw(), addr_ + index * sizeof(PrimType), sizeof(PrimType), true);
        kw::rt::count_scalar("local_write");
        ptr()[index] = static_cast<PrimType>(value);
    }
    // The NPU only computes the address: a view past the end is legal (kernels build views they use on
    // one path only); it holds 0 bytes, so any instruction that touches it reports ub.out_of_bounds.
    LocalTensor operator[](const uint32_t offset) const {
        LocalTensor r = *this;
        const uint64_t skip = uint64_t(offset) * sizeof(PrimType);
        r.addr_ = addr_ + uint32_t(skip);
        r.len_ = skip < len_ ? uint32_t(len_ - skip) : 0;
        return r;
    }
    template <typename CAST_T> LocalTensor<CAST_T> ReinterpretCast() const {
        LocalTensor<CAST_T> r;
        r.addr_ = addr_;
        r.len_ = len_;
        r.pos_ = pos_;
        r.owner_ = owner_;
        r.tag_ = tag_;
        return r;
    }
    int32_t GetPosition() const { return static_cast<int32_t>(pos_); }
    void SetSize(const uint32_t size) { len_ = size * sizeof(PrimType); }
    uint32_t GetSize() const { return len_ / sizeof(PrimType); }
    uint32_t GetLength() const { return len_; }
    void SetBufferLen(uint32_t dataLen) { len_ = dataLen; }
    template <typename T1> void SetAddrWithOffset(LocalTensor<T1>& src, uint32_t offset) {
        addr_ = src.addr_ + offset * sizeof(T1);
        len_ = src.len_ - offset * sizeof(T1);
        pos_ = src.pos_;
        owner_ = src.owner_;
    }
    void SetUserTag(const TTagType tag) { tag_ = tag; }
    TTagType GetUserTag() const { return tag_; }
    void SetShapeInfo(const ShapeInfo& s) { shape_ = s; }
    ShapeInfo GetShapeInfo() const { return shape_; }
    void Print() const { Print(GetSize()); }
    void Print(uint32_t len) const {
        for (uint32_t i = 0; i < len && i < GetSize(); ++i)
            std::printf("%g%s", static_cast<double>(static_cast<float>(ptr()[i])), (i + 1) % 16 == 0 ? "\n" : " ");
        std::printf("\n");
    }

    // ---- emulation internals (kept public so templates in other headers can use them) ----
    PrimType* ptr() const { return reinterpret_cast<PrimType*>(kw::rt::arena(hw()) + addr_); }
    AscendC::Hardware hw() const { return kw::rt::hardware_of(pos_); }
    void check_index(uint32_t i, const char* what, bool end_ok) const {
        uint32_t n = GetSize();
        if (i < n || (end_ok && i == n)) return;
        // past a short view (TBuf::Get(n), SetSize) but inside its buffer: bytes the kernel owns (ub.past_view)
        const uint32_t end = kw::rt::buffer_end(hw(), addr_, owner_);
        if (end != 0 && addr_ + (uint64_t(i) + 1) * sizeof(PrimType) <= end) {
            kw::rt::Diag("ub.past_view", what)
                .msg(std::string(what) + " at index " + std::to_string(i) + " of a " + std::to_string(n) +
                     "-element view, inside its buffer (which ends at offset " + std::to_string(end) + ")")
                .val("index", i).val("size", n)
                .hint("take the view with the length the kernel uses (Get<T>(count)); CANN's CPU debugging rejects this")
                .warn();
            return;
        }
        kw::rt::Diag("tensor.index", what)
            .msg(std::string("index ") + std::to_string(i) + " is out of range for a LocalTensor<" + kw::dtype_name<PrimType>() +
                 "> of " + std::to_string(n) + " elements (" + std::to_string(len_) + " bytes)")
            .val("index", i).val("size", n)
            .hint("the CPU twin aborts here ('offset/index is %u, which can not be larger than data len'); on the NPU "
                  "the access silently reads or writes a neighbouring buffer")
            .fatal();
    }

    uint32_t addr_ = 0;  // byte offset in the arena of hw()
    uint32_t len_ = 0;   // bytes from addr_ to the end of the underlying buffer
    TPosition pos_ = TPosition::VECCALC;
    void* owner_ = nullptr;  // the queue/buffer that handed this tensor out
    TTagType tag_ = 0;
    ShapeInfo shape_;
};

}  // namespace AscendC
