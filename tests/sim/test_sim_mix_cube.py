"""MIX kernels with their own cube code: every AI Core runs as one AIC (the kernel compiled for the cube
core) and two AIVs, synchronised by CrossCoreSetFlag/WaitFlag; a wait nobody will satisfy is the NPU's
hang, reported as such. Cube-only kernels (Catlass's BasicMatmul: `operator()<AIC>` is the only definition of
the kernel's body; `KERNEL_TYPE_AIC_ONLY`) have no AIV copy: bisheng builds them for the cube core alone, and
the emulation compiles them for the AIC and runs one process per block."""
import numpy as np

from kernelwright.tools.project import KernelProject
from kernelwright.tools.sim.mix import cube_only, cube_ratio
from kernelwright.tools.toolchain import Case, OutputSpec

HOST = r'''
#include "register/tilingdata_base.h"
#include "register/op_def_registry.h"
namespace optiling {
BEGIN_TILING_DATA_DEF(MixTilingData)
  TILING_DATA_FIELD_DEF(uint32_t, unused);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(MixMm, MixTilingData)
static ge::graphStatus TilingFunc(gert::TilingContext* context) {
    MixTilingData tiling;
    tiling.set_unused(0);
    context->SetBlockDim(1);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    context->GetWorkspaceSizes(1)[0] = 16 * 1024 * 1024 + 16 * 16 * sizeof(float);
    return ge::GRAPH_SUCCESS;
}
}
namespace ge {
static ge::graphStatus InferShape(gert::InferShapeContext* context) {
    gert::Shape* y = context->GetOutputShape(0);
    y->SetDimNum(2);
    y->SetDim(0, 16);
    y->SetDim(1, 16);
    return GRAPH_SUCCESS;
}
}
namespace ops {
class MixMm : public OpDef {
public:
    explicit MixMm(const char* name) : OpDef(name) {
        this->Input("a").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Input("b").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(MixMm);
}
'''

# y = a @ b + 1 for 16x16 halves: the AIC multiplies into the workspace and sets flag 0 (mode 2); each AIV
# waits for it, adds 1 to its 8 rows and writes them out
KERNEL = r'''
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void mix_mm(GM_ADDR a, GM_ADDR b, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GM_ADDR ws = GetUserWorkspace(workspace);
    TPipe pipe;
    if ASCEND_IS_AIC {
#ifdef DIV_ZERO
        // Catlass's pattern: a tile count of a next block that does not exist (0, from the tiling), divided by
        uint32_t nextK = *reinterpret_cast<__gm__ uint32_t*>(tiling);
        volatile uint32_t q = 7u / nextK;
        (void)q;
        if ((GetBlockIdx() + 5) % nextK != 5) return;    // the finished remainder is the dividend
#endif
        TBuf<TPosition::A1> a1Buf; TBuf<TPosition::B1> b1Buf; TBuf<TPosition::A2> a2Buf;
        TBuf<TPosition::B2> b2Buf; TBuf<TPosition::CO1> cBuf;
        pipe.InitBuffer(a1Buf, 512); pipe.InitBuffer(b1Buf, 512); pipe.InitBuffer(a2Buf, 512);
        pipe.InitBuffer(b2Buf, 512); pipe.InitBuffer(cBuf, 1024);
        LocalTensor<half> a1 = a1Buf.Get<half>(), b1 = b1Buf.Get<half>(), a2 = a2Buf.Get<half>(), b2 = b2Buf.Get<half>();
        LocalTensor<float> c1 = cBuf.Get<float>();
        GlobalTensor<half> ag, bg;
        GlobalTensor<float> cg;
        ag.SetGlobalBuffer((__gm__ half*)a);
        bg.SetGlobalBuffer((__gm__ half*)b);
        cg.SetGlobalBuffer((__gm__ float*)ws);
        DataCopy(a1, ag, Nd2NzParams(1, 16, 16, 0, 16, 16, 1, 0));
        DataCopy(b1, bg, Nd2NzParams(1, 16, 16, 0, 16, 16, 1, 0));
        SetFlag<HardEvent::MTE2_MTE1>(EVENT_ID0);
        WaitFlag<HardEvent::MTE2_MTE1>(EVENT_ID0);
        LoadData(a2, a1, LoadData2DParams(0, 1, 1, 0, 0, false, 0));
        LoadData(b2, b1, LoadData2DParams(0, 1, 1, 0, 0, true, 0));
        SetFlag<HardEvent::MTE1_M>(EVENT_ID0);
        WaitFlag<HardEvent::MTE1_M>(EVENT_ID0);
        Mmad(c1, a2, b2, MmadParams(16, 16, 16, 0, false, true));
        SetFlag<HardEvent::M_FIX>(EVENT_ID0);
        WaitFlag<HardEvent::M_FIX>(EVENT_ID0);
        Fixpipe(cg, c1, FixpipeParamsV220(16, 16, 16, 16, false));
        CrossCoreSetFlag<2, PIPE_FIX>(0);
        return;
    }
    CrossCoreWaitFlag(WAIT_FLAG);
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 8 * 16 * sizeof(float));
    LocalTensor<float> t = buf.Get<float>();
    GlobalTensor<float> cg, yg;
    const uint32_t rows = 8 * GetSubBlockIdx();
    cg.SetGlobalBuffer((__gm__ float*)ws + rows * 16);
    yg.SetGlobalBuffer((__gm__ float*)y + rows * 16);
    DataCopy(t, cg, 128);
    event_t in = static_cast<event_t>(pipe.FetchEventID(HardEvent::MTE2_V));
    SetFlag<HardEvent::MTE2_V>(in);
    WaitFlag<HardEvent::MTE2_V>(in);
    Adds(t, t, 1.0f, 128);
    event_t out = static_cast<event_t>(pipe.FetchEventID(HardEvent::V_MTE3));
    SetFlag<HardEvent::V_MTE3>(out);
    WaitFlag<HardEvent::V_MTE3>(out);
    DataCopy(yg, t, 128);
}
'''


