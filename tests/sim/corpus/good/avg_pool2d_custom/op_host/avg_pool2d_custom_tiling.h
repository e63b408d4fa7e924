#ifndef AVG_POOL2D_CUSTOM_TILING_H
#define AVG_POOL2D_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(AvgPool2dTiling)
TILING_DATA_FIELD_DEF(uint32_t, height);
TILING_DATA_FIELD_DEF(uint32_t, width);
TILING_DATA_FIELD_DEF(uint32_t, channels);
TILING_DATA_FIELD_DEF(uint32_t, outHeight);
TILING_DATA_FIELD_DEF(uint32_t, outWidth);
TILING_DATA_FIELD_DEF_ARR(uint32_t, 2, window);
TILING_DATA_FIELD_DEF_ARR(uint32_t, 2, stride);
TILING_DATA_FIELD_DEF(uint32_t, rowsPerCore);
TILING_DATA_FIELD_DEF(uint32_t, extraRows);
TILING_DATA_FIELD_DEF(float, invArea);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(AvgPool2dCustom, AvgPool2dTiling)
}  // namespace optiling
#endif
