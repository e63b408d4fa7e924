"""Two installs of kernelwright sharing one KERNELWRIGHT_HOME (two checkouts, a pipx install beside a
venv) both build and pass an msopgen kernel, at the same time. Cached build products carry absolute
paths into the install that made them (clang's precompiled header records its headers' paths), so a
cache shared by key alone made the second install's host build fail with `redefinition of
'GRAPH_SUCCESS'` against the first install's headers."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import kernelwright
from kernelwright.tools.project import KernelProject

PACKAGE = Path(kernelwright.__file__).resolve().parent
SKIP = shutil.ignore_patterns(".venv", ".git", ".pytest_cache", "tests", "*.egg-info", "__pycache__", "runs")

TILING_H = r'''
#include "register/tilingdata_base.h"
namespace optiling {
BEGIN_TILING_DATA_DEF(AddOneTilingData)
  TILING_DATA_FIELD_DEF(uint32_t, total);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(AddOne, AddOneTilingData)
}
'''
HOST = r'''
#include "add_one_tiling.h"
#include "register/op_def_registry.h"
namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context) {
    AddOneTilingData tiling;
    tiling.set_total(context->GetInputShape(0)->GetStorageShape().GetShapeSize());
    context->SetBlockDim(1);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    context->GetWorkspaceSizes(1)[0] = 0;
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
class AddOne : public OpDef {
public:
    explicit AddOne(const char* name) : OpDef(name) {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(AddOne);
}
'''
KERNEL = r'''
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void add_one(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling) {
    GET_TILING_DATA(t, tiling);
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, t.total * sizeof(float));
    GlobalTensor<float> xg, yg;
    xg.SetGlobalBuffer((__gm__ float*)x, t.total);
    yg.SetGlobalBuffer((__gm__ float*)y, t.total);
    LocalTensor<float> l = buf.Get<float>();
    DataCopy(l, xg, t.total);
    PipeBarrier<PIPE_ALL>();
    Adds(l, l, 1.0f, t.total);
    PipeBarrier<PIPE_ALL>();
    DataCopy(yg, l, t.total);
}
'''
# run inside each install: build, run one case, compare with NumPy, say which install answered
SCRIPT = r'''
import json, sys
import numpy as np
import kernelwright
from kernelwright.tools.project import KernelProject
from kernelwright.tools.sim.toolchain import SimToolchain
from kernelwright.tools.toolchain import Case
project = KernelProject.model_validate_json(open(sys.argv[1]).read())
sim = SimToolchain()
build = sim.build(project)
out = {"install": kernelwright.__file__, "build": build.status, "errors": [d.render() for d in build.errors()][:3]}
if build.ok:
    x = np.arange(256, dtype=np.float32)
    r = sim.run(build, Case(inputs={"x": x}))
    out |= {"run": r.status, "equal": bool(r.ok and np.array_equal(r.outputs["y"], x + 1))}
print(json.dumps(out))
'''


def test_two_installs_share_one_home(tmp_path):
    home = tmp_path / "home"
    procs = {}
    for name in ("a", "b"):
        # each install builds its own kernel (the same one would be a cache hit: nothing compiled the second time)
        project = KernelProject(name="AddOne", kind="msopgen", files={
            "op_host/add_one_tiling.h": TILING_H, "op_host/add_one.cpp": f"// install {name}\n{HOST}",
            "op_kernel/add_one.cpp": KERNEL})
        (tmp_path / f"{name}.json").write_text(project.model_dump_json())
        shutil.copytree(PACKAGE, tmp_path / name / "kernelwright", ignore=SKIP)
        env = dict(os.environ, PYTHONPATH=str(tmp_path / name), KERNELWRIGHT_HOME=str(home))
        procs[name] = subprocess.Popen([sys.executable, "-c", SCRIPT, str(tmp_path / f"{name}.json")], env=env,
                                       cwd=tmp_path, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    for name, proc in procs.items():
        out, err = proc.communicate(timeout=900)
        assert proc.returncode == 0, err[-3000:]
        result = json.loads(out.strip().splitlines()[-1])
        assert result["install"] == str(tmp_path / name / "kernelwright" / "__init__.py")
        assert result["build"] == "ok", result["errors"]
        assert result["run"] == "ok" and result["equal"], result
    # one emulation runtime (with its precompiled headers) per install
    assert len(list((home / "sim").glob("rt-*"))) == 2
