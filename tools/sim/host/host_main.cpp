// The host side of an msopgen operator, run on the CPU: `describe` prints the registered op
// definitions and tiling-data layouts as JSON; `tiling MANIFEST [EARLIER ...]` builds a TilingContext
// for one case (shapes, dtypes, attributes, SoC; tiling_case.cpp), runs InferShape/InferDataType and
// TilingFunc, and prints blockDim, tiling key, tiling data and workspace sizes as JSON, with what
// the same case gives when the process already served other calls ("calls").
#include <sys/wait.h>
#include <unistd.h>
#include <cstdio>
#include <memory>
#include "graph/utils/type_utils.h"
#include "register/op_def.h"
#include "register/tilingdata_base.h"
#include "tiling_case.h"

namespace {
using kwhost::json_quote;
std::string q(const std::string& s) { return json_quote(s); }

std::string param_json(const ops::OpParamDef& p) {
    static const char* kinds[] = {"ignore", "optional", "required", "dynamic", "virtual"};
    std::string dts, fmts;
    for (auto d : p.dtypes_) dts += (dts.empty() ? "" : ",") + q(ge::TypeUtils::DataTypeToSerialString(d));
    for (auto f : p.formats_) fmts += (fmts.empty() ? "" : ",") + q(ge::TypeUtils::FormatToSerialString(f));
    return "{\"name\":" + q(p.name_) + ",\"param_type\":" + q(kinds[int(p.param_type_) % 5]) + ",\"dtypes\":[" + dts +
           "],\"formats\":[" + fmts + "],\"value_depend\":" + (p.value_depend_ != ops::IGNORE ? "true" : "false") +
           ",\"scalar\":" + (p.scalar_ ? "true" : "false") + ",\"follow\":" + q(p.follow_) +
           ",\"shape_depend_on_compute\":" + (p.shape_depend_ ? "true" : "false") + "}";
}

std::string tiling_fields_json(const optiling::TilingDef& t) {
    std::string s;
    for (const auto& f : t.GetFieldInfo()) {
        s += std::string(s.empty() ? "" : ",") + "{\"name\":" + q(f.name) + ",\"ctype\":" + q(f.dtype) +
             ",\"offset\":" + std::to_string(f.offset) + ",\"elem_size\":" + std::to_string(f.elem_size) +
             ",\"count\":" + std::to_string(f.count) + ",\"struct_type\":" + q(f.struct_type) +
             ",\"struct_size\":" + std::to_string(f.struct_size);
        if (f.nested) s += ",\"fields\":[" + tiling_fields_json(*f.nested) + "]";
        s += "}";
    }
    return s;
}

int describe() {
    std::string ops_json, cls_json;
    for (auto& e : kwhost::op_defs()) {
        ops::OpDef d = e.make();
        std::string ins, outs, attrs, cfgs;
        for (auto& p : d.inputs_) ins += (ins.empty() ? "" : ",") + param_json(p);
        for (auto& p : d.outputs_) outs += (outs.empty() ? "" : ",") + param_json(p);
        for (auto& a : d.attrs_)
            attrs += std::string(attrs.empty() ? "" : ",") + "{\"name\":" + q(a.name_) + ",\"type\":" + q(a.kind_) +
                     ",\"required\":" + (a.required_ ? "true" : "false") + ",\"default\":" + q(a.def_) + "}";
        for (auto& c : d.aicore_.configs_) cfgs += (cfgs.empty() ? "" : ",") + q(c.first);
        kwhost::ImplEntry& impl = kwhost::impl_for(e.type);
        ops_json += std::string(ops_json.empty() ? "" : ",") + "{\"type\":" + q(e.type) + ",\"inputs\":[" + ins +
                    "],\"outputs\":[" + outs + "],\"attrs\":[" + attrs + "],\"configs\":[" + cfgs +
                    "],\"has_tiling\":" + ((d.aicore_.tiling_ || impl.tiling) ? "true" : "false") +
                    ",\"has_infer_shape\":" + ((d.infer_shape_ || impl.infer_shape) ? "true" : "false") +
                    ",\"has_infer_dtype\":" + ((d.infer_dtype_ || impl.infer_dtype) ? "true" : "false") + "}";
    }
    for (auto& c : kwhost::tiling_classes()) {
        auto t = c.make();
        cls_json += std::string(cls_json.empty() ? "" : ",") + "{\"op_type\":" + q(c.op_type) + ",\"class\":" + q(c.class_name) +
                    ",\"size\":" + std::to_string(t->GetDataSize()) + ",\"fields\":[" + tiling_fields_json(*t) + "]}";
    }
    std::printf("{\"ops\":[%s],\"tiling_classes\":[%s]}\n", ops_json.c_str(), cls_json.c_str());
    return 0;
}

// A host keeps its statics from one call of an operator to the next. The case is tiled as the
// process's first call (what it prints) and, in a forked copy, after the `earlier` cases and twice in
// a row; a TilingFunc whose result changes with that history keeps state across calls.
std::string calls_in_one_process(const kwhost::HostCase& c, const std::vector<std::string>& earlier) {
    int fds[2];
    if (pipe(fds) != 0) return "";
    std::fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        for (const std::string& m : earlier) {
            try {
                kwhost::run_case(kwhost::parse_case(m));
            } catch (const kwhost::HostFailure&) {  // an earlier case this operator rejects still ran its code
            }
        }
        std::string out;
        for (int i = 0; i < 2; ++i) {
            try {
                out += kwhost::run_case(c) + "\n";
            } catch (const kwhost::HostFailure& f) {
                out += "{\"status\":" + q(f.status) + ",\"message\":" + q(f.message) + "}\n";
            }
        }
        ssize_t w = write(fds[1], out.data(), out.size());
        _exit(w == ssize_t(out.size()) ? 0 : 1);
    }
    close(fds[1]);
    std::string got;
    char buf[4096];
    for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) got.append(buf, size_t(n));
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return "{\"kind\":\"crash\",\"detail\":" + q(WIFSIGNALED(status) ? "signal " + std::to_string(WTERMSIG(status))
                                                                       : "exit " + std::to_string(WEXITSTATUS(status))) + "}";
    size_t nl = got.find('\n');
    std::string after_earlier = got.substr(0, nl), again = nl == std::string::npos ? "" : got.substr(nl + 1);
    if (!again.empty() && again.back() == '\n') again.pop_back();
    return "{\"after_earlier\":" + after_earlier + ",\"again\":" + again + "}";
}

// tiling MANIFEST [EARLIER_MANIFEST ...]
int tiling(const char* manifest_path, const std::vector<std::string>& earlier) {
    try {
        kwhost::HostCase c = kwhost::parse_case(manifest_path);
        std::string calls = calls_in_one_process(c, earlier);
        std::string first = kwhost::run_case(c);
        first.pop_back();  // the closing brace: the other calls go in as one more field
        // on a line of its own: op_host code prints logs without a newline (GeGluGradV2's OP_LOGD)
        std::printf("\n%s,\"calls\":%s}\n", first.c_str(), calls.empty() ? "null" : calls.c_str());
    } catch (const kwhost::HostFailure& f) {
        std::printf("\n{\"status\":%s,\"message\":%s}\n", q(f.status).c_str(), q(f.message).c_str());
    }
    return 0;
}
}  // namespace

int main(int argc, char** argv) {
    if (argc >= 2 && std::string(argv[1]) == "describe") return describe();
    if (argc >= 3 && std::string(argv[1]) == "tiling") return tiling(argv[2], std::vector<std::string>(argv + 3, argv + argc));
    std::fprintf(stderr, "usage: %s describe | tiling MANIFEST [EARLIER_MANIFEST ...]\n", argv[0]);
    return 64;
}
