// Host-side stand-in of the operator prototype API (namespace ops): what an op_host file
// declares about its inputs, outputs, attributes and AI Core configuration.
#pragma once
// The standard headers CANN's op_def.h pulls in (directly or through the graph headers);
// op_host sources use them without including them.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>
#include "graph/attr_value.h"
#include "graph/operator.h"
#include "graph/types.h"
#include "kwhost/gert.h"

using std::function;
using std::shared_ptr;

namespace optiling {
using OP_CHECK_FUNC = ge::graphStatus (*)(const ge::Operator&, ge::AscendString&);
using PARAM_GENERALIZE_FUNC = ge::graphStatus (*)(const void*, const void*, void*);
}  // namespace optiling

namespace ops {
enum Option { IGNORE = 0, OPTIONAL = 1, REQUIRED = 2, DYNAMIC = 3, VIRTUAL = 4 };
enum class FormatCheckOption : uint32_t { DEFAULT = 0, STRICT = 1, MAX };
enum class DependScope : uint32_t { ALL = 0, TILING = 1, INVALID_SCOPE };
enum class FollowType : uint32_t { ALL = 0, DTYPE = 1, FORMAT = 2, SHAPE = 3, INVALID_TYPE };
enum class CommentSection : uint32_t { CATEGORY = 0, BRIEF = 1, CONSTRAINTS = 2, RESTRICTIONS = 3, SEE = 4, THIRDPARTYFWKCOMPAT = 5, SECTION_MAX };
struct ScalarVar {
    ScalarVar() = default;
    template <class T> ScalarVar(T) {}
};

class OpParamDef {
public:
    explicit OpParamDef(const char* name) : name_(name) {}
    OpParamDef& ParamType(Option param_type) { param_type_ = param_type; return *this; }
    OpParamDef& DataType(std::vector<ge::DataType> types) { dtypes_ = std::move(types); return *this; }
    OpParamDef& DataTypeList(std::vector<ge::DataType> types) { dtypes_ = std::move(types); dtype_list_ = true; return *this; }
    OpParamDef& Format(std::vector<ge::Format> formats) { formats_ = std::move(formats); return *this; }
    OpParamDef& FormatList(std::vector<ge::Format> formats) { formats_ = std::move(formats); format_list_ = true; return *this; }
    OpParamDef& DataTypeForBinQuery(std::vector<ge::DataType>) { return *this; }
    OpParamDef& FormatForBinQuery(std::vector<ge::Format>) { return *this; }
    OpParamDef& UnknownShapeFormat(std::vector<ge::Format>) { return *this; }
    OpParamDef& ValueDepend(Option v) { value_depend_ = v; return *this; }
    OpParamDef& ValueDepend(Option v, DependScope) { value_depend_ = v; return *this; }
    OpParamDef& IgnoreContiguous(void) { return *this; }
    OpParamDef& AutoContiguous() { return *this; }
    OpParamDef& Scalar() { scalar_ = true; return *this; }
    OpParamDef& ScalarList() { scalar_ = true; return *this; }
    OpParamDef& To(const ge::DataType) { return *this; }
    OpParamDef& To(const char*) { return *this; }
    OpParamDef& Version(uint32_t) { return *this; }
    OpParamDef& InitValue(uint64_t v) { init_value_ = int64_t(v); has_init_ = true; return *this; }
    OpParamDef& InitValue(const ScalarVar&) { has_init_ = true; return *this; }
    OpParamDef& InitValue(const std::vector<ScalarVar>&) { has_init_ = true; return *this; }
    OpParamDef& OutputShapeDependOnCompute() { shape_depend_ = true; return *this; }
    OpParamDef& Follow(const char* p) { follow_ = p; return *this; }
    OpParamDef& Follow(const char* p, FollowType) { follow_ = p; return *this; }
    OpParamDef& Comment(const char*) { return *this; }

    std::string name_;
    Option param_type_ = REQUIRED;
    std::vector<ge::DataType> dtypes_;
    std::vector<ge::Format> formats_;
    bool dtype_list_ = false, format_list_ = false, scalar_ = false, has_init_ = false, shape_depend_ = false;
    Option value_depend_ = IGNORE;
    int64_t init_value_ = 0;
    std::string follow_;
};

class OpAttrDef {
public:
    explicit OpAttrDef(const char* name) : name_(name) {}
    OpAttrDef& AttrType(Option attr_type) { required_ = attr_type == REQUIRED; return *this; }
    OpAttrDef& Bool(void) { return kind("bool"); }
    OpAttrDef& Bool(bool v) { def_ = v ? "true" : "false"; return kind("bool"); }
    OpAttrDef& Float(void) { return kind("float"); }
    OpAttrDef& Float(float v) { def_ = std::to_string(v); return kind("float"); }
    OpAttrDef& Int(void) { return kind("int"); }
    OpAttrDef& Int(int64_t v) { def_ = std::to_string(v); return kind("int"); }
    OpAttrDef& String(void) { return kind("str"); }
    OpAttrDef& String(const char* v) { def_ = v ? v : ""; return kind("str"); }
    OpAttrDef& ListBool(void) { return kind("list_bool"); }
    OpAttrDef& ListBool(std::vector<bool> v) { def_ = join(v); return kind("list_bool"); }
    OpAttrDef& ListFloat(void) { return kind("list_float"); }
    OpAttrDef& ListFloat(std::vector<float> v) { def_ = join(v); return kind("list_float"); }
    OpAttrDef& ListInt(void) { return kind("list_int"); }
    OpAttrDef& ListInt(std::vector<int64_t> v) { def_ = join(v); return kind("list_int"); }
    OpAttrDef& ListListInt(void) { return kind("list_list_int"); }
    OpAttrDef& ListListInt(std::vector<std::vector<int64_t>>) { return kind("list_list_int"); }
    OpAttrDef& Version(uint32_t) { return *this; }
    OpAttrDef& Comment(const char*) { return *this; }
    bool IsRequired(void) { return required_; }

