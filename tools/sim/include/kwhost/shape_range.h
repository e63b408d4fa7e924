// gert::Range<T> and InferShapeRangeContext (CANN 8.x exe_graph/runtime/range.h and
// infer_shape_range_context.h: signatures only). The emulation never calls an InferShapeRange
// function (shapes here are static), but op_host files that define one must compile: the ranges
// handed out are [shape, shape] of the case's own shapes.
#pragma once
#include <deque>

namespace gert {
template <typename T> class Range {
public:
    Range() : min_(nullptr), max_(nullptr) {}
    Range(T* min, T* max) : min_(min), max_(max) {}
    explicit Range(T* same) : min_(same), max_(same) {}
    bool operator==(const Range<T>& o) const { return min_ == o.min_ && max_ == o.max_; }
    void SetMin(T* min) { min_ = min; }
    void SetMax(T* max) { max_ = max; }
    const T* GetMin() const { return min_; }
    const T* GetMax() const { return max_; }
    T* GetMin() { return min_; }
    T* GetMax() { return max_; }

private:
    T* min_;
    T* max_;
};
using TensorRange = Range<Tensor>;

class InferShapeRangeContext : public ExtendedKernelContext {
public:
    const Range<Shape>* GetInputShapeRange(const size_t index) const { return range_of(core_.in_shape(index)); }
    const Range<Shape>* GetRequiredInputShapeRange(const size_t ir) const { return range_of(core_.ir_shape(ir, 0)); }
    const Range<Shape>* GetOptionalInputShapeRange(const size_t ir) const { return range_of(core_.ir_shape(ir, 0)); }
    const Range<Shape>* GetDynamicInputShapeRange(const size_t ir, const size_t k) const {
        return range_of(core_.ir_shape(ir, k));
    }
    Range<Shape>* GetOutputShapeRange(const size_t index) {
        return index < core_.output_shapes.size() ? range_of(&core_.output_shapes[index]) : nullptr;
    }

private:
    // each call hands out its own min/max copies (kept alive with the context)
    Range<Shape>* range_of(const StorageShape* s) const {
        if (s == nullptr) return nullptr;
        shapes_.push_back(s->GetOriginShape());
        shapes_.push_back(s->GetOriginShape());
        ranges_.emplace_back(&shapes_[shapes_.size() - 2], &shapes_.back());
        return &ranges_.back();
    }
    mutable std::deque<Shape> shapes_;
    mutable std::deque<Range<Shape>> ranges_;
};
}  // namespace gert