def _run(sim, wait_flag: int, defines: str = ""):
    files = {"op_host/mix_mm.cpp": HOST, "op_kernel/mix_mm.cpp": f"#define WAIT_FLAG {wait_flag}\n{defines}" + KERNEL}
    build = sim.build(KernelProject(name="MixMm", kind="msopgen", files=files))
    assert build.ok, [d.render() for d in build.diagnostics]
    rng = np.random.default_rng(4)
    a, b = rng.uniform(-1, 1, (16, 16)).astype(np.float16), rng.uniform(-1, 1, (16, 16)).astype(np.float16)
    run = sim.run(build, Case(inputs={"a": a, "b": b}, outputs={"y": OutputSpec(shape=(16, 16), dtype="float32")}))
    return run, a, b


def test_the_kernel_is_recognised_as_mix_with_its_own_cube_code():
    assert cube_ratio([KERNEL]) == 2
    assert cube_ratio(["if (g_coreType == AIC) { return; }  Add(x, y, z, 64);"]) == 0      # a vector kernel
    assert cube_ratio([KERNEL + "\nREGIST_MATMUL_OBJ(&pipe, ws, mm);"]) == 0              # the Matmul API's model
    assert cube_ratio([KERNEL, "KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_1);"]) == 1


def test_aic_and_aivs_run_and_synchronise_through_cross_core_flags(sim):
    run, a, b = _run(sim, 0)
    assert run.status == "ok", [d.render() for d in run.diagnostics]
    assert run.block_status == ["ok", "ok", "ok"]    # the AIC and its two AIVs
    np.testing.assert_allclose(run.outputs["y"], a.astype(np.float32) @ b.astype(np.float32) + 1, rtol=1e-5, atol=1e-4)


