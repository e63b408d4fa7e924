"""A flag every block sets to the same value (found-inf style: SetValue(0, 1.0f) by each block that
finds one) gives the same result in any order, so it is not a GM race; blocks storing different
values to the same bytes still are. The same holds for copies: a block whose last tile runs into the next block's
range with the same data (NPUKernelBench's Ccopy) leaves the result unchanged in any order."""
import numpy as np

from kernelwright.tools.project import KernelProject
from kernelwright.tools.sim.corpus import launch

SRC = r'''
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void set_flag_kernel(GM_ADDR flag, uint32_t sameValue)
{
    GlobalTensor<float> flagGm;
    flagGm.SetGlobalBuffer((__gm__ float*)flag, 8);
    float v = sameValue ? 1.0f : static_cast<float>(GetBlockIdx());
    flagGm.SetValue(0, v);
}
'''


def _run(sim, same: int):
    build = sim.build(KernelProject(name="set_flag_kernel", kind="kernel_launch", files={"set_flag_kernel.cpp": SRC}))
    assert build.ok, "\n".join(d.render() for d in build.diagnostics[:3])
    return sim.run(build, launch(4, ["flag", same], {}, {"flag": ((8,), "float32")}))


def test_every_block_storing_the_same_flag_value_is_not_a_race(sim):
    r = _run(sim, 1)
    assert r.status == "ok", [d.render() for d in r.diagnostics[:2]]
    assert r.outputs["flag"][0] == np.float32(1.0)


def test_blocks_storing_different_values_race(sim):
    r = _run(sim, 0)
    assert r.status == "rule_violation"
    assert any(d.rule == "gm.race" and "both" not in d.message and "writes bytes that block" in d.message
               for d in r.errors())


COPY = r'''
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void overlap_copy(GM_ADDR x, GM_ADDR y, uint32_t sameData)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 64);
    LocalTensor<float> t = buf.Get<float>();
    GlobalTensor<float> xg, yg;
    xg.SetGlobalBuffer((__gm__ float*)x + 8 * GetBlockIdx());
    yg.SetGlobalBuffer((__gm__ float*)y + 8 * GetBlockIdx());
    DataCopy(t, xg, 16);                       // 16 floats: the last 8 are the next block's
    PipeBarrier<PIPE_ALL>();
    Adds(t, t, sameData ? 0.0f : static_cast<float>(GetBlockIdx()), 16);
    PipeBarrier<PIPE_ALL>();
    DataCopy(yg, t, 16);
}
'''


def test_copies_that_overlap_with_the_same_data_are_not_a_race(sim):
    build = sim.build(KernelProject(name="overlap_copy", kind="kernel_launch", files={"overlap_copy.cpp": COPY}))
    assert build.ok, "\n".join(d.render() for d in build.diagnostics[:3])
    x = np.arange(40, dtype=np.float32)
    same = sim.run(build, launch(4, ["x", "y", 1], {"x": x}, {"y": ((40,), "float32")}))
    assert same.status == "ok", [d.render() for d in same.diagnostics[:2]]
    np.testing.assert_array_equal(same.outputs["y"], x)
    other = sim.run(build, launch(4, ["x", "y", 0], {"x": x}, {"y": ((40,), "float32")}))
    assert other.status == "rule_violation" and any(d.rule == "gm.race" and "also writes" in d.message for d in other.errors())
