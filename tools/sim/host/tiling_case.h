// One tiling case of an msopgen operator on the host (tiling_case.cpp), for host_main.cpp.
#pragma once
#include <memory>
#include <string>
#include <vector>
#include "exe_graph/runtime/tiling_context.h"

namespace kwhost {
// A failure the runner reports as {"status": status, "message": message}.
struct HostFailure {
    std::string status, message;
};

// A parsed tiling manifest: the operator and the context InferShape and TilingFunc see.
struct HostCase {
    std::string op;
    gert::ContextCore core;
    std::vector<std::shared_ptr<std::vector<uint8_t>>> datas;  // input data TilingFunc may read
};

std::string json_quote(const std::string& s);  // a JSON string literal

HostCase parse_case(const std::string& manifest_path);  // throws HostFailure
// InferDataType, InferShape and TilingFunc on one case, in this process: one JSON object. Throws HostFailure.
std::string run_case(const HostCase& c);
}  // namespace kwhost
