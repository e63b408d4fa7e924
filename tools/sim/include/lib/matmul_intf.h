// CANN include path of the Matmul high-level API; see kw/matmul.h.
#pragma once
#include "kernel_operator.h"
#include "kw/matmul.h"
