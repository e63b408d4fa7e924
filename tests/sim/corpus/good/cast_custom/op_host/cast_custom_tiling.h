#ifndef CAST_CUSTOM_TILING_H
#define CAST_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(CastCustomTiling)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, blockLength);  // a multiple of 16 elements; the last core takes the rest
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
TILING_DATA_FIELD_DEF(uint32_t, roundMode);    // AscendC::RoundMode value
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(CastCustom, CastCustomTiling)
}  // namespace optiling
#endif