    std::string name_, kind_ = "int", def_;
    bool required_ = false;

private:
    OpAttrDef& kind(const char* k) { kind_ = k; return *this; }
    template <class T> static std::string join(const std::vector<T>& v) {
        std::string s;
        for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
        return s;
    }
};

class OpAICoreConfig {
public:
    OpParamDef& Input(const char* name) { inputs_.emplace_back(name); return inputs_.back(); }
    OpParamDef& Output(const char* name) { outputs_.emplace_back(name); return outputs_.back(); }
    OpAICoreConfig& DynamicCompileStaticFlag(bool) { return *this; }
    OpAICoreConfig& DynamicFormatFlag(bool) { return *this; }
    OpAICoreConfig& DynamicRankSupportFlag(bool) { return *this; }
    OpAICoreConfig& DynamicShapeSupportFlag(bool) { return *this; }
    OpAICoreConfig& NeedCheckSupportFlag(bool) { return *this; }
    OpAICoreConfig& PrecisionReduceFlag(bool) { return *this; }
    OpAICoreConfig& ExtendCfgInfo(const char*, const char*) { return *this; }
    std::vector<OpParamDef> inputs_, outputs_;
};

class OpAICoreDef {
public:
    OpAICoreDef& SetTiling(gert::OpImplRegisterV2::TilingKernelFunc func) { tiling_ = func; return *this; }
    OpAICoreDef& SetCheckSupport(optiling::OP_CHECK_FUNC) { return *this; }
    OpAICoreDef& SetOpSelectFormat(optiling::OP_CHECK_FUNC) { return *this; }
    OpAICoreDef& SetOpSupportInfo(optiling::OP_CHECK_FUNC) { return *this; }
    OpAICoreDef& SetOpSpecInfo(optiling::OP_CHECK_FUNC) { return *this; }
    OpAICoreDef& SetParamGeneralize(optiling::PARAM_GENERALIZE_FUNC) { return *this; }
    gert::OpImplRegisterV2::TilingKernelFunc& GetTiling(void) { return tiling_; }
    OpAICoreDef& AddConfig(const char* soc) { configs_[soc] = OpAICoreConfig(); return *this; }
    OpAICoreDef& AddConfig(const char* soc, OpAICoreConfig& cfg) { configs_[soc] = cfg; return *this; }

    gert::OpImplRegisterV2::TilingKernelFunc tiling_ = nullptr;
    std::map<std::string, OpAICoreConfig> configs_;
};

class OpMC2Def {
public:
    OpMC2Def& HcclGroup(const char*) { return *this; }
    OpMC2Def& HcclGroup(std::vector<const char*>) { return *this; }
};

class OpDef {
public:
    explicit OpDef(const char* type) : type_(type) {}
    OpParamDef& Input(const char* name) { return param(inputs_, name); }
    OpParamDef& Output(const char* name) { return param(outputs_, name); }
    OpAttrDef& Attr(const char* name) {
        for (auto& a : attrs_)
            if (a.name_ == name) return a;
        attrs_.emplace_back(name);
        return attrs_.back();
    }
    OpDef& Comment(CommentSection, const char*) { return *this; }
    OpDef& SetInferShape(gert::OpImplRegisterV2::InferShapeKernelFunc f) { infer_shape_ = f; return *this; }
    OpDef& SetInferShapeRange(gert::OpImplRegisterV2::InferShapeRangeKernelFunc) { return *this; }
    OpDef& SetInferDataType(gert::OpImplRegisterV2::InferDataTypeKernelFunc f) { infer_dtype_ = f; return *this; }
    gert::OpImplRegisterV2::InferShapeKernelFunc& GetInferShape(void) { return infer_shape_; }
    gert::OpImplRegisterV2::InferDataTypeKernelFunc& GetInferDataType(void) { return infer_dtype_; }
    OpAICoreDef& AICore(void) { return aicore_; }
    OpMC2Def& MC2(void) { return mc2_; }
    OpDef& FormatMatchMode(FormatCheckOption) { return *this; }
    OpDef& EnableFallBack(void) { return *this; }

    std::string type_;
    std::vector<OpParamDef> inputs_, outputs_;
    std::vector<OpAttrDef> attrs_;
    OpAICoreDef aicore_;
    OpMC2Def mc2_;
    gert::OpImplRegisterV2::InferShapeKernelFunc infer_shape_ = nullptr;
    gert::OpImplRegisterV2::InferDataTypeKernelFunc infer_dtype_ = nullptr;

private:
    static OpParamDef& param(std::vector<OpParamDef>& v, const char* name) {
        for (auto& p : v)
            if (p.name_ == name) return p;
        v.emplace_back(name);
        return v.back();
    }
};
}  // namespace ops
