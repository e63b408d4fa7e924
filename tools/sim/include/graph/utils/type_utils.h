// Host-side stand-in: ge::TypeUtils.
#pragma once
#include <string>
#include "graph/types.h"

namespace ge {
class TypeUtils {
public:
    static bool GetDataTypeLength(const ge::DataType data_type, uint32_t& length) {
        int s = GetSizeByDataType(data_type);
        if (s <= 0) return false;
        length = uint32_t(s);
        return true;
    }
    static std::string DataTypeToSerialString(const DataType data_type);
    static std::string FormatToSerialString(const Format format);
    static DataType SerialStringToDataType(const std::string& str);
};
}  // namespace ge
