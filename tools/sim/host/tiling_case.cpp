// One tiling case of an msopgen operator on the host: a manifest (shapes, dtypes, attributes, SoC)
// becomes a TilingContext, InferShape/InferDataType and TilingFunc run on it, and the result comes
// back as one JSON object (blockDim, tiling key, tiling data, workspace sizes, output shapes).
#include "tiling_case.h"
#include <fstream>
#include <sstream>
#include "graph/utils/type_utils.h"
#include "register/op_def.h"
#include "register/tilingdata_base.h"

namespace kwhost {
fe::PlatFormInfos& current_platform();

std::string json_quote(const std::string& s) {
    std::string o = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') o += '\\';
        if (c == '\n') { o += "\\n"; continue; }
        o += c;
    }
    return o + "\"";
}

namespace {
const auto& q = json_quote;

std::vector<std::string> split_tabs(const std::string& line) {
    std::vector<std::string> out(1);
    for (char c : line) {
        if (c == '\t') out.emplace_back();
        else out.back() += c;
    }
    return out;
}

std::vector<int64_t> parse_dims(const std::string& s) {
    std::vector<int64_t> d;
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, ','))
        if (!item.empty()) d.push_back(std::stoll(item));
    return d;
}

gert::StorageShape make_shape(const std::vector<int64_t>& dims) {
    gert::StorageShape s;
    for (int64_t d : dims) {
        s.MutableOriginShape().AppendDim(d);
        s.MutableStorageShape().AppendDim(d);
    }
    return s;
}

std::string shape_json(const gert::Shape& s) {
    std::string o = "[";
    for (size_t i = 0; i < s.GetDimNum(); ++i) o += (i ? "," : "") + std::to_string(s.GetDim(i));
    return o + "]";
}

// Instance `slot` belongs to IR parameter `ir` (lines of one parameter are consecutive).
void add_instance(std::vector<gert::AnchorInstanceInfo>& ir_params, size_t ir, size_t slot, bool present) {
    if (ir >= ir_params.size()) {
        ir_params.resize(ir + 1);
        ir_params[ir].SetInstanceStart(uint32_t(slot));
    }
    if (present) ir_params[ir].SetInstantiationNum(uint32_t(ir_params[ir].GetInstanceNum() + 1));
}
}  // namespace

