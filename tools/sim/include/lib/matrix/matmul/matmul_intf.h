// Later CANN releases keep the Matmul API under lib/matrix/matmul; see kw/matmul.h.
#pragma once
#include "kernel_operator.h"
#include "kw/matmul.h"
