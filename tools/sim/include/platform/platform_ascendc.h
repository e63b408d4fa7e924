#pragma once
#include "tiling/platform/platform_ascendc.h"
