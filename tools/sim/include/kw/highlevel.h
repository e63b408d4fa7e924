// High-level APIs of CANN 8.x (activation, math, normalization, reduce) on top of the basic
// instructions' checks. Tiling structs come from kernel_tiling/kernel_tiling.h as on the NPU.
#pragma once
#include "kernel_tiling/kernel_tiling.h"
#include "kw/highlevel/common.h"
#include "kw/highlevel/math.h"
#include "kw/highlevel/softmax.h"
#include "kw/highlevel/softmax_grad.h"
#include "kw/highlevel/norm.h"
#include "kw/highlevel/reduce.h"
#include "kw/highlevel/broadcast.h"
#include "kw/highlevel/select.h"
#include "kw/highlevel/reduce_pattern.h"
