"""Operators written for these tests: ScaledSub (z = x - alpha * y, msopgen, fp32/fp16, one
attribute) and a kernel-launch `twice_kernel` with its pybind / torch.library glue."""
from __future__ import annotations

from kernelwright.tools.project import KernelProject

TILING_H = r'''#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(ScaledSubTilingData)
  TILING_DATA_FIELD_DEF(uint32_t, total);
  TILING_DATA_FIELD_DEF(uint32_t, perCore);
  TILING_DATA_FIELD_DEF(float, alpha);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(ScaledSub, ScaledSubTilingData)
}
'''

HOST = r'''#include "scaled_sub_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    ScaledSubTilingData tiling;
    uint32_t total = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    auto plat = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint32_t cores = plat.GetCoreNumAiv();
    uint32_t blocks = (total + 255) / 256;      // at least 256 elements per core
    if (blocks > cores) blocks = cores;
    if (blocks == 0) blocks = 1;
    const float* alpha = context->GetAttrs()->GetAttrPointer<float>(0);
    tiling.set_total(total);
    tiling.set_perCore((total + blocks - 1) / blocks);
    tiling.set_alpha(*alpha);
    context->SetBlockDim(blocks);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t* ws = context->GetWorkspaceSizes(1);
    ws[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}

namespace ge {
static ge::graphStatus InferShape(gert::InferShapeContext* context)
{
    *context->GetOutputShape(0) = *context->GetInputShape(0);
    return GRAPH_SUCCESS;
}
}

namespace ops {
class ScaledSub : public OpDef {
public:
    explicit ScaledSub(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT16}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT16}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("z").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT16}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Attr("alpha").AttrType(OPTIONAL).Float(0.5);
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(ScaledSub);
}
'''

KERNEL = r'''#include "kernel_operator.h"
using namespace AscendC;

constexpr uint32_t TILE = 256;   // elements per tile; tails go through DataCopyPad

template <typename T>
class KernelScaledSub {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t total, uint32_t perCore, float alpha)
    {
        uint32_t start = GetBlockIdx() * perCore;
        len = start >= total ? 0 : (total - start < perCore ? total - start : perCore);
        this->alpha = alpha;
        xg.SetGlobalBuffer((__gm__ T*)x + start, len);
        yg.SetGlobalBuffer((__gm__ T*)y + start, len);
        zg.SetGlobalBuffer((__gm__ T*)z + start, len);
        pipe.InitBuffer(inX, 2, TILE * sizeof(T));
        pipe.InitBuffer(inY, 2, TILE * sizeof(T));
        pipe.InitBuffer(outZ, 2, TILE * sizeof(T));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t off = 0; off < len; off += TILE) {
            uint32_t n = len - off < TILE ? len - off : TILE;
            DataCopyExtParams p{1, (uint32_t)(n * sizeof(T)), 0, 0, 0};
            DataCopyPadExtParams<T> pad{false, 0, 0, 0};
            LocalTensor<T> xl = inX.AllocTensor<T>();
            LocalTensor<T> yl = inY.AllocTensor<T>();
            DataCopyPad(xl, xg[off], p, pad);
            DataCopyPad(yl, yg[off], p, pad);
            inX.EnQue(xl);
            inY.EnQue(yl);
            LocalTensor<T> xi = inX.DeQue<T>();
            LocalTensor<T> yi = inY.DeQue<T>();
            LocalTensor<T> zl = outZ.AllocTensor<T>();
            Muls(zl, yi, (T)(-alpha), n);
            Add(zl, zl, xi, n);
            outZ.EnQue(zl);
            inX.FreeTensor(xi);
            inY.FreeTensor(yi);
            LocalTensor<T> zo = outZ.DeQue<T>();
            DataCopyPad(zg[off], zo, p);
            outZ.FreeTensor(zo);
        }
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, 2> inX, inY;
    TQue<QuePosition::VECOUT, 2> outZ;
    GlobalTensor<T> xg, yg, zg;
    uint32_t len;
    float alpha;
};

extern "C" __global__ __aicore__ void scaled_sub(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    KernelScaledSub<DTYPE_X> op;
    op.Init(x, y, z, t.total, t.perCore, t.alpha);
    op.Process();
}
'''

OP_JSON = '''[
    {
        "op": "ScaledSub",
        "language": "cpp",
        "input_desc": [
            {"name": "x", "param_type": "required", "format": ["ND", "ND"], "type": ["float", "float16"]},
            {"name": "y", "param_type": "required", "format": ["ND", "ND"], "type": ["float", "float16"]}
        ],
        "output_desc": [
            {"name": "z", "param_type": "required", "format": ["ND", "ND"], "type": ["float", "float16"]}
        ],
        "attr": [{"name": "alpha", "param_type": "optional", "type": "float", "default_value": 0.5}]
    }
]
'''

BIND = r'''#include <torch/library.h>
#include "pytorch_npu_helper.hpp"
#include <torch/extension.h>

at::Tensor scaled_sub_impl_npu(const at::Tensor& x, const at::Tensor& y, double alpha) {
    at::Tensor z = at::empty_like(x);
    EXEC_NPU_CMD(aclnnScaledSub, x, y, alpha, z);
    return z;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("scaled_sub", &scaled_sub_impl_npu, "x - alpha * y");
}
'''

