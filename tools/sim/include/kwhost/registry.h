// The host runner's registry: op definitions (OP_ADD), tiling data classes
// (REGISTER_TILING_DATA_CLASS) and IMPL_OP registrations.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>
#include "kwhost/gert.h"

namespace optiling {
class TilingDef;
}
namespace ops {
class OpDef;
}

namespace kwhost {
struct TilingClassEntry {
    std::string op_type;
    std::string class_name;
    std::function<std::shared_ptr<optiling::TilingDef>()> make;
};
std::vector<TilingClassEntry>& tiling_classes();

struct OpEntry {
    std::string type;
    std::function<ops::OpDef()> make;
};
std::vector<OpEntry>& op_defs();

struct ImplEntry {
    std::string type;
    gert::OpImplRegisterV2::TilingKernelFunc tiling = nullptr;
    gert::OpImplRegisterV2::InferShapeKernelFunc infer_shape = nullptr;
    gert::OpImplRegisterV2::InferDataTypeKernelFunc infer_dtype = nullptr;
    ge::graphStatus (*tiling_parse)(gert::TilingParseContext*) = nullptr;
    std::function<std::shared_ptr<void>()> make_compile_info;
};
std::vector<ImplEntry>& impls();
ImplEntry& impl_for(const std::string& type);
}  // namespace kwhost
