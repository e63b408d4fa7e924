#ifndef SIGMOID_CUSTOM_TILING_H
#define SIGMOID_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(SigmoidTiling)
TILING_DATA_FIELD_DEF(uint64_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, tilesPerCore);  // whole tiles every core gets
TILING_DATA_FIELD_DEF(uint32_t, extraTiles);    // the first extraTiles cores get one more
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(SigmoidCustom, SigmoidTiling)
}  // namespace optiling
#endif