HostCase parse_case(const std::string& manifest_path) {
    std::ifstream in(manifest_path);
    if (!in) throw HostFailure{"bad_manifest", "cannot open " + manifest_path};
    HostCase c;
    std::string& op = c.op;
    gert::ContextCore& core = c.core;
    auto& datas = c.datas;
    std::string line;
    fe::PlatFormInfos& plat = kwhost::current_platform();
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        auto f = split_tabs(line);
        if (f[0] == "op") {
            op = f.at(1);
        } else if (f[0] == "platform" && f.size() >= 15) {
            plat.soc_name = f[1];
            plat.short_soc = f[2];
            plat.cce_aicore = std::stoi(f[3]);
            plat.split_arch = f[4] == "1";
            plat.aic_cores = uint32_t(std::stoul(f[5]));
            plat.aiv_cores = uint32_t(std::stoul(f[6]));
            plat.vector_core_m200 = uint32_t(std::stoul(f[7]));
            plat.ub = std::stoull(f[8]);
            plat.l1 = std::stoull(f[9]);
            plat.l0a = std::stoull(f[10]);
            plat.l0b = std::stoull(f[11]);
            plat.l0c = std::stoull(f[12]);
            plat.l2 = std::stoull(f[13]);
            plat.hbm = std::stoull(f[14]);
        } else if (f[0] == "input" && f.size() >= 6) {  // input present dtype format dims datafile [ir_index]
            bool present = f[1] == "1";
            // instances of one DYNAMIC input share its IR index; an absent OPTIONAL one has none
            add_instance(core.ir_inputs, f.size() >= 7 ? std::stoul(f[6]) : core.ir_inputs.size(),
                         core.input_shapes.size(), present);
            gert::CompileTimeTensorDesc desc;
            desc.dtype_ = static_cast<ge::DataType>(std::stoi(f[2]));
            desc.format_.origin = desc.format_.storage = static_cast<ge::Format>(std::stoi(f[3]));
            gert::StorageShape shape = make_shape(parse_dims(f[4]));
            gert::Tensor t;
            t.shape_ = shape;
            t.format_ = desc.format_;
            t.dtype_ = desc.dtype_;
            if (f[5] != "-") {
                std::ifstream df(f[5], std::ios::binary);
                datas.emplace_back(new std::vector<uint8_t>((std::istreambuf_iterator<char>(df)), std::istreambuf_iterator<char>()));
                t.data_ = datas.back()->data();
                t.size_ = datas.back()->size();
            }
            core.input_present.push_back(present);
            core.input_descs.push_back(desc);
            core.input_shapes.push_back(shape);
            core.input_tensors.push_back(t);
        } else if (f[0] == "output" && f.size() >= 4) {  // output dtype format dims [ir_index]
            add_instance(core.ir_outputs, f.size() >= 5 ? std::stoul(f[4]) : core.ir_outputs.size(),
                         core.output_shapes.size(), true);
            gert::CompileTimeTensorDesc desc;
            desc.dtype_ = static_cast<ge::DataType>(std::stoi(f[1]));
            desc.format_.origin = desc.format_.storage = static_cast<ge::Format>(std::stoi(f[2]));
            core.output_descs.push_back(desc);
            core.output_shapes.push_back(make_shape(parse_dims(f[3])));
        } else if (f[0] == "attr" && f.size() >= 3) {  // attr kind value
            gert::AttrValue a;
            const std::string& k = f[1];
            const std::string v = f.size() > 2 ? f[2] : "";
            if (k == "bool") { a.kind = gert::AttrValue::BOOL; a.b = v == "1" || v == "true"; }
            else if (k == "int") { a.kind = gert::AttrValue::INT; a.i = std::stoll(v); }
            else if (k == "float") { a.kind = gert::AttrValue::FLOAT; a.f = std::stof(v); }
            else if (k == "str") { a.kind = gert::AttrValue::STR; a.s = v; }
            else if (k == "list_int") { a.kind = gert::AttrValue::LIST_INT; a.li.Assign(parse_dims(v)); }
            else if (k == "list_float") {
                a.kind = gert::AttrValue::LIST_FLOAT;
                std::stringstream ss(v);
                std::string it;
                std::vector<float> fs;
                while (std::getline(ss, it, ',')) if (!it.empty()) fs.push_back(std::stof(it));
                a.lf.Assign(fs);
            } else if (k == "list_bool") {
                a.kind = gert::AttrValue::LIST_BOOL;
                std::vector<bool> bs;
                for (int64_t x : parse_dims(v)) bs.push_back(x != 0);
                a.lb.Assign(bs);
            } else throw HostFailure{"bad_manifest", "unknown attr kind " + k};
            core.attrs.attrs_.push_back(a);
        }
    }
    return c;
}

// A local the TilingFunc never sets holds whatever the stack held, which differs from call to call on a
// host without being state (NPUKernelBench Cross saves an int64_t[128] of which it fills a few entries).
// Every call starts on the same zeroed stack below this frame, so only statics and globals tell two
// calls apart (host.state_across_calls).
__attribute__((noinline)) static void scrub_stack() {
    volatile uint8_t pad[256 * 1024];
    for (size_t i = 0; i < sizeof pad; ++i) pad[i] = 0;
}

