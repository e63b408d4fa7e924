"""Sampled launches: only some blocks run, on GM sized for the case; the result holds exactly the bytes they wrote."""
import numpy as np

from kernelwright.tools.sim.run import sample_of
from tests.sim.test_sim_driver import SCALE, launch_project, scale_case

SYNCED = SCALE.replace("    DataCopy(yg, d, perCore);", "    SyncAll();\n    DataCopy(yg, d, perCore);")


def test_sample_of_takes_first_last_and_spread():
    assert sample_of(40, 4) == [0, 13, 26, 39]
    assert sample_of(2, 4) == [0, 1]


def _sampled_run(sim, src):
    """8 blocks of the scale kernel, 3 of them sampled."""
    b = sim.build(launch_project(src))
    assert b.ok, [d.render() for d in b.diagnostics]
    x, case = scale_case(blocks=8)
    case.sample_blocks = 3
    return x, sim.run(b, case)


def test_a_sampled_run_returns_only_what_the_sampled_blocks_wrote(sim):
    x, r = _sampled_run(sim, SCALE)
    assert r.status == "ok", r.detail
    assert r.sampled == [0, 4, 7]
    assert r.block_status == ["ok", "not_run", "not_run", "not_run", "ok", "not_run", "not_run", "ok"]
    assert r.written["y"] == [(0, 256), (4 * 256, 256), (7 * 256, 256)]
    assert r.written["x"] == []                       # the input was only read
    y = r.outputs["y"]
    for blk in (0, 4, 7):
        np.testing.assert_array_equal(y[blk * 64:(blk + 1) * 64], x[blk * 64:(blk + 1) * 64] * 1.5)
    assert not (y[64:4 * 64] == x[64:4 * 64] * 1.5).any()   # never written: poison or zero, not a result


def test_a_kernel_with_syncall_is_unsampleable(sim):
    _, r = _sampled_run(sim, SYNCED)
    assert r.status == "rule_violation"
    assert r.errors()[0].rule == "sample.unsampleable" and "SyncAll" in r.errors()[0].message


RAW_SCALE = SCALE.replace("    DataCopy(yg, d, perCore);", "    d.SetValue(0, ((__gm__ float*)x)[GetBlockIdx() * perCore + 3]);\n"
                          "    DataCopy(yg, d, perCore);")


def test_a_generated_input_is_made_on_first_touch_as_region_values_makes_it(sim):
    """An input too big to hold: the runner fills the pages the sampled blocks read (API copies and raw loads
    alike) from the seed and the offset; region_values.py makes the same bits."""
    from kernelwright.tools.referee.region_values import placeholder, values_at
    b = sim.build(launch_project(RAW_SCALE))
    assert b.ok, [d.render() for d in b.diagnostics]
    per_core, blocks = 4096, 64            # 1 MiB of input: whole pages guarded, filled on touch
    _, case = scale_case(per_core=per_core, blocks=blocks)
    case.inputs["x"] = placeholder((per_core * blocks,))
    case.outputs["y"].shape = (per_core * blocks,)
    case.generated, case.sample_blocks = {"x": 11}, 3
    r = sim.run(b, case)
    assert r.status == "ok", (r.detail, [d.render() for d in r.errors()])
    assert "x" not in r.outputs and r.written["x"] == []
    x = values_at(11, np.arange(per_core * blocks))
    for blk in r.sampled:
        want = x[blk * per_core:(blk + 1) * per_core] * np.float32(1.5)
        want[0] = x[blk * per_core + 3]
        np.testing.assert_array_equal(r.outputs["y"][blk * per_core:(blk + 1) * per_core], want)


RAW_STORE = r'''
#include "kernel_operator.h"
extern "C" __global__ __aicore__ void scale(GM_ADDR x, GM_ADDR y, uint32_t perCore, float factor) {
    __gm__ float* xs = (__gm__ float*)x + AscendC::GetBlockIdx() * perCore;
    __gm__ float* ys = (__gm__ float*)y + AscendC::GetBlockIdx() * perCore;
    for (uint32_t i = 0; i < perCore; ++i) ys[i] = xs[i] * factor;
}
'''


def test_raw_pointer_stores_of_a_sampled_run_are_seen_as_written(sim):
    """A raw store marks nothing; the sampled outputs start as poison where touched, so the bytes it changed are
    the written ones."""
    x, r = _sampled_run(sim, RAW_STORE)
    assert r.status == "ok", r.detail
    assert r.written["y"] == [(0, 256), (4 * 256, 256), (7 * 256, 256)]
    for blk in (0, 4, 7):
        np.testing.assert_array_equal(r.outputs["y"][blk * 64:(blk + 1) * 64], x[blk * 64:(blk + 1) * 64] * 1.5)


def test_a_raw_store_whose_first_byte_equals_the_poison_reads_back_whole(sim):
    """0xEFF stored raw: its low byte is 0xFF, the poison's; the element still reads back as stored."""
    src = RAW_STORE.replace("ys[i] = xs[i] * factor;", "((__gm__ int32_t*)ys)[i] = 0xEFF;")
    _, r = _sampled_run(sim, src)
    assert r.status == "ok", r.detail
    got = r.outputs["y"].view(np.int32)
    assert (got[:64] == 0xEFF).all() and (got[7 * 64:] == 0xEFF).all()
