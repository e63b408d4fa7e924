// Host-side stand-ins of the runtime context types a TilingFunc / InferShape function sees
// (namespace gert), backed by plain vectors that the kernelwright host runner fills from the
// case being run.
#pragma once
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>
#include "graph/types.h"

namespace fe {
enum class LocalMemType { L0_A = 0, L0_B = 1, L0_C = 2, L1 = 3, L2 = 4, UB = 5, HBM = 6, RESERVED };
// Opaque on CANN; here it carries the SoC profile the case runs on.
class PlatFormInfos {
public:
    uint32_t GetCoreNum() const { return split_arch ? aiv_cores : aic_cores; }
    void GetLocalMemSize(const LocalMemType& t, uint64_t& size) const {
        switch (t) {
            case LocalMemType::L0_A: size = l0a; break;
            case LocalMemType::L0_B: size = l0b; break;
            case LocalMemType::L0_C: size = l0c; break;
            case LocalMemType::L1: size = l1; break;
            case LocalMemType::L2: size = l2; break;
            case LocalMemType::UB: size = ub; break;
            case LocalMemType::HBM: size = hbm; break;
            default: size = 0;
        }
    }
    void GetLocalMemBw(const LocalMemType&, uint64_t& bw) const { bw = 0; }
    bool GetPlatformRes(const std::string&, const std::string&, std::string& val) const { val.clear(); return false; }
    bool GetPlatformResWithLock(const std::string& a, const std::string& b, std::string& v) const { return GetPlatformRes(a, b, v); }
    std::string soc_name, short_soc;
    int cce_aicore = 220;
    bool split_arch = true;
    uint32_t aic_cores = 24, aiv_cores = 48, vector_core_m200 = 0;
    uint64_t ub = 196608, l1 = 524288, l0a = 65536, l0b = 65536, l0c = 131072, l2 = 201326592, hbm = 68719476736ull;
};
}  // namespace fe

namespace gert {

class Shape {
public:
    static constexpr size_t kMaxDimNum = 25;
    Shape() : dim_num_(0), dims_{0} {}
    Shape(const std::initializer_list<int64_t>& args) : Shape() {
        for (int64_t d : args) AppendDim(d);
    }
    bool operator==(const Shape& o) const {
        if (dim_num_ != o.dim_num_) return false;
        for (size_t i = 0; i < dim_num_; ++i)
            if (dims_[i] != o.dims_[i]) return false;
        return true;
    }
    bool operator!=(const Shape& o) const { return !(*this == o); }
    int64_t GetShapeSize() const {
        int64_t n = 1;
        for (size_t i = 0; i < dim_num_; ++i) n *= dims_[i];
        return n;
    }
    bool IsScalar() const { return dim_num_ == 0; }
    void SetScalar() { dim_num_ = 0; }
    size_t GetDimNum() const { return dim_num_; }
    void SetDimNum(const size_t dim_num) { dim_num_ = dim_num < kMaxDimNum ? dim_num : kMaxDimNum; }
    int64_t GetDim(const size_t idx) const { return idx < dim_num_ ? dims_[idx] : INT64_MIN; }
    const int64_t& operator[](const size_t idx) const { return dims_[idx]; }
    int64_t& operator[](const size_t idx) { return dims_[idx]; }
    void SetDim(size_t idx, const int64_t dim_value) {
        if (idx < kMaxDimNum) dims_[idx] = dim_value;
    }
    Shape& AppendDim(const int64_t value) {
        if (dim_num_ < kMaxDimNum) dims_[dim_num_++] = value;
        return *this;
    }

private:
    size_t dim_num_;
    int64_t dims_[kMaxDimNum];
};

class StorageShape {
public:
    StorageShape() = default;
    StorageShape(const std::initializer_list<int64_t>& origin, const std::initializer_list<int64_t>& storage)
        : origin_(origin), storage_(storage) {}
    const Shape& GetOriginShape() const { return origin_; }
    const Shape& GetStorageShape() const { return storage_; }
    Shape& MutableOriginShape() { return origin_; }
    Shape& MutableStorageShape() { return storage_; }
    bool operator==(const StorageShape& o) const { return origin_ == o.origin_ && storage_ == o.storage_; }
    bool operator!=(const StorageShape& o) const { return !(*this == o); }

private:
    Shape origin_, storage_;
};

struct StorageFormat {
    ge::Format origin = ge::FORMAT_ND, storage = ge::FORMAT_ND;
    ge::Format GetOriginFormat() const { return origin; }
    ge::Format GetStorageFormat() const { return storage; }
};

class Tensor {
public:
    int64_t GetShapeSize() const { return shape_.GetStorageShape().GetShapeSize(); }
    template <class T> const T* GetData() const { return static_cast<const T*>(data_); }
    const void* GetAddr() const { return data_; }
    size_t GetSize() const { return size_; }
    ge::DataType GetDataType() const { return dtype_; }
    const Shape& GetStorageShape() const { return shape_.GetStorageShape(); }
    const Shape& GetOriginShape() const { return shape_.GetOriginShape(); }
    const StorageShape& GetShape() const { return shape_; }
    ge::Format GetStorageFormat() const { return format_.storage; }
    ge::Format GetOriginFormat() const { return format_.origin; }
    const StorageFormat& GetFormat() const { return format_; }

