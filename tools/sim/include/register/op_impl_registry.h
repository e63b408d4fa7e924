// Host-side stand-in: IMPL_OP(Op).Tiling(f).InferShape(g) registrations.
#pragma once
#include <cstdint>
#include <initializer_list>
#include "kwhost/registry.h"

namespace gert {
enum TilingPlacement { TILING_ON_HOST = 0, TILING_ON_AICPU = 1 };
}  // namespace gert

namespace kwhost {
class ImplRegistrar {
public:
    explicit ImplRegistrar(const char* type) : type_(type) {}
    ImplRegistrar& Tiling(gert::OpImplRegisterV2::TilingKernelFunc f) { impl_for(type_).tiling = f; return *this; }
    template <class... A> ImplRegistrar& Tiling(gert::OpImplRegisterV2::TilingKernelFunc f, A...) { return Tiling(f); }
    ImplRegistrar& InferShape(gert::OpImplRegisterV2::InferShapeKernelFunc f) { impl_for(type_).infer_shape = f; return *this; }
    ImplRegistrar& InferDataType(gert::OpImplRegisterV2::InferDataTypeKernelFunc f) { impl_for(type_).infer_dtype = f; return *this; }
    template <class F> ImplRegistrar& InferShapeRange(F) { return *this; }
    template <class CompileInfo, class F> ImplRegistrar& TilingParse(F parse) {
        ImplEntry& e = impl_for(type_);
        e.make_compile_info = []() -> std::shared_ptr<void> { return std::make_shared<CompileInfo>(); };
        e.tiling_parse = parse;
        return *this;
    }
    // data dependencies and placements only steer graph-mode scheduling: accepted, not modelled
    ImplRegistrar& InputsDataDependency(std::initializer_list<int32_t>) { return *this; }
    ImplRegistrar& HostInputs(std::initializer_list<int32_t>) { return *this; }
    ImplRegistrar& TilingInputsDataDependency(std::initializer_list<int32_t>) { return *this; }
    ImplRegistrar& TilingInputsDataDependency(std::initializer_list<int32_t>, std::initializer_list<gert::TilingPlacement>) {
        return *this;
    }
    ImplRegistrar& OutputShapeDependOnCompute(std::initializer_list<int32_t>) { return *this; }
    template <class... A> ImplRegistrar& PrivateAttr(A...) { return *this; }

private:
    std::string type_;
};
}  // namespace kwhost

#define KW_IMPL_CAT2(a, b) a##b
#define KW_IMPL_CAT(a, b) KW_IMPL_CAT2(a, b)
#define IMPL_OP(op_type) static ::kwhost::ImplRegistrar KW_IMPL_CAT(g_kw_impl_##op_type, __COUNTER__) = ::kwhost::ImplRegistrar(#op_type)
#define IMPL_OP_OPTILING(op_type) IMPL_OP(op_type)
#define IMPL_OP_INFERSHAPE(op_type) IMPL_OP(op_type)
