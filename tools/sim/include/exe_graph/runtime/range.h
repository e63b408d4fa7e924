#pragma once
#include "kwhost/gert.h"