def test_an_integer_division_by_zero_in_cube_code_runs_on_as_on_the_npu(sim):
    # the AI Core's scalar unit does not trap (NPUKernelBench's Catlass matmuls rely on it); x86 does
    run, a, b = _run(sim, 0, "#define DIV_ZERO\n")
    assert run.status == "ok", [d.render() for d in run.diagnostics]
    np.testing.assert_allclose(run.outputs["y"], a.astype(np.float32) @ b.astype(np.float32) + 1, rtol=1e-5, atol=1e-4)
    warned = [d for d in run.diagnostics if d.rule == "scalar.div_by_zero"]
    assert len(warned) == 2 and {d.severity for d in warned} == {"warning"}, [d.render() for d in run.diagnostics]
    assert {d.file for d in warned} == {"op_kernel/mix_mm.cpp"}     # located in the cube-core library's code


def test_a_wait_for_a_flag_no_core_sets_is_a_hang(sim):
    run, _, _ = _run(sim, 3)
    assert run.status == "rule_violation"
    found = [d for d in run.diagnostics if d.rule == "flag.wait_without_set"]
    assert found and "wait in CrossCoreWaitFlag for flags no core will set" in found[0].message


# y = a @ b for 16x16 halves, written by the AIC's Fixpipe; the AIV body is declared and never defined
AIC_KERNEL = r'''
#include "kernel_operator.h"
using namespace AscendC;
struct Mm {
    template <int32_t CORE_TYPE = g_coreType> __aicore__ inline void operator()(GM_ADDR a, GM_ADDR b, GM_ADDR y);
};
template <> __aicore__ inline void Mm::operator()<AscendC::AIC>(GM_ADDR a, GM_ADDR b, GM_ADDR y) {
    TPipe pipe;
    TBuf<TPosition::A1> a1Buf; TBuf<TPosition::B1> b1Buf; TBuf<TPosition::A2> a2Buf;
    TBuf<TPosition::B2> b2Buf; TBuf<TPosition::CO1> cBuf;
    pipe.InitBuffer(a1Buf, 512); pipe.InitBuffer(b1Buf, 512); pipe.InitBuffer(a2Buf, 512);
    pipe.InitBuffer(b2Buf, 512); pipe.InitBuffer(cBuf, 1024);
    LocalTensor<half> a1 = a1Buf.Get<half>(), b1 = b1Buf.Get<half>(), a2 = a2Buf.Get<half>(), b2 = b2Buf.Get<half>();
    LocalTensor<float> c1 = cBuf.Get<float>();
    GlobalTensor<half> ag, bg;
    GlobalTensor<float> yg;
    ag.SetGlobalBuffer((__gm__ half*)a);
    bg.SetGlobalBuffer((__gm__ half*)b);
    yg.SetGlobalBuffer((__gm__ float*)y);
    DataCopy(a1, ag, Nd2NzParams(1, 16, 16, 0, 16, 16, 1, 0));
    DataCopy(b1, bg, Nd2NzParams(1, 16, 16, 0, 16, 16, 1, 0));
    SetFlag<HardEvent::MTE2_MTE1>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_MTE1>(EVENT_ID0);
    LoadData(a2, a1, LoadData2DParams(0, 1, 1, 0, 0, false, 0));
    LoadData(b2, b1, LoadData2DParams(0, 1, 1, 0, 0, true, 0));
    SetFlag<HardEvent::MTE1_M>(EVENT_ID0);
    WaitFlag<HardEvent::MTE1_M>(EVENT_ID0);
    Mmad(c1, a2, b2, MmadParams(16, 16, 16, 0, false, true));
    SetFlag<HardEvent::M_FIX>(EVENT_ID0);
    WaitFlag<HardEvent::M_FIX>(EVENT_ID0);
    Fixpipe(yg, c1, FixpipeParamsV220(16, 16, 16, 16, false));
}
extern "C" __global__ __aicore__ void aic_mm(GM_ADDR a, GM_ADDR b, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    Mm mm;
    mm(a, b, y);
}
'''