std::string run_case(const HostCase& c) {
    const std::string& op = c.op;
    gert::ContextCore core = c.core;
    fe::PlatFormInfos& plat = kwhost::current_platform();
    ops::OpDef* def = nullptr;
    std::unique_ptr<ops::OpDef> holder;
    std::string known;
    for (auto& e : kwhost::op_defs()) {
        known += (known.empty() ? "" : ", ") + e.type;
        if (e.type == op) holder.reset(new ops::OpDef(e.make()));
    }
    def = holder.get();
    kwhost::ImplEntry& impl = kwhost::impl_for(op);
    auto tiling_fn = def && def->aicore_.tiling_ ? def->aicore_.tiling_ : impl.tiling;
    auto infer_shape = def && def->infer_shape_ ? def->infer_shape_ : impl.infer_shape;
    auto infer_dtype = def && def->infer_dtype_ ? def->infer_dtype_ : impl.infer_dtype;
    if (!def && !impl.tiling) throw HostFailure{"no_op", "no operator '" + op + "' is registered by OP_ADD or IMPL_OP (registered: " + known + ")"};
    if (!tiling_fn) throw HostFailure{"no_tiling", "operator '" + op + "' registers no tiling function (AICore().SetTiling(...))"};
    core.node_type = op;

    std::string infer_status = "skipped";
    if (infer_dtype) {
        gert::InferDataTypeContext dctx;
        dctx.core_ = core;
        infer_status = infer_dtype(&dctx) == ge::GRAPH_SUCCESS ? "ok" : "failed";
        core.output_descs = dctx.core_.output_descs;
    }
    std::string shape_status = "skipped";
    if (infer_shape) {
        gert::InferShapeContext sctx;
        sctx.core_ = core;
        shape_status = infer_shape(&sctx) == ge::GRAPH_SUCCESS ? "ok" : "failed";
        for (size_t i = 0; i < core.output_shapes.size(); ++i) {
            const gert::Shape& o = sctx.core_.output_shapes[i].GetOriginShape();
            core.output_shapes[i].MutableOriginShape() = o;
            core.output_shapes[i].MutableStorageShape() = o;
        }
    }
    gert::TilingContext ctx;
    ctx.core_ = core;
    ctx.platform_ = &plat;
    std::shared_ptr<void> compile_info;
    if (impl.tiling_parse) {  // TilingPrepare fills the compile info the tiling function reads
        compile_info = impl.make_compile_info ? impl.make_compile_info() : nullptr;
        gert::TilingParseContext pctx;
        pctx.core_ = core;
        pctx.compile_info_ = compile_info.get();
        pctx.platform_ = &plat;
        if (impl.tiling_parse(&pctx) != ge::GRAPH_SUCCESS) throw HostFailure{"tiling_failed", "the TilingParse (TilingPrepare) function failed"};
        ctx.compile_info_ = compile_info.get();
    }
    scrub_stack();
    ge::graphStatus st = tiling_fn(&ctx);
    std::string hex;
    const uint8_t* data = static_cast<const uint8_t*>(ctx.tiling_.GetData());
    size_t n = ctx.tiling_.GetDataSize();
    if (n > ctx.tiling_.GetCapacity()) n = ctx.tiling_.GetCapacity();
    char b[3];
    for (size_t i = 0; i < n; ++i) {
        std::snprintf(b, sizeof b, "%02x", data[i]);
        hex += b;
    }
    std::string ws, outs, odt;
    for (size_t w : ctx.workspaces_) ws += (ws.empty() ? "" : ",") + std::to_string(w);
    for (auto& s : core.output_shapes) outs += (outs.empty() ? "" : ",") + shape_json(s.GetOriginShape());
    for (auto& d : core.output_descs) odt += (odt.empty() ? "" : ",") + std::to_string(int(d.dtype_));
    std::string hex_q = q(hex), shape_q = q(shape_status), dtype_q = q(infer_status);
    std::string out = "{\"status\":" + q(st == ge::GRAPH_SUCCESS ? "ok" : "tiling_failed") +
                      ",\"tiling_return\":" + std::to_string(unsigned(st)) + ",\"block_dim\":" + std::to_string(ctx.block_dim_) +
                      ",\"tiling_key\":" + std::to_string((unsigned long long)ctx.tiling_key_) +
                      ",\"schedule_mode\":" + std::to_string(ctx.schedule_mode_) +
                      ",\"need_atomic\":" + (ctx.need_atomic_ ? "true" : "false") + ",\"tiling_data\":" + hex_q +
                      ",\"tiling_data_size\":" + std::to_string(ctx.tiling_.GetDataSize()) + ",\"workspace_sizes\":[" + ws +
                      "],\"output_shapes\":[" + outs + "],\"output_dtypes\":[" + odt + "],\"infer_shape\":" + shape_q +
                      ",\"infer_dtype\":" + dtype_q + "}";
    return out;
}

}  // namespace kwhost
