#ifndef ADD_CUSTOM_TILING_H
#define ADD_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(AddCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, unitsPerCore);  // 32-byte units every core gets
TILING_DATA_FIELD_DEF(uint32_t, extraUnits);    // the first extraUnits cores get one more
TILING_DATA_FIELD_DEF(uint32_t, tileLength);    // elements per tile, a whole number of units
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(AddCustom, AddCustomTilingData)
}  // namespace optiling
#endif  // ADD_CUSTOM_TILING_H
