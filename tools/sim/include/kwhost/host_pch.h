// Everything an op_host source can include from the host stand-ins, precompiled once per compiler.
#pragma once
#include "graph/types.h"
#include "graph/utils/type_utils.h"
#include "register/op_def_registry.h"
#include "register/tilingdata_base.h"
#include "tiling/platform/platform_ascendc.h"
#include "tiling/tiling_api.h"