def test_cube_only_kernels_are_told_from_mix_ones():
    assert cube_only([AIC_KERNEL]) and cube_ratio([AIC_KERNEL]) == 2     # the build asks cube_only first
    assert not cube_only([KERNEL])                                        # an AIV path: MIX
    assert not cube_only([AIC_KERNEL + "template <> void f<AIV>();"])                # an AIV specialisation too
    assert cube_only(["KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIC_ONLY); Mmad(c, a, b, p);"])


def test_a_cube_only_kernel_links_and_runs_on_the_aic(sim):
    files = {"op_host/aic_mm.cpp": HOST.replace("MixMm", "AicMm"), "op_kernel/aic_mm.cpp": AIC_KERNEL}
    build = sim.build(KernelProject(name="AicMm", kind="msopgen", files=files))
    assert build.ok, [d.render() for d in build.diagnostics]
    assert not any(k.startswith("kernel_cube:") for k in build.artifacts)
    rng = np.random.default_rng(5)
    a, b = rng.uniform(-1, 1, (16, 16)).astype(np.float16), rng.uniform(-1, 1, (16, 16)).astype(np.float16)
    run = sim.run(build, Case(inputs={"a": a, "b": b}, outputs={"y": OutputSpec(shape=(16, 16), dtype="float32")}))
    assert run.status == "ok", [d.render() for d in run.diagnostics]
    np.testing.assert_allclose(run.outputs["y"], a.astype(np.float32) @ b.astype(np.float32), rtol=1e-5, atol=1e-5)


# Catlass PaddingMatmul's order: every AIV writes its part of the workspace, all AIVs meet at a mode-0 barrier,
# each tells its AIC (mode 2), and each AIC then reads what the AIVs of *other* AI Cores wrote
BARRIER_KERNEL = r'''
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void mix_bar(GM_ADDR a, GM_ADDR b, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GM_ADDR ws = GetUserWorkspace(workspace);
    GlobalTensor<float> wsg, yg;
    wsg.SetGlobalBuffer((__gm__ float*)ws);
    yg.SetGlobalBuffer((__gm__ float*)y);
    TPipe pipe;
    if ASCEND_IS_AIC {
        CrossCoreWaitFlag(0);
        float s = 0;
        for (int i = 0; i < 32; ++i) s += wsg.GetValue(i);
        yg.SetValue(GetBlockIdx(), s);
        ws += 1024 * (GetBlockIdx() + 1);     // the AIC's own cube work (a @ b) past the AIVs' part
CUBE_WORK
        return;
    }
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 32);
    LocalTensor<float> t = buf.Get<float>();
    Duplicate(t, float(GetBlockIdx() + 1), 8);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(wsg[GetBlockIdx() * 8], t, 8);
    CrossCoreSetFlag<0, PIPE_MTE3>(8);
    CrossCoreWaitFlag(8);
    CrossCoreSetFlag<2, PIPE_MTE3>(0);
}
'''


def test_data_written_before_an_all_aiv_barrier_reaches_every_aic_without_a_race(sim):
    host = HOST.replace("MixMm", "MixBar").replace("SetBlockDim(1)", "SetBlockDim(2)").replace("+ 16 * 16", "+ 3 * 16 * 16")
    cube = KERNEL[KERNEL.index("        TBuf<TPosition::A1> a1Buf;"):KERNEL.index("        CrossCoreSetFlag<2, PIPE_FIX>(0);")]
    kernel = BARRIER_KERNEL.replace("CUBE_WORK", cube)
    build = sim.build(KernelProject(name="MixBar", kind="msopgen",
                                    files={"op_host/mix_bar.cpp": host, "op_kernel/mix_bar.cpp": kernel}))
    assert build.ok, [d.render() for d in build.diagnostics]
    a = np.zeros((16, 16), np.float16)
    run = sim.run(build, Case(inputs={"a": a, "b": a}, outputs={"y": OutputSpec(shape=(16, 16), dtype="float32")}))
    assert run.status == "ok", [d.render() for d in run.diagnostics]
    assert list(run.outputs["y"].reshape(-1)[:2]) == [80.0, 80.0]       # 8 x (1 + 2 + 3 + 4) from the four AIVs
