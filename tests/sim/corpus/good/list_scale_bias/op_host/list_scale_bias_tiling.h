#ifndef LIST_SCALE_BIAS_TILING_H
#define LIST_SCALE_BIAS_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(ListScaleBiasTiling)
TILING_DATA_FIELD_DEF(uint32_t, tensorCount);  // tensors in the list x (and y)
TILING_DATA_FIELD_DEF(uint32_t, tileLength);   // elements per UB tile
TILING_DATA_FIELD_DEF(float, scale);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(ListScaleBias, ListScaleBiasTiling)
}  // namespace optiling
#endif
