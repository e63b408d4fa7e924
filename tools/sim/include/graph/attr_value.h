// Host-side stand-in. The CANN graph headers bring these std names into the global namespace,
// and op_host code written against CANN relies on that (e.g. unqualified `vector<int64_t>`).
#pragma once
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>
#include "graph/types.h"

using std::make_shared;
using std::map;
using std::pair;
using std::string;
using std::to_string;
using std::unique_ptr;
using std::vector;