    // filled by the host runner
    StorageShape shape_;
    StorageFormat format_;
    ge::DataType dtype_ = ge::DT_FLOAT;
    const void* data_ = nullptr;
    size_t size_ = 0;
};

class CompileTimeTensorDesc {
public:
    ge::DataType GetDataType() const { return dtype_; }
    ge::Format GetStorageFormat() const { return format_.storage; }
    ge::Format GetOriginFormat() const { return format_.origin; }
    const StorageFormat& GetFormat() const { return format_; }
    ge::DataType dtype_ = ge::DT_FLOAT;
    StorageFormat format_;
};

// CANN's layout starts with capacity_ and size_ (exe_graph/runtime/continuous_vector.h), so a kernel's
// host code that reads a list attribute with GetInt gets its capacity, the same number on every call.
template <class T> class TypedContinuousVector {
public:
    size_t GetSize() const { return v_.size(); }
    size_t GetCapacity() const { return v_.size(); }
    const T* GetData() const { return v_.data(); }
    void Assign(std::vector<T> v) {
        v_ = std::move(v);
        capacity_ = size_ = v_.size();
    }
    size_t capacity_ = 0, size_ = 0;
    std::vector<T> v_;
};
class ContinuousVectorVector {
public:
    size_t GetSize() const { return v_.size(); }
    const TypedContinuousVector<int64_t>* Get(size_t i) const { return i < v_.size() ? &v_[i] : nullptr; }
    std::vector<TypedContinuousVector<int64_t>> v_;
};

// One attribute value as the runner stores it; GetAttrPointer<T> reinterprets its storage.
struct AttrValue {
    enum Kind { NONE, BOOL, INT, FLOAT, STR, LIST_INT, LIST_FLOAT, LIST_BOOL } kind = NONE;
    bool b = false;
    int64_t i = 0;
    float f = 0;
    std::string s;
    TypedContinuousVector<int64_t> li;
    TypedContinuousVector<float> lf;
    TypedContinuousVector<bool> lb;
    const void* ptr() const {
        switch (kind) {
            case BOOL: return &b;
            case INT: return &i;
            case FLOAT: return &f;
            case STR: return s.c_str();
            case LIST_INT: return &li;
            case LIST_FLOAT: return &lf;
            case LIST_BOOL: return &lb;
            default: return nullptr;
        }
    }
};

class RuntimeAttrs {
public:
    template <typename T> const T* GetAttrPointer(size_t index) const {
        return index < attrs_.size() ? static_cast<const T*>(attrs_[index].ptr()) : nullptr;
    }
    const int64_t* GetInt(const size_t index) const { return GetAttrPointer<int64_t>(index); }
    const float* GetFloat(const size_t index) const { return GetAttrPointer<float>(index); }
    const bool* GetBool(const size_t index) const { return GetAttrPointer<bool>(index); }
    const char* GetStr(const size_t index) const { return GetAttrPointer<char>(index); }
    const TypedContinuousVector<int64_t>* GetListInt(const size_t index) const {
        return GetAttrPointer<TypedContinuousVector<int64_t>>(index);
    }
    const TypedContinuousVector<float>* GetListFloat(const size_t index) const {
        return GetAttrPointer<TypedContinuousVector<float>>(index);
    }
    size_t GetAttrNum() const { return attrs_.size(); }
    std::vector<AttrValue> attrs_;
};

class TilingData {
public:
    void* GetData() { return data_.data(); }
    const void* GetData() const { return data_.data(); }
    size_t GetCapacity() const { return data_.size(); }
    size_t GetDataSize() const { return size_; }
    void SetDataSize(size_t size) { size_ = size; }
    template <typename T> ge::graphStatus AppendConvertedAttrVal(const RuntimeAttrs*, size_t, int = 0) { return ge::GRAPH_SUCCESS; }
    std::vector<uint8_t> data_ = std::vector<uint8_t>(64 * 1024, 0);
    size_t size_ = 0;
};

}  // namespace gert
#include "kwhost/gert_node.h"  // ContextCore, AnchorInstanceInfo, ComputeNodeInfo
namespace gert {

class ExtendedKernelContext {
public:
    const CompileTimeTensorDesc* GetInputDesc(const size_t index) const {
        return index < core_.input_descs.size() && core_.input_present[index] ? &core_.input_descs[index] : nullptr;
    }
    const CompileTimeTensorDesc* GetOptionalInputDesc(const size_t ir) const { return core_.ir_desc(ir, 0); }
    const CompileTimeTensorDesc* GetRequiredInputDesc(const size_t ir) const { return core_.ir_desc(ir, 0); }
    const CompileTimeTensorDesc* GetDynamicInputDesc(const size_t ir, const size_t k) const { return core_.ir_desc(ir, k); }
    const AnchorInstanceInfo* GetIrInputInstanceInfo(const size_t ir) const { return core_.ir_input(ir); }
    const AnchorInstanceInfo* GetIrOutputInstanceInfo(const size_t ir) const { return core_.ir_output(ir); }
    const ComputeNodeInfo* GetComputeNodeInfo() const {
        node_info_.core_ = &core_;
        return &node_info_;
    }
    const CompileTimeTensorDesc* GetOutputDesc(const size_t index) const {
        return index < core_.output_descs.size() ? &core_.output_descs[index] : nullptr;
    }
    size_t GetComputeNodeInputNum() const { return core_.input_shapes.size(); }
    size_t GetComputeNodeOutputNum() const { return core_.output_shapes.size(); }
    const RuntimeAttrs* GetAttrs() const { return &core_.attrs; }
    const char* GetNodeType() const { return core_.node_type.c_str(); }
    const char* GetNodeName() const { return core_.node_name.c_str(); }
    ContextCore core_;
    mutable ComputeNodeInfo node_info_;
};

class TilingContext : public ExtendedKernelContext {
public:
    const StorageShape* GetInputShape(const size_t index) const { return core_.in_shape(index); }
    const StorageShape* GetOptionalInputShape(const size_t ir) const { return core_.ir_shape(ir, 0); }
    const StorageShape* GetRequiredInputShape(const size_t ir) const { return core_.ir_shape(ir, 0); }
    const StorageShape* GetDynamicInputShape(const size_t ir, const size_t k) const { return core_.ir_shape(ir, k); }
    const StorageShape* GetOutputShape(const size_t index) const {
        return index < core_.output_shapes.size() ? &core_.output_shapes[index] : nullptr;
    }
    const Tensor* GetInputTensor(const size_t index) const {
        return index < core_.input_tensors.size() && core_.input_present[index] ? &core_.input_tensors[index] : nullptr;
    }
    const Tensor* GetOptionalInputTensor(const size_t ir) const { return core_.ir_tensor(ir, 0); }
    const Tensor* GetRequiredInputTensor(const size_t ir) const { return core_.ir_tensor(ir, 0); }
    const Tensor* GetDynamicInputTensor(const size_t ir, const size_t k) const { return core_.ir_tensor(ir, k); }
    template <typename T> const T* GetCompileInfo() const { return static_cast<const T*>(compile_info_); }
    const void* GetCompileInfo() const { return compile_info_; }
    ge::graphStatus SetTilingKey(const uint64_t tiling_key) {
        tiling_key_ = tiling_key;
        return ge::GRAPH_SUCCESS;
    }
    uint64_t GetTilingKey() const { return tiling_key_; }
    ge::graphStatus SetScheduleMode(const uint32_t m) {
        schedule_mode_ = m;
        return ge::GRAPH_SUCCESS;
    }
    uint32_t GetScheduleMode() const { return schedule_mode_; }
    ge::graphStatus SetBlockDim(const uint32_t block_dim) {
        block_dim_ = block_dim;
        return ge::GRAPH_SUCCESS;
    }
    uint32_t GetBlockDim() const { return block_dim_; }
    ge::graphStatus SetTilingCond(int32_t c) {
        tiling_cond_ = c;
        return ge::GRAPH_SUCCESS;
    }
    int32_t GetTilingCond() const { return tiling_cond_; }
    ge::graphStatus SetNeedAtomic(const bool atomic) {
        need_atomic_ = atomic;
        return ge::GRAPH_SUCCESS;
    }
    bool NeedAtomic() const { return need_atomic_; }
    template <typename T> T* GetTilingData() { return static_cast<T*>(tiling_.GetData()); }
    TilingData* GetRawTilingData() { return &tiling_; }
    size_t* GetWorkspaceSizes(const size_t workspace_count) {
        if (workspaces_.size() < workspace_count) workspaces_.resize(workspace_count, 0);
        return workspaces_.data();
    }
    size_t GetWorkspaceNum() const { return workspaces_.size(); }
    fe::PlatFormInfos* GetPlatformInfo() const { return platform_; }
    int32_t GetDeterministic() const { return 0; }
    ge::graphStatus SetLocalMemorySize(const uint32_t) { return ge::GRAPH_SUCCESS; }