MODEL = '''import torch
import custom_ops_lib


class ModelNew(torch.nn.Module):
    def __init__(self, alpha: float = 0.5):
        super().__init__()
        self.alpha = alpha

    def forward(self, x, y):
        return custom_ops_lib.scaled_sub(x, y, self.alpha)
'''


def msopgen_dir(root):
    """The ScaledSub project as a directory in the msopgen layout, with prototype and glue."""
    files = {"op_host/scaled_sub_tiling.h": TILING_H, "op_host/scaled_sub.cpp": HOST, "op_kernel/scaled_sub.cpp": KERNEL,
             "scaled_sub.json": OP_JSON, "bind/op.cpp": BIND, "model_new.py": MODEL}
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def msopgen_project() -> KernelProject:
    return KernelProject(name="ScaledSub", kind="msopgen", files={
        "op_host/scaled_sub_tiling.h": TILING_H, "op_host/scaled_sub.cpp": HOST, "op_kernel/scaled_sub.cpp": KERNEL})


LAUNCH_KERNEL = r'''#include "kernel_operator.h"

__global__ __aicore__ void twice_kernel(GM_ADDR x, GM_ADDR y, uint32_t n)
{
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 256 * sizeof(float));
    AscendC::GlobalTensor<float> xg, yg;
    xg.SetGlobalBuffer((__gm__ float*)x, n);
    yg.SetGlobalBuffer((__gm__ float*)y, n);
    AscendC::LocalTensor<float> t = buf.Get<float>();
    for (uint32_t off = AscendC::GetBlockIdx() * 256; off < n; off += AscendC::GetBlockNum() * 256) {
        uint32_t len = n - off < 256 ? n - off : 256;
        AscendC::DataCopyExtParams p{1, (uint32_t)(len * sizeof(float)), 0, 0, 0};
        AscendC::DataCopyPad(t, xg[off], p, AscendC::DataCopyPadExtParams<float>{false, 0, 0, 0});
        AscendC::PipeBarrier<PIPE_ALL>();
        AscendC::Muls(t, t, 2.0f, len);
        AscendC::PipeBarrier<PIPE_ALL>();
        AscendC::DataCopyPad(yg[off], t, p);
        AscendC::PipeBarrier<PIPE_ALL>();
    }
}
'''

PYBIND = r'''#include <torch/extension.h>
#include "torch_npu/csrc/core/npu/NPUStream.h"

extern "C" void twice_launch(uint32_t blocks, void* stream, void* x, void* y, uint32_t n);

at::Tensor twice(const at::Tensor& x) {
    at::Tensor y = at::empty_like(x);
    twice_launch(8, c10_npu::getCurrentNPUStream().stream(false), x.data_ptr(), y.data_ptr(), x.numel());
    return y;
}

PYBIND11_MODULE(twice_ops, m) { m.def("twice", &twice); }
'''

TORCH_HOST = r'''#include <torch/library.h>
#include <ATen/ATen.h>
#include "torch_npu/csrc/core/npu/NPUStream.h"

at::Tensor run(const at::Tensor& x)
{
    at::Tensor y = at::empty_like(x);
    twice_kernel_launch(8, (void*)c10_npu::getCurrentNPUStream().stream(false), (uint8_t*)x.data_ptr(),
                        (uint8_t*)y.data_ptr(), (uint32_t)x.numel());
    return y;
}

TORCH_LIBRARY(custom_op, m) { m.def("run(Tensor x) -> Tensor"); }
TORCH_LIBRARY_IMPL(custom_op, PrivateUse1, m) { m.impl("run", TORCH_FN(run)); }
'''

LAUNCH_MODEL = '''import torch


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return torch.ops.custom_op.run(x)
'''


def launch_project() -> KernelProject:
    """The kernel-launch fixture with a pybind binding and ModelNew (direct-launch shape)."""
    return KernelProject(name="twice_kernel", kind="kernel_launch", files={"kernel/twice.cpp": LAUNCH_KERNEL},
                         glue={"kernel/pybind11.cpp": PYBIND, "ModelNew.py": LAUNCH_MODEL.replace(
                             "torch.ops.custom_op.run(x)", "twice_ops.twice(x)").replace("import torch\n", "import torch\nimport twice_ops\n")})


def asc_project() -> KernelProject:
    """The kernel-launch fixture in AscendKernelBench shape (custom_op.asc kernels + torch.library host)."""
    return KernelProject(name="twice_kernel", kind="kernel_launch", files={"custom_op.asc": LAUNCH_KERNEL},
                         glue={"bind/custom_op_host.cpp": TORCH_HOST, "model_new.py": LAUNCH_MODEL})


def same(a: KernelProject, b: KernelProject) -> bool:
    """Equal as projects (where they were read from does not count)."""
    return a.model_dump(exclude={"origin"}) == b.model_dump(exclude={"origin"})
