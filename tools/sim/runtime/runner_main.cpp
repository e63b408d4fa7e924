// The emulator's entry point: reads a launch manifest written by kernelwright, maps the GM
// buffers, runs the kernel on every block and writes the outputs and a launch summary.
// Manifest: one directive per line, fields separated by tabs (see tools/sim/manifest.py).
#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>
#include <fstream>
#include <map>
#include <sstream>
#include "internal.h"
#include "kw/launch.h"

namespace {
using kw::rt::GmBuffer;

std::vector<std::string> split_tabs(const std::string& line) {
    std::vector<std::string> out;
    std::string cur;
    for (char c : line) {
        if (c == '\t') {
            out.push_back(cur);
            cur.clear();
        } else {
            cur += c;
        }
    }
    out.push_back(cur);
    return out;
}

// "a,b" -> {"a", "b"}; "" -> {} (a list of no tensors, a 0-d shape)
std::vector<std::string> split_on(const std::string& s, char sep) {
    std::vector<std::string> out;
    if (s.empty()) return out;
    std::string cur;
    for (char c : s) {
        if (c == sep) {
            out.push_back(cur);
            cur.clear();
        } else {
            cur += c;
        }
    }
    out.push_back(cur);
    return out;
}

[[noreturn]] void bad_manifest(const std::string& why) {
    std::fprintf(stderr, "kernelwright runner: bad manifest: %s\n", why.c_str());
    std::exit(64);
}

bool read_file(const std::string& path, uint8_t* dst, uint64_t bytes) {
    std::ifstream f(path, std::ios::binary);
    if (!f) return false;
    f.read(reinterpret_cast<char*>(dst), std::streamsize(bytes));
    return f.gcount() == std::streamsize(bytes);
}

void write_file(const std::string& path, const uint8_t* src, uint64_t bytes) {
    std::ofstream f(path, std::ios::binary);
    f.write(reinterpret_cast<const char*>(src), std::streamsize(bytes));
}

std::vector<uint8_t> from_hex(const std::string& h) {
    std::vector<uint8_t> out;
    for (size_t i = 0; i + 1 < h.size(); i += 2) out.push_back(uint8_t(std::stoul(h.substr(i, 2), nullptr, 16)));
    return out;
}
}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s MANIFEST\n", argv[0]);
        return 64;
    }
    std::ifstream in(argv[1]);
    if (!in) bad_manifest(std::string("cannot open ") + argv[1]);
    kw::rt::Config& cfg = kw::rt::config();
    std::string kernel_name, cube_library;
    uint32_t block_dim = 0, cube_ratio = 0;
    std::map<std::string, GmBuffer*> buffers;
    std::map<GmBuffer*, std::string> files;  // buffers whose contents come from a file (inputs, tiling)
    std::vector<kw::ArgValue> args;
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        auto f = split_tabs(line);
        const std::string& k = f[0];
        if (k == "soc") {
            if (f.size() < 13) bad_manifest("soc needs 12 fields");
            kw::rt::SocInfo& s = cfg.soc;
            std::snprintf(s.name, sizeof s.name, "%s", f[1].c_str());
            s.cce_aicore = std::stoi(f[2]);
            s.split_arch = f[3] == "1";
            s.aic_cores = uint32_t(std::stoul(f[4]));
            s.aiv_cores = uint32_t(std::stoul(f[5]));
            s.ub_bytes = uint32_t(std::stoul(f[6]));
            s.l1_bytes = uint32_t(std::stoul(f[7]));
            s.l0a_bytes = uint32_t(std::stoul(f[8]));
            s.l0b_bytes = uint32_t(std::stoul(f[9]));
            s.l0c_bytes = uint32_t(std::stoul(f[10]));
            s.bt_bytes = uint32_t(std::stoul(f[11]));
            s.fb_bytes = uint32_t(std::stoul(f[12]));
        } else if (k == "tiling_key") {
            cfg.tiling_key = std::stoull(f.at(1));
        } else if (k == "timeout_ms") {
            cfg.timeout_ms = std::stoi(f.at(1));
        } else if (k == "out_dir") {
            cfg.out_dir = f.at(1);
        } else if (k == "race_check") {
            cfg.race_check = f.at(1) == "1";
        } else if (k == "poison") {
            cfg.poison = f.at(1) == "1";
        } else if (k == "sample") {  // sample B,B,...: run only these blocks (sample.cpp); before the buffers
            for (const std::string& v : split_on(f.at(1), ',')) cfg.sample.push_back(uint32_t(std::stoul(v)));
        } else if (k == "trace_only") {
            cfg.trace_only = f.at(1) == "1";
        } else if (k == "trace_budget") {
            cfg.trace_budget = std::stoull(f.at(1));
        } else if (k == "kernel") {
            kernel_name = f.at(1);
        } else if (k == "block_dim") {
            block_dim = uint32_t(std::stoul(f.at(1)));
        } else if (k == "cube") {  // cube LIBRARY RATIO: the kernel compiled for the AIC, and AIVs per AIC
            cube_library = f.at(1);
            cube_ratio = uint32_t(std::stoul(f.at(2)));
        } else if (k == "buffer") {
            if (f.size() < 5) bad_manifest("buffer needs name, bytes, role, file");
            GmBuffer* b = kw::rt::gm_register(f[1], std::stoull(f[2]), f[3]);
            if (f[4].rfind("gen:", 0) == 0) {  // gen:SEED: a float32 input made on first touch (generated.cpp)
                kw::rt::generate_input(b, std::stoull(f[4].substr(4)));
            } else if (f[4] != "-") {
                if (!read_file(f[4], b->base, b->bytes)) bad_manifest("cannot read " + f[4] + " (" + f[2] + " bytes)");
            } else if (f.size() > 5 && from_hex(f[5]).size() > 0 && !kw::rt::sampled()) {  // the referee's poison: one element, repeated
                b->fill = from_hex(f[5]);
                for (uint64_t i = 0; i < b->bytes; ++i) b->base[i] = b->fill[i % b->fill.size()];
            } else if (cfg.poison && b->role != "workspace" && !kw::rt::sampled()) {  // sampled: written bytes are marked
                b->fill = {0xFF};
                std::memset(b->base, 0xFF, b->bytes);  // outputs start as garbage, as on the NPU
            }
            if (kw::rt::sampled() && !cfg.trace_only && f[4] == "-" && b->role == "out") kw::rt::poison_on_touch(b);
            buffers[f[1]] = b;
            if (f[4] != "-" && f[4].rfind("gen:", 0) != 0) files[b] = f[4];
        } else if (k == "list") {  // list NAME MEMBER,MEMBER,... DIMS;DIMS;... (dims comma-separated)
            if (f.size() < 4) bad_manifest("list needs name, members, dims");
            std::vector<GmBuffer*> members;
            std::vector<std::vector<int64_t>> dims;
            for (const std::string& m : split_on(f[2], ',')) {
                auto it = buffers.find(m);
                if (it == buffers.end()) bad_manifest("list " + f[1] + " names unknown buffer " + m);
                members.push_back(it->second);
            }
            for (const std::string& d : split_on(f[3], ';')) {
                dims.emplace_back();
                for (const std::string& v : split_on(d, ',')) dims.back().push_back(std::stoll(v));
            }
            if (members.size() == 1 && dims.empty()) dims.emplace_back();  // one 0-d tensor
            if (dims.size() != members.size()) bad_manifest("list " + f[1] + ": as many dims as members needed");
            buffers[f[1]] = kw::rt::gm_register_list(f[1], members, dims);
        } else if (k == "arg") {
            kw::ArgValue a;
            const std::string& kind = f.at(1);
            if (kind == "buffer") {
                auto it = buffers.find(f.at(2));
                if (it == buffers.end()) bad_manifest("arg refers to unknown buffer " + f.at(2));
                a.kind = kw::ArgValue::POINTER;
                a.ptr = it->second->base;
            } else if (kind == "null") {
                a.kind = kw::ArgValue::POINTER;
            } else if (kind == "int") {
                a.kind = kw::ArgValue::INTEGER;
                a.i = std::stoll(f.at(2));
            } else if (kind == "float") {
                a.kind = kw::ArgValue::FLOAT;
                a.d = std::stod(f.at(2));
            } else if (kind == "bytes") {
                a.kind = kw::ArgValue::BYTES;
                a.bytes = from_hex(f.at(2));
            } else {
                bad_manifest("unknown arg kind " + kind);
            }
            args.push_back(a);
        } else {
            bad_manifest("unknown directive " + k);
        }
    }
    if (cfg.out_dir.empty()) bad_manifest("no out_dir");
    kw::rt::bs().report_fd = open((cfg.out_dir + "/parent.jsonl").c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    // a MIX kernel with its own cube code: the copy compiled for the AIC registers itself when loaded
    if (!cube_library.empty() && !dlopen(cube_library.c_str(), RTLD_NOW | RTLD_LOCAL))
        bad_manifest("cannot load the cube-core kernel " + cube_library + ": " + dlerror());
    const kw::KernelEntry *entry = nullptr, *cube_entry = nullptr;
    std::string known;
    for (auto& e : kw::kernel_registry()) {
        if (e.cube) {
            if (kernel_name == e.name) cube_entry = &e;
            continue;
        }
        known += std::string(known.empty() ? "" : ", ") + e.name;
        if (kernel_name == e.name) entry = &e;
    }
    if (!cube_library.empty() && !cube_entry) bad_manifest("the cube-core library has no kernel named '" + kernel_name + "'");
    if (!entry) bad_manifest("no kernel named '" + kernel_name + "' (kernels in this build: " + known + ")");
    if (entry->arity != int(args.size()))
        bad_manifest("kernel '" + kernel_name + "' takes " + std::to_string(entry->arity) + " arguments, the case passes " +
                     std::to_string(args.size()));
    auto call = [&]() -> int {
        if (entry->host) {  // host code launches the kernels itself (rewritten <<<>>>); its statics persist
            kw::rt::bs().in_block = false;
            entry->call(args);
            block_dim = kw::rt::last_launch().block_dim;
            return kw::rt::last_launch().status;
        }
        if (cube_entry)
            return kw::rt::launch_mix(block_dim, cube_ratio, [&]() { entry->call(args); }, [&]() { cube_entry->call(args); });
        return kw::rt::launch(block_dim, [&]() { entry->call(args); });
    };
    // An operator is called more than once in a process, and the NPU keeps UB and L1 between calls:
    // a clean first call is followed by two more that must not change its result (carry.cpp).
    kw::rt::carry_setup();
    int status = call();
    // raw stores past a buffer's end are judged on the first call (the repeat calls reload only the buffers' bytes)
    if (!kw::rt::gm_check_canaries() && status == 0) status = 1;
    // a sampled launch is judged on its first call (the repeat calls would run the sampled blocks twice more)
    // a trace-only run is timed, not judged: no repeat calls, and no outputs to read back
    if (status == 0 && !kw::rt::sampled() && !cfg.trace_only) status = kw::rt::repeat_calls(files, call);
    for (auto& kv : cfg.trace_only ? decltype(buffers)() : buffers) {
        GmBuffer* b = kv.second;
        if (kw::rt::sampled() && (b->role == "out" || b->role == "inout" || b->role == "in"))
            kw::rt::sample_write(b, cfg.out_dir + "/out_" + kv.first + ".bin", cfg.out_dir + "/written_" + kv.first + ".txt");
        else if (b->role == "out" || b->role == "inout") write_file(cfg.out_dir + "/out_" + kv.first + ".bin", b->base, b->bytes);
    }
    const kw::rt::LaunchSummary& s = kw::rt::last_launch();
    std::string blocks;
    for (auto& st : s.block_status) blocks += std::string(blocks.empty() ? "" : ",") + "\"" + st + "\"";
    std::ofstream sum(cfg.out_dir + "/launch.json");
    sum << "{\"status\":" << status << ",\"detail\":\"" << kw::rt::json_escape(s.detail) << "\",\"block_dim\":" << block_dim
        << ",\"blocks\":[" << blocks << "]}\n";
    return 0;
}
