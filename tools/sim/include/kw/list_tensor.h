// Tensor lists: the GM descriptor CANN passes for a DYNAMIC input or output of an msopgen op, and the
// AscendC classes that read it (`ListTensorDesc`, `TensorDesc<T>`, CANN 8.x interface, written from
// the documented layout). The descriptor is a run of 64-bit words:
//   word 0                 byte offset from the descriptor's start to the data-pointer array
//   per tensor, in order   a header word (low 32 bits: its dim count; high 32 bits: its index in the
//                          list) and then its dims, one word each (a 0-d tensor has one 0xFFFFFFFF word)
//   at that offset         one data pointer per tensor
// Kernels may read it raw (`*(ptrs + i)` after `ptrs = base + (*base >> 3)`) or through the classes;
// the runtime builds it (runtime/list_tensor.cpp) from the case's tensors.
#pragma once
#include <string>
#include "kw/runtime.h"
#include "kw/tensor.h"

namespace kw::rt {
// true when `p` is the first byte of a tensor-list descriptor the runtime built for this launch
bool gm_is_list_descriptor(const void* p);
}  // namespace kw::rt

namespace AscendC {

namespace kwlist {
[[noreturn]] inline void fail(const char* rule, const char* api, const std::string& msg, const std::string& hint) {
    kw::rt::Diag(rule, api).msg(std::string(api) + ": " + msg).hint(hint).fatal();
}
inline uint64_t word(__gm__ const uint64_t* p, const char* api) {
    kw::rt::access_gm(kw::Pipe::S, p, sizeof(uint64_t), false, api, "tensor-list descriptor");
    kw::rt::count_scalar("gm_read");
    return *p;
}
inline uint32_t stride_of(uint64_t header) {
    uint32_t dims = uint32_t(header & 0xffffffffu);
    return dims == 0 ? 2 : 1 + dims;
}
}  // namespace kwlist

template <class T> class TensorDesc {
public:
    TensorDesc() = default;
    ~TensorDesc() = default;
    void SetShapeAddr(uint64_t* shapePtr) { shape_ = shapePtr; }
    uint64_t GetDim() { return dim_; }
    uint64_t GetIndex() { return index_; }
    uint64_t GetShape(uint32_t offset) {
        if (shape_ == nullptr)
            kwlist::fail("list.no_shape_addr", "TensorDesc::GetShape", "no shape storage was set",
                         "call desc.SetShapeAddr(buf) with room for every dim before ListTensorDesc::GetDesc(desc, i)");
        if (offset >= dim_)
            kwlist::fail("list.dim_index", "TensorDesc::GetShape",
                         "dim " + std::to_string(offset) + " asked of tensor " + std::to_string(index_) + ", which has " +
                             std::to_string(dim_) + " dims",
                         "loop over i < desc.GetDim(); the NPU returns whatever follows the shape in the buffer");
        return shape_[offset];
    }
    __gm__ T* GetDataPtr() { return ptr_; }
    GlobalTensor<T> GetDataObj() {
        uint64_t n = 1;
        for (uint32_t i = 0; i < dim_; ++i) n *= shape_ ? shape_[i] : 0;
        GlobalTensor<T> g;
        g.SetGlobalBuffer(reinterpret_cast<__gm__ PrimT<T>*>(ptr_), n);
        return g;
    }

    // filled by ListTensorDesc::GetDesc
    uint32_t dim_ = 0, index_ = 0;
    uint64_t* shape_ = nullptr;
    __gm__ T* ptr_ = nullptr;
};

class ListTensorDesc {
public:
    ListTensorDesc() = default;
    ListTensorDesc(__gm__ void* data, uint32_t length = 0xffffffff, uint32_t shapeSize = 0xffffffff) {
        Init(data, length, shapeSize);
    }
    void Init(__gm__ void* data, uint32_t length = 0xffffffff, uint32_t shapeSize = 0xffffffff) {
        const char* api = "ListTensorDesc::Init";
        if (data == nullptr)
            kwlist::fail("list.null", api, "the descriptor address is null",
                         "pass the GM_ADDR the kernel received for the DYNAMIC input/output (ParamType(DYNAMIC))");
        if (!kw::rt::gm_is_list_descriptor(data))
            kwlist::fail("list.not_a_list", api, "the address is not the start of a tensor-list descriptor",
                         "only DYNAMIC (tensor-list) parameters arrive as a descriptor; a REQUIRED/OPTIONAL tensor's "
                         "GM_ADDR points at its data, which the NPU would decode as garbage offsets");
        base_ = reinterpret_cast<__gm__ uint64_t*>(data);
        uint64_t ptr_off = kwlist::word(base_, api);
        ptrs_ = base_ + ptr_off / sizeof(uint64_t);
        count_ = 0;
        for (__gm__ uint64_t* h = base_ + 1; h < ptrs_; h += kwlist::stride_of(kwlist::word(h, api))) ++count_;
        if (shapeSize != 0xffffffff && shapeSize != count_)
            kwlist::fail("list.size_mismatch", api,
                         "shapeSize = " + std::to_string(shapeSize) + " but the list holds " + std::to_string(count_) +
                             " tensors",
                         "shapeSize is the number of data pointers; leave it at its default to skip the check");
        uint64_t bytes = ptr_off + uint64_t(count_) * sizeof(uint64_t);
        if (length != 0xffffffff && length != bytes)
            kwlist::fail("list.size_mismatch", api,
                         "length = " + std::to_string(length) + " but the descriptor is " + std::to_string(bytes) + " bytes",
                         "length is the descriptor's size in bytes (offset word + shape words + pointers); leave it at "
                         "its default to skip the check");
    }
    template <class T> void GetDesc(TensorDesc<T>& desc, uint32_t index) {
        const char* api = "ListTensorDesc::GetDesc";
        check_index(index, api);
        if (desc.shape_ == nullptr)
            kwlist::fail("list.no_shape_addr", api, "the TensorDesc has no shape storage",
                         "call desc.SetShapeAddr(buf) first (uint64_t buf[...] with room for every dim)");
        __gm__ uint64_t* h = header(index, api);
        uint64_t hw = kwlist::word(h, api);
        desc.dim_ = uint32_t(hw & 0xffffffffu);
        desc.index_ = index;
        for (uint32_t i = 0; i < desc.dim_; ++i) desc.shape_[i] = kwlist::word(h + 1 + i, api);
        desc.ptr_ = GetDataPtr<T>(index);
    }
    template <class T> __gm__ T* GetDataPtr(uint32_t index) {
        check_index(index, "ListTensorDesc::GetDataPtr");
        return reinterpret_cast<__gm__ T*>(kwlist::word(ptrs_ + index, "ListTensorDesc::GetDataPtr"));
    }
    uint32_t GetSize() { return count_; }

private:
    void check_index(uint32_t index, const char* api) {
        if (base_ == nullptr)
            kwlist::fail("list.not_initialised", api, "the ListTensorDesc was never initialised",
                         "construct it with the descriptor address or call Init(addr) first");
        if (index >= count_)
            kwlist::fail("list.index", api,
                         "index " + std::to_string(index) + " is past the end of a list of " + std::to_string(count_) +
                             " tensors",
                         "loop over i < GetSize(); on the NPU this reads a garbage pointer");
    }
    __gm__ uint64_t* header(uint32_t index, const char* api) {
        __gm__ uint64_t* h = base_ + 1;
        for (uint32_t i = 0; i < index; ++i) h += kwlist::stride_of(kwlist::word(h, api));
        return h;
    }
    __gm__ uint64_t* base_ = nullptr;
    __gm__ uint64_t* ptrs_ = nullptr;
    uint32_t count_ = 0;
};

}  // namespace AscendC
