// Host-side stand-in of the tiling helpers header (platform queries and the tiling helpers of
// the high-level APIs).
#pragma once
#include "register/tilingdata_base.h"
#include "tiling/platform/platform_ascendc.h"
#if __has_include("kwhost/highlevel_tiling.h")
#include "kwhost/highlevel_tiling.h"
#endif
#if __has_include("kwhost/matmul_tiling.h")
#include "kwhost/matmul_tiling.h"
#endif
