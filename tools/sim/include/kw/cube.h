// Cube-unit instructions (CANN 8.x interface): DataCopy ND->NZ into L1, LoadData /
// LoadDataWithTranspose into L0A/L0B, InitConstValue, Mmad, Fixpipe and the bias-table copy.
#pragma once
#include "kw/cube_mmad.h"
