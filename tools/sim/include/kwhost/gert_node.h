// Host-side stand-ins of the compute-node view of an op (namespace gert): which instances of the
// context's inputs/outputs belong to each IR parameter. A DYNAMIC (tensor-list) parameter has one
// instance per tensor, an absent OPTIONAL one none; contexts index inputs by instance
// (GetInputShape(i), GetInputDesc(i)) or by IR index (GetOptionalInputShape(ir),
// GetDynamicInputShape(ir, k)). Part of kwhost/gert.h (included after the tensor and attribute types).
#pragma once

namespace gert {

// The instances [start, start + num) of the context's inputs or outputs that one IR parameter has.
class AnchorInstanceInfo {
public:
    AnchorInstanceInfo() = default;
    AnchorInstanceInfo(const uint32_t instance_start, const uint32_t instantiation_num)
        : instance_start_(instance_start), instantiation_num_(instantiation_num) {}
    size_t GetInstanceNum() const { return instantiation_num_; }
    size_t GetInstanceStart() const { return instance_start_; }
    void SetInstanceStart(const uint32_t s) { instance_start_ = s; }
    void SetInstantiationNum(const uint32_t n) { instantiation_num_ = n; }

private:
    uint32_t instance_start_ = 0, instantiation_num_ = 0;
};

// Shared by the context classes: the case's tensors (one entry per instance), descriptors and
// attributes; ir_inputs/ir_outputs map IR parameters onto instances (empty: one instance each).
struct ContextCore {
    std::vector<StorageShape> input_shapes, output_shapes;
    std::vector<Tensor> input_tensors;
    std::vector<CompileTimeTensorDesc> input_descs, output_descs;
    std::vector<bool> input_present;
    std::vector<AnchorInstanceInfo> ir_inputs, ir_outputs;
    RuntimeAttrs attrs;
    std::string node_name = "kernelwright", node_type;
    const StorageShape* in_shape(size_t i) const {
        return i < input_shapes.size() && input_present[i] ? &input_shapes[i] : nullptr;
    }
    size_t ir_input_count() const { return ir_inputs.empty() ? input_shapes.size() : ir_inputs.size(); }
    size_t ir_output_count() const { return ir_outputs.empty() ? output_shapes.size() : ir_outputs.size(); }
    const AnchorInstanceInfo* ir_input(size_t ir) const {
        if (ir_inputs.empty() && ir < input_shapes.size()) {
            static thread_local AnchorInstanceInfo one;
            one = AnchorInstanceInfo(uint32_t(ir), input_present[ir] ? 1 : 0);
            return &one;
        }
        return ir < ir_inputs.size() ? &ir_inputs[ir] : nullptr;
    }
    const AnchorInstanceInfo* ir_output(size_t ir) const {
        if (ir_outputs.empty() && ir < output_shapes.size()) {
            static thread_local AnchorInstanceInfo one;
            one = AnchorInstanceInfo(uint32_t(ir), 1);
            return &one;
        }
        return ir < ir_outputs.size() ? &ir_outputs[ir] : nullptr;
    }
    // the instance index of the rel-th tensor of IR input `ir`, or -1 (absent, past the list's end)
    int64_t in_instance(size_t ir, size_t rel) const {
        const AnchorInstanceInfo* a = ir_input(ir);
        if (!a || rel >= a->GetInstanceNum()) return -1;
        size_t i = a->GetInstanceStart() + rel;
        return i < input_shapes.size() && input_present[i] ? int64_t(i) : -1;
    }
    const StorageShape* ir_shape(size_t ir, size_t rel) const {
        int64_t i = in_instance(ir, rel);
        return i < 0 ? nullptr : &input_shapes[size_t(i)];
    }
    const Tensor* ir_tensor(size_t ir, size_t rel) const {
        int64_t i = in_instance(ir, rel);
        return i < 0 ? nullptr : &input_tensors[size_t(i)];
    }
    const CompileTimeTensorDesc* ir_desc(size_t ir, size_t rel) const {
        int64_t i = in_instance(ir, rel);
        return i < 0 ? nullptr : &input_descs[size_t(i)];
    }
};

class ComputeNodeInfo {
public:
    const char* GetNodeType() const { return core_->node_type.c_str(); }
    const char* GetNodeName() const { return core_->node_name.c_str(); }
    size_t GetIrInputsNum() const { return core_->ir_input_count(); }
    size_t GetIrOutputsNum() const { return core_->ir_output_count(); }
    size_t GetInputsNum() const { return core_->input_descs.size(); }
    size_t GetOutputsNum() const { return core_->output_descs.size(); }
    const AnchorInstanceInfo* GetInputInstanceInfo(const size_t ir_index) const { return core_->ir_input(ir_index); }
    const AnchorInstanceInfo* GetOutputInstanceInfo(const size_t ir_index) const { return core_->ir_output(ir_index); }
    const CompileTimeTensorDesc* GetInputTdInfo(const size_t index) const {
        return index < core_->input_descs.size() ? &core_->input_descs[index] : nullptr;
    }
    const CompileTimeTensorDesc* GetOutputTdInfo(const size_t index) const {
        return index < core_->output_descs.size() ? &core_->output_descs[index] : nullptr;
    }
    const RuntimeAttrs* GetAttrs() const { return &core_->attrs; }

    const ContextCore* core_ = nullptr;
};

}  // namespace gert
