// kernelwright: CPU emulation of the AscendC kernel API (CANN 8.x interface).
// Kernels include this header exactly as they include CANN's; see tools/sim/README.md.
#pragma once
#include "kw/base.h"
#include "kw/runtime.h"
#include "kw/tensor.h"
#include "kw/sync.h"
#include "kw/pipe.h"
#include "kw/data_copy.h"
#if __has_include("kw/cube.h")
#include "kw/cube.h"
#endif
#include "kw/vec_core.h"
#include "kw/vec_engine.h"
#include "kw/vec_elementwise.h"
#include "kw/vec_cast.h"
#if __has_include("kw/vec_cmpsel.h")
#include "kw/vec_cmpsel.h"
#include "kw/vec_select.h"
#endif
#if __has_include("kw/vec_reduce.h")
#include "kw/vec_reduce.h"
#endif
#if __has_include("kw/vec_misc.h")
#include "kw/vec_misc.h"
#endif
#if __has_include("kw/highlevel.h")
#include "kw/highlevel.h"
#endif
#include "kw/proposal_v200.h"
#include "kw/intrinsics.h"
#include "kw/cce_raw.h"
#include "kw/vec_transdata.h"
#include "kw/cce_va.h"
#include "kw/utils.h"
#include "kw/tensor_ops.h"
#include "kw/list_tensor.h"
#include "kw/launch.h"
