#pragma once
#include "kwhost/gert.h"  // gert::TilingParseContext
