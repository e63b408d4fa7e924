"""Bandwidth between cores and the L2 cache: blocks that end early hand their share of HBM to the cores
still running (a fluid schedule), and a re-read hits L2 only when what all active cores touched since fits
in it; the eager baseline follows the same rule for tensors."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from kernelwright.tools.hardware import load_soc
from kernelwright.tools.perf import calibration as cal
from kernelwright.tools.perf.eager import estimate_eager
from kernelwright.tools.perf.estimate import estimate
from kernelwright.tools.perf.l2 import hits
from kernelwright.tools.perf.trace import TraceBuilder

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synth import kernel, rows_block  # noqa: E402

SOC = load_soc("Ascend910B2")
MIB = 1 << 20


def uneven(row_bytes: int, passes: int = 1, rows: int = 128, blocks: int = 48, **kw):
    """`rows` rows over `blocks` blocks, the first ones one row more (AscendC's former/tail split)."""
    out, r = [], 0
    for b in range(blocks):
        n = rows // blocks + (b < rows % blocks)
        out.append(rows_block(r, n, row_bytes, 32768, passes, **kw))
        r += n
    return kernel(out)


def hbm_us(nbytes: float) -> float:
    return nbytes / cal.HBM_BYTES_PER_S * 1e6


def test_blocks_that_end_early_hand_their_bandwidth_to_the_others():
    # 128 rows on 48 cores: 32 blocks of 3 rows, 16 of 2. An even split for the whole launch would end at
    # 3 rows x 48 shares = 1.125x the floor; the cores still running take over the finished ones' bandwidth
    est = estimate(uneven(MIB), SOC)
    floor = hbm_us(128 * MIB + 128 * 32)
    assert floor * 0.999 <= est.device_us <= floor * 1.03, (est.device_us, floor)


def test_a_block_alone_runs_at_its_own_copy_peak_not_at_the_chips_bandwidth():
    one = estimate(uneven(MIB, rows=4, blocks=1), SOC)
    assert one.device_us > hbm_us(4 * MIB) * 10           # one core's MTE2 path is far below the chip's HBM
    forty_eight = estimate(uneven(MIB, rows=4 * 48, blocks=48), SOC)
    assert forty_eight.device_us < one.device_us * 48 / 10


def test_a_re_read_that_fits_in_l2_is_cheaper_and_still_above_the_hbm_floor():
    fits = estimate(uneven(MIB, passes=2), SOC)                        # 1 MiB rows x 48 cores fit in 192 MiB
    blind = estimate(uneven(MIB, passes=2, base=None), SOC)   # no addresses: every read from HBM
    assert fits.l2_bytes == 128 * MIB and blind.l2_bytes == 0
    assert fits.device_us < blind.device_us * 0.8
    assert fits.device_us >= hbm_us(fits.gm_bytes - fits.l2_bytes) * 0.999
    assert fits.device_us >= fits.bound_us * 0.999 and "L2" in " ".join(fits.notes)


def test_a_re_read_misses_when_what_the_active_cores_touched_since_does_not_fit():
    wide = estimate(uneven(8 * MIB, passes=2, rows=48), SOC)           # 8 MiB x 48 cores = 384 MiB: misses
    assert wide.l2_bytes == 0
    narrow = estimate(uneven(8 * MIB, passes=2, rows=8, blocks=8), SOC)   # 8 MiB x 8 cores = 64 MiB: hits
    assert narrow.l2_bytes == 8 * 8 * MIB
    assert SOC.l2_bytes == 192 * MIB


def test_only_re_reads_of_single_copies_hit():
    t = TraceBuilder()
    t.copy("UB", "GM", 4096, gm_addr=1 << 33)        # a write: HBM
    t.copy("GM", "UB", 4096, gm_addr=1 << 33)        # reads what was written: a hit
    t.copy("GM", "UB", 4096, gm_addr=1 << 34)        # a first read: HBM
    t.copy("GM", "UB", 2048, gm_addr=1 << 34)        # same start, other bytes: not known to be the same, HBM
    t.copy("GM", "UB", 4096, gm_addr=1 << 34, count=3)   # merged copies know only their first address: HBM
    t.copy("GM", "UB", 4096)                         # no address (a hand-made trace): HBM
    t.copy("GM", "UB", 4096)
    assert hits(t.build(), 48, SOC.l2_bytes).tolist() == [False, True, False, False, False, False, False]


def _op(op: str, ins: list[tuple[int, int]], outs: list[tuple[int, int]]) -> dict:
    def meta(spec: tuple[int, int]) -> dict:
        return {"shape": [spec[1]], "dtype": "float32", "storage": spec[0]}
    return {"op": op, "inputs": [meta(s) for s in ins], "outputs": [meta(s) for s in outs]}


@pytest.mark.parametrize("elements,hit", [(4 * MIB, True), (64 * MIB, False)])
def test_an_eager_op_reads_the_previous_ops_output_from_l2_only_when_it_fits(elements, hit):
    ops = [_op("exp", [(0, elements)], [(1, elements)]), _op("add", [(1, elements), (0, elements)], [(2, elements)]),
           _op("view", [(2, elements)], [(2, elements)])]
    est = estimate_eager(ops, SOC)
    nbytes = elements * 4
    assert est.kernels == 2 and est.ops[0].l2_bytes == 0
    # 16 MiB tensors: the second op finds both x and exp(x) in L2; 256 MiB ones are past the 192 MiB L2
    assert est.ops[1].l2_bytes == (2 * nbytes if hit else 0)
    hbm = hbm_us(3 * nbytes - est.ops[1].l2_bytes) + cal.LAUNCH_US
    assert est.ops[1].us >= hbm * 0.999
    blind = estimate_eager([{**o, "inputs": [{**t, "storage": None} for t in o["inputs"]]} for o in ops], SOC)
    assert (est.total_us < blind.total_us) == hit and est.total_us <= blind.total_us


def test_uneven_blocks_keep_the_physics():
    # twice the bytes per row on the same uneven split: about twice the time; never below the bound
    a, b = estimate(uneven(MIB, rows=100), SOC), estimate(uneven(2 * MIB, rows=100), SOC)
    assert b.device_us == pytest.approx(2 * a.device_us, rel=0.06)
    for e in (a, b):
        assert e.device_us >= e.bound_us * 0.999
    assert np.isfinite(a.kernel_us)


def test_the_recorded_aten_ops_say_which_tensors_share_storage():
    import torch

    from kernelwright.tools.tasks.aten_ops import record

    ops = record(lambda x: (x.exp() + x).view(-1), [torch.ones(4, 4)])["ops"]
    assert [o["op"] for o in ops] == ["exp", "add", "view"]
    exp, add, view = ops
    x, y = exp["inputs"][0]["storage"], exp["outputs"][0]["storage"]
    assert x != y and [t["storage"] for t in add["inputs"]] == [y, x]
    assert view["outputs"][0]["storage"] == view["inputs"][0]["storage"] == add["outputs"][0]["storage"]
