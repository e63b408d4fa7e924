// Registries filled by the static initialisers of the user's op_host sources.
#include "kwhost/registry.h"
#include "graph/utils/type_utils.h"
#include "register/op_def.h"
#include "register/tilingdata_base.h"
#include "tiling/platform/platform_ascendc.h"

namespace kwhost {
std::vector<TilingClassEntry>& tiling_classes() {
    static std::vector<TilingClassEntry> v;
    return v;
}
std::vector<OpEntry>& op_defs() {
    static std::vector<OpEntry> v;
    return v;
}
std::vector<ImplEntry>& impls() {
    static std::vector<ImplEntry> v;
    return v;
}
ImplEntry& impl_for(const std::string& type) {
    for (auto& e : impls())
        if (e.type == type) return e;
    impls().push_back({type});
    return impls().back();
}
fe::PlatFormInfos& current_platform() {
    static fe::PlatFormInfos p;
    return p;
}
}  // namespace kwhost

namespace platform_ascendc {
fe::PlatFormInfos* kw_current_platform() { return &kwhost::current_platform(); }
}  // namespace platform_ascendc

namespace ge {
static const char* kDtypeNames[] = {"DT_FLOAT", "DT_FLOAT16", "DT_INT8", "DT_INT32", "DT_UINT8", "DT_RESERVED5", "DT_INT16", "DT_UINT16",
                                    "DT_UINT32", "DT_INT64", "DT_UINT64", "DT_DOUBLE", "DT_BOOL", "DT_STRING", "DT_DUAL_SUB_INT8",
                                    "DT_DUAL_SUB_UINT8", "DT_COMPLEX64", "DT_COMPLEX128", "DT_QINT8", "DT_QINT16", "DT_QINT32",
                                    "DT_QUINT8", "DT_QUINT16", "DT_RESOURCE", "DT_STRING_REF", "DT_DUAL", "DT_VARIANT", "DT_BF16",
                                    "DT_UNDEFINED", "DT_INT4", "DT_UINT1", "DT_INT2", "DT_UINT2", "DT_COMPLEX32", "DT_HIFLOAT8",
                                    "DT_FLOAT8_E5M2", "DT_FLOAT8_E4M3FN", "DT_FLOAT8_E8M0"};
std::string TypeUtils::DataTypeToSerialString(const DataType t) {
    int i = static_cast<int>(t);
    return i >= 0 && i < int(sizeof(kDtypeNames) / sizeof(*kDtypeNames)) ? kDtypeNames[i] : "DT_UNDEFINED";
}
DataType TypeUtils::SerialStringToDataType(const std::string& s) {
    for (int i = 0; i < int(sizeof(kDtypeNames) / sizeof(*kDtypeNames)); ++i)
        if (s == kDtypeNames[i]) return static_cast<DataType>(i);
    return DT_UNDEFINED;
}
std::string TypeUtils::FormatToSerialString(const Format f) {
    switch (f) {
        case FORMAT_NCHW: return "NCHW";
        case FORMAT_NHWC: return "NHWC";
        case FORMAT_ND: return "ND";
        case FORMAT_NC1HWC0: return "NC1HWC0";
        case FORMAT_FRACTAL_Z: return "FRACTAL_Z";
        case FORMAT_FRACTAL_NZ: return "FRACTAL_NZ";
        default: return "FORMAT_" + std::to_string(int(f));
    }
}
}  // namespace ge
