#ifndef SCALE_SHIFT_CUSTOM_TILING_H
#define SCALE_SHIFT_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(ScaleShiftTiling)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, blockLength);  // a multiple of tileLength; the last core takes the rest
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
TILING_DATA_FIELD_DEF(float, scale);
TILING_DATA_FIELD_DEF(float, shift);
TILING_DATA_FIELD_DEF(uint32_t, relu);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(ScaleShiftCustom, ScaleShiftTiling)
}  // namespace optiling
#endif