    uint64_t tiling_key_ = 0;
    uint32_t block_dim_ = 0, schedule_mode_ = 0;
    int32_t tiling_cond_ = 0;
    bool need_atomic_ = false;
    TilingData tiling_;
    std::vector<size_t> workspaces_;
    fe::PlatFormInfos* platform_ = nullptr;
    const void* compile_info_ = nullptr;  // filled by the op's TilingParse function, if it has one
};

class InferShapeContext : public ExtendedKernelContext {
public:
    static const Shape* origin(const StorageShape* s) { return s ? &s->GetOriginShape() : nullptr; }
    const Shape* GetInputShape(const size_t index) const {
        const StorageShape* s = core_.in_shape(index);
        return s ? &s->GetOriginShape() : nullptr;
    }
    const Shape* GetOptionalInputShape(const size_t ir) const { return origin(core_.ir_shape(ir, 0)); }
    const Shape* GetRequiredInputShape(const size_t ir) const { return origin(core_.ir_shape(ir, 0)); }
    const Shape* GetDynamicInputShape(const size_t ir, const size_t k) const { return origin(core_.ir_shape(ir, k)); }
    const Tensor* GetInputTensor(const size_t index) const {
        return index < core_.input_tensors.size() && core_.input_present[index] ? &core_.input_tensors[index] : nullptr;
    }
    const Tensor* GetOptionalInputTensor(const size_t ir) const { return core_.ir_tensor(ir, 0); }
    const Tensor* GetRequiredInputTensor(const size_t ir) const { return core_.ir_tensor(ir, 0); }
    const Tensor* GetDynamicInputTensor(const size_t ir, const size_t k) const { return core_.ir_tensor(ir, k); }
    Shape* GetOutputShape(const size_t index) {
        return index < core_.output_shapes.size() ? &core_.output_shapes[index].MutableOriginShape() : nullptr;
    }
};

class InferDataTypeContext : public ExtendedKernelContext {
public:
    static ge::DataType dtype(const CompileTimeTensorDesc* d) { return d ? d->dtype_ : ge::DT_UNDEFINED; }
    ge::DataType GetInputDataType(const size_t index) const {
        return index < core_.input_descs.size() ? core_.input_descs[index].dtype_ : ge::DT_UNDEFINED;
    }
    ge::DataType GetOptionalInputDataType(const size_t ir) const { return dtype(core_.ir_desc(ir, 0)); }
    ge::DataType GetRequiredInputDataType(const size_t ir) const { return dtype(core_.ir_desc(ir, 0)); }
    ge::DataType GetDynamicInputDataType(const size_t ir, const size_t k) const { return dtype(core_.ir_desc(ir, k)); }
    ge::DataType GetOutputDataType(const size_t index) const {
        return index < core_.output_descs.size() ? core_.output_descs[index].dtype_ : ge::DT_UNDEFINED;
    }
    ge::graphStatus SetOutputDataType(const size_t index, const ge::DataType dt) {
        if (index >= core_.output_descs.size()) return ge::GRAPH_FAILED;
        core_.output_descs[index].dtype_ = dt;
        return ge::GRAPH_SUCCESS;
    }
};

}  // namespace gert
#include "kwhost/shape_range.h"
namespace gert {
// What a TilingParse (TilingPrepare) function sees: the compile-info object it fills, which
// TilingContext::GetCompileInfo<T>() hands to the tiling function afterwards.
class TilingParseContext : public ExtendedKernelContext {
public:
    template <typename T> T* GetCompiledInfo() { return static_cast<T*>(compile_info_); }
    fe::PlatFormInfos* GetPlatformInfo() const { return platform_; }
    const char* GetCompiledJson() const { return "{}"; }
    void* compile_info_ = nullptr;
    fe::PlatFormInfos* platform_ = nullptr;
};

struct OpImplRegisterV2 {
    using TilingKernelFunc = ge::graphStatus (*)(TilingContext*);
    using InferShapeKernelFunc = ge::graphStatus (*)(InferShapeContext*);
    using InferShapeRangeKernelFunc = ge::graphStatus (*)(InferShapeRangeContext*);
    using InferDataTypeKernelFunc = ge::graphStatus (*)(InferDataTypeContext*);
};
}  // namespace gert
