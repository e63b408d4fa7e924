#ifndef LEAKY_RELU_CUSTOM_TILING_H
#define LEAKY_RELU_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(LeakyReluTiling)
TILING_DATA_FIELD_DEF(uint32_t, blockLength);  // elements per core (the last core may get fewer)
TILING_DATA_FIELD_DEF(uint32_t, lastLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
TILING_DATA_FIELD_DEF(float, negativeSlope);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(LeakyReluCustom, LeakyReluTiling)
}  // namespace optiling
#endif
