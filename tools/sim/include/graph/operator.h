// Host-side stand-in (namespace ge): the graph Operator an op's check-support / op-select-format
// callbacks receive (OpAICoreDef::SetCheckSupport). Graph compilation calls those; single-op runs
// never do, so here they only need to compile: descriptions are empty and GetAttr finds nothing.
#pragma once
#include <string>
#include <vector>
#include "graph/types.h"

namespace ge {
class TensorDesc {
public:
    TensorDesc() = default;
    explicit TensorDesc(Shape shape, Format format = FORMAT_ND, DataType dt = DT_FLOAT) : shape_(shape), format_(format), dtype_(dt) {}
    Shape GetShape() const { return shape_; }
    void SetShape(const Shape& s) { shape_ = s; }
    Shape GetOriginShape() const { return shape_; }
    Format GetFormat() const { return format_; }
    Format GetOriginFormat() const { return format_; }
    DataType GetDataType() const { return dtype_; }
    void SetDataType(DataType dt) { dtype_ = dt; }
    void SetFormat(Format f) { format_ = f; }

private:
    Shape shape_;
    Format format_ = FORMAT_ND;
    DataType dtype_ = DT_FLOAT;
};

class Operator {
public:
    Operator() = default;
    explicit Operator(const char* type) : type_(type ? type : "") {}
    TensorDesc GetInputDescByName(const char*) const { return TensorDesc(); }
    TensorDesc GetOutputDescByName(const char*) const { return TensorDesc(); }
    TensorDesc GetInputDesc(uint32_t) const { return TensorDesc(); }
    TensorDesc GetOutputDesc(uint32_t) const { return TensorDesc(); }
    size_t GetInputsSize() const { return 0; }
    size_t GetOutputsSize() const { return 0; }
    graphStatus GetName(AscendString& name) const { name = AscendString(type_.c_str()); return GRAPH_SUCCESS; }
    graphStatus GetOpType(AscendString& type) const { type = AscendString(type_.c_str()); return GRAPH_SUCCESS; }
    template <class T> graphStatus GetAttr(const char*, T&) const { return GRAPH_FAILED; }
    template <class T> graphStatus GetAttr(const std::string&, T&) const { return GRAPH_FAILED; }

private:
    std::string type_;
};
}  // namespace ge
