"""A flag every block sets to the same value (found-inf style: SetValue(0, 1.0f) by each block that
finds one) gives the same result in any order, so it is not a GM race; blocks storing different
values to the same bytes still are."""
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
