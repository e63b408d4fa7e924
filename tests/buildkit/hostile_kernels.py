"""Kernels (and op_host code) written to escape: each does the plain part of its job (y = x * 2 over `n`
floats through raw GM pointers, one block) and one hostile act. The tests format paths, ports and
markers into them, and check the act had no effect outside the run."""
from __future__ import annotations

from kernelwright.tools.project import KernelProject
from kernelwright.tools.toolchain import ArgSpec, Case, OutputSpec

PRELUDE = r'''
#include "kernel_operator.h"
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>
using namespace AscendC;
'''

KERNEL = PRELUDE + r'''
{helpers}
extern "C" __global__ __aicore__ void hostile(GM_ADDR x, GM_ADDR y, uint32_t n) {{
    {act}
    for (uint32_t i = 0; i < n; ++i) ((__gm__ float*)y)[i] = ((__gm__ float*)x)[i] * 2.0f;
}}
'''

ACTS = {
    # a file outside the run directory
    "write_outside": 'FILE* f = fopen("{path}", "w"); if (f) {{ fputs("escaped", f); fclose(f); }}',
    # a credential from the caller's environment, printed where the verdict shows it
    "read_env": 'const char* k = getenv("OPENAI_API_KEY"); printf("KEY=%s\\n", k ? k : "(none)"); fflush(stdout);',
    # a connection to a service on the host
    "socket": ('int s = socket(AF_INET, SOCK_STREAM, 0); sockaddr_in a{{}}; a.sin_family = AF_INET; '
               'a.sin_port = htons({port}); a.sin_addr.s_addr = htonl(INADDR_LOOPBACK); '
               'if (connect(s, (sockaddr*)&a, sizeof a) == 0) send(s, "hello", 5, 0); close(s);'),
    # a grandchild in its own session that outlives the run and writes a file later
    "grandchild": ('pid_t p = fork(); if (p == 0) {{ setsid(); if (fork() == 0) {{ '
                   'execl("/bin/sh", "sh", "-c", "sleep {marker}; echo late > {path}", (char*)0); _exit(0); }} _exit(0); }} '
                   'int st; waitpid(p, &st, 0);'),
    # overwrite another build's cached executable with a copy of a third (a passing one); the owner of a
    # read-only file may make it writable first
    "overwrite_cache": ('chmod("{target}", 0755); std::ifstream src("{source}", std::ios::binary); std::string bytes((std::istreambuf_iterator<char>(src)), '
                        '{{}}); std::ofstream dst("{target}", std::ios::binary | std::ios::trunc); dst << bytes;'),
    # a raw store 7 elements past the output's end
    "overrun": '((__gm__ float*)y)[n + 6] = 1.0f;',
    # nothing hostile: the reference computation only
    "none": '',
}

# a crash whose message carries a credential and /etc/passwd (printed from a static constructor, so it
# happens before the runner reports anything and lands in the crash detail)
CRASH_HELPERS = r'''
namespace {
struct Leak {
    Leak() {
        const char* k = getenv("OPENAI_API_KEY");
        std::ifstream pw("/etc/passwd");
        std::string text((std::istreambuf_iterator<char>(pw)), {});
        fprintf(stderr, "KEY=%s\n%s\n", k ? k : "(none)", text.c_str());
        abort();
    }
} leak;
}
'''


def launch_project(act: str, name: str = "hostile", helpers: str = "", **fields: object) -> KernelProject:
    source = KERNEL.format(helpers=helpers, act=ACTS[act].format(**fields))
    return KernelProject(name=name, kind="kernel_launch", files={f"{name}.cpp": source})


def case(n: int = 64) -> tuple[object, Case]:
    import numpy as np

    x = np.arange(n, dtype=np.float32)
    return x, Case(inputs={"x": x}, outputs={"y": OutputSpec(shape=(n,), dtype="float32")}, block_dim=1, timeout_s=20,
                   args=[ArgSpec(kind="tensor", name="x"), ArgSpec(kind="tensor", name="y"), ArgSpec(kind="int", value=n)])


# ---- an msopgen project whose op_host code has a static constructor ----
TILING_H = r'''
#include "register/tilingdata_base.h"
namespace optiling {
BEGIN_TILING_DATA_DEF(LeakTilingData)
  TILING_DATA_FIELD_DEF(uint32_t, total);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(Leak, LeakTilingData)
}
'''

HOST = r'''
#include <cstdio>
#include <cstdlib>
#include "leak_tiling.h"
#include "register/op_def_registry.h"
namespace {
struct Steal {
    Steal() {
        const char* k = getenv("OPENAI_API_KEY");
        FILE* f = fopen("{path}", "w");
        if (f) { fputs(k ? k : "(none)", f); fclose(f); }
        fprintf(stderr, "KEY=%s\n", k ? k : "(none)");
    }
} steal;
}
namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context) {
    LeakTilingData tiling;
    tiling.set_total(context->GetInputShape(0)->GetStorageShape().GetShapeSize());
    context->SetBlockDim(1);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t* ws = context->GetWorkspaceSizes(1);
    ws[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}
namespace ge {
static ge::graphStatus InferShape(gert::InferShapeContext* context) {
    *context->GetOutputShape(0) = *context->GetInputShape(0);
    return GRAPH_SUCCESS;
}
}
namespace ops {
class Leak : public OpDef {
public:
    explicit Leak(const char* name) : OpDef(name) {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(Leak);
}
'''

OP_KERNEL = r'''
#include "kernel_operator.h"
extern "C" __global__ __aicore__ void leak(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling) {
    GET_TILING_DATA(t, tiling);
    for (uint32_t i = 0; i < t.total; ++i) ((__gm__ float*)y)[i] = ((__gm__ float*)x)[i] * 2.0f;
}
'''


def write_leaky_msopgen(directory, path: str) -> None:
    """The project on disk (op_host/, op_kernel/), its static constructor writing the key to `path`."""
    (directory / "op_host").mkdir(parents=True)
    (directory / "op_kernel").mkdir()
    (directory / "op_host" / "leak_tiling.h").write_text(TILING_H)
    (directory / "op_host" / "leak.cpp").write_text(HOST.replace("{path}", path))
    (directory / "op_kernel" / "leak.cpp").write_text(OP_KERNEL)
