"""Scalar GM reads in a loop take a fast path (runtime.h scalar_read_fast) that keeps every check: the counts
and the trace are those of the full path, and a read outside the buffer is still found."""
import numpy as np

from kernelwright.tools.toolchain import ArgSpec, Case, OutputSpec
from tests.sim.test_sim_driver import launch_project

LOOP = r'''
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void loop(GM_ADDR x, GM_ADDR y, uint32_t n, uint32_t extra) {
    GlobalTensor<float> xg, yg;
    xg.SetGlobalBuffer((__gm__ float*)x, n);
    yg.SetGlobalBuffer((__gm__ float*)y, 8);
    float s = 0.0f;
    for (uint32_t i = 0; i < n + extra; ++i) s += xg.GetValue(i);
    yg.SetValue(0, s);
}
'''


def _run(sim, n, extra):
    b = sim.build(launch_project(LOOP, name="loop"))
    assert b.ok, [d.render() for d in b.diagnostics]
    x = np.arange(n, dtype=np.float32)
    case = Case(inputs={"x": x}, outputs={"y": OutputSpec(shape=(8,), dtype="float32")}, block_dim=1, timeout_s=20.0,
                args=[ArgSpec(kind="tensor", name="x"), ArgSpec(kind="tensor", name="y"),
                      ArgSpec(kind="int", value=n), ArgSpec(kind="int", value=extra)])
    return x, sim.run(b, case)


def test_scalar_reads_count_and_trace_as_the_full_path(sim):
    x, r = _run(sim, 4096, 0)
    assert r.status == "ok", r.detail
    assert r.outputs["y"][0] == x.sum()
    assert r.counters[0]["scalar"]["gm_read"] == 4096
    block = r.trace.launches[0].blocks[0]
    name = block.names.index("gm_read")
    assert int(block.records["count"][block.records["name"] == name].sum()) == 4096


def test_a_read_past_the_buffer_is_still_found_after_the_fast_path(sim):
    _, r = _run(sim, 4096, 1 << 20)      # past the padding, past the block, then past the allocator's segment
    assert r.status == "rule_violation"
    assert {"gm.padding", "gm.past_allocation"} <= {d.rule for d in r.diagnostics if d.severity == "warning"}
    assert r.errors()[0].rule == "gm.out_of_bounds", r.errors()[0].render()
