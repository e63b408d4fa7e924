"""Shrinking for the emulation keeps rank, dtype, broadcast structure and awkward residues, and
respects the element budget."""
import math
import random

import pytest

from kernelwright.tools.dtypes import BY_NAME
from kernelwright.tools.tasks.shrink import Shape, plan_shrink

CORES = 48


def _random_case(rng: random.Random) -> list[Shape]:
    pool = [1, 1, 3, 7, 48, 64, 100, 129, 1000, 1025, 4096, 4099, 65536, 393216]
    dims = [rng.choice(pool) for _ in range(rng.randint(1, 4))]
    dtype = rng.choice(["float32", "float16", "bfloat16", "int8", "int32"])
    shapes = [Shape(dims=dims, dtype=dtype)]
    if rng.random() < 0.6:   # a broadcast partner: trailing dims, some set to 1
        tail = dims[rng.randint(0, len(dims) - 1):]
        shapes.append(Shape(dims=[d if rng.random() < 0.7 else 1 for d in tail], dtype=dtype))
    return shapes


@pytest.mark.parametrize("seed", range(60))
def test_shrink_properties(seed):
    shapes = _random_case(random.Random(seed))
    budget = 1 << 16
    plan = plan_shrink(shapes, budget=budget, cores=CORES)
    after = [plan.apply(s.dims) for s in shapes]
    if plan.fits:
        assert plan.elements_after == sum(math.prod(a) for a in after) <= budget
    else:
        assert plan.mapping == {} and "no smaller dims" in plan.reason
    values = sorted({d for s in shapes for d in s.dims})
    images = [plan.mapping.get(d, d) for d in values]
    assert len(set(images)) == len(images), "different dims must stay different"
    for s, a in zip(shapes, after):
        assert len(a) == len(s.dims), "rank kept"
        for d, e in zip(s.dims, a):
            assert (d == 1) == (e == 1), "size-1 dims stay 1, others never become 1"
            assert e <= d
    for d, e in plan.mapping.items():
        if plan.kept == "last-block" and not any(s.dims[-1] == d for s in shapes):
            continue                     # the last level keeps the block residue of last dims only
        block = max(max(1, 32 // BY_NAME[s.dtype].size) for s in shapes if d in s.dims)
        assert e % block == d % block, f"{d}->{e} loses its residue modulo the 32-byte block ({block} elements)"
        if plan.kept not in ("block", "last-block"):
            assert e % CORES == d % CORES, f"{d}->{e} loses its residue modulo the core count"


def test_a_case_within_budget_is_left_alone():
    plan = plan_shrink([Shape(dims=[37, 1000], dtype="float32")], budget=1 << 18, cores=CORES)
    assert plan.mapping == {} and plan.kept == "" and plan.fits


def test_billions_of_elements_shrink_keeping_power_of_two_factors_and_core_residues():
    # MKB sigmoid [4096, 393216]: a tiling of total / 8 blocks / 32 tiles needs the sizes' power-of-two
    # factors; [16, 49344] (residues only) gave 3084-element tiles and an unaligned DataCopy
    plan = plan_shrink([Shape(dims=[4096, 393216], dtype="float32")], budget=1 << 18, cores=CORES)
    assert plan.apply([4096, 393216]) == [256, 768] and plan.kept == "pow2<=256+repeat+cores"
    rows, cols = plan.apply([4096, 393216])
    assert rows * cols % (8 * 32 * 8) == 0                      # whole 32-byte tiles again
    assert rows % 48 == 4096 % 48 and cols % 48 == 393216 % 48   # and the core residues


def test_equal_dims_stay_equal_across_inputs_and_tails_stay_tails():
    x, w = Shape(dims=[8192, 4099], dtype="float16"), Shape(dims=[4099], dtype="float16")
    plan = plan_shrink([x, w], budget=1 << 16, cores=CORES)
    (rows, cols), (wcols,) = plan.apply(x.dims), plan.apply(w.dims)
    assert cols == wcols and cols % 16 == 4099 % 16 == 3      # still 3 elements past a 32-byte block
    assert rows * cols + wcols <= 1 << 16


def test_a_row_that_overflowed_ub_still_does_when_the_budget_allows():
    x = Shape(dims=[8, 200000], dtype="float32")             # 800 KB rows; UB is 192 KB
    plan = plan_shrink([x], budget=1 << 20, cores=CORES)
    rows, cols = plan.apply(x.dims)
    assert plan.kept.endswith("+ub") and cols * 4 > 196608 and rows * cols <= 1 << 20
    assert (rows, cols) == (8, 49280)   # 200000 = 49280 (mod 192), and 2^6 divides both


def test_unshrinkable_case_says_why():
    plan = plan_shrink([Shape(dims=[8] * 8, dtype="float32")], budget=1 << 10, cores=CORES)
    assert not plan.fits and plan.elements_after == 8 ** 8 and "1024 elements" in plan.reason


def test_reduction_dims_keep_their_length_when_the_rest_can_shrink():
    a, b, c = (Shape(dims=d, dtype="float32") for d in ([2048, 8192], [8192, 4096], [2048, 4096]))
    plan = plan_shrink([a, b], budget=1 << 20, cores=CORES, outputs=[c])
    assert plan.fits and plan.reduction == [8192] and 8192 not in plan.mapping    # K of the matmul stays 8192
    assert plan.apply(a.dims)[1] == 8192 and plan.elements_after <= 1 << 20
    huge = [Shape(dims=[256, 524288], dtype="float32"), Shape(dims=[524288, 256], dtype="float32")]
    plan = plan_shrink(huge, budget=1 << 20, cores=CORES, outputs=[Shape(dims=[256, 256], dtype="float32")])
    assert plan.fits and plan.reduction == [] and 524288 in plan.mapping           # too long to keep: shrunk
    assert plan_shrink([a, b], budget=1 << 20, cores=CORES).mapping.get(8192)       # without outputs: as before


def test_a_dim_a_window_slides_over_stays_at_least_its_floor():
    # MKB conv_standard_2d_square_input_asymmetric_kernel_dilated_padded: kernel (5, 9), dilation (2, 3), padding
    # (2, 4): W needs 3 * 8 + 1 - 8 = 17; shrunk to 16 the reference failed ("Kernel size can't be greater")
    x, w = Shape(dims=[8, 32, 512, 512], dtype="float32"), Shape(dims=[64, 32, 5, 9], dtype="float32")
    out = Shape(dims=[8, 64, 508, 496], dtype="float32")
    assert plan_shrink([x, w], budget=1 << 20, cores=CORES, outputs=[out]).mapping[512] < 17
    plan = plan_shrink([x, w], budget=1 << 20, cores=CORES, outputs=[out], floors={512: 17})
    assert plan.fits and 17 <= plan.mapping[512] < 512 and plan.elements_after <= 1 << 20


def test_distinct_block_multiples_that_run_out_of_values_shrink_their_leading_dims_freely():
    # MKB conv_transposed_3d_asymmetric_input_square_kernel: 8, 48, 96 and 24 are all multiples of the 8-element
    # block and must stay distinct: at the block level 8, 16, 24, 32 are used up before the case fits
    x, w = Shape(dims=[8, 48, 96, 96, 96], dtype="float32"), Shape(dims=[48, 24, 3, 3, 3], dtype="float32")
    out = Shape(dims=[8, 24, 98, 98, 98], dtype="float32")
    plan = plan_shrink([x, w], budget=1 << 20, cores=CORES, outputs=[out])
    assert plan.fits and plan.kept == "last-block" and plan.elements_after <= 1 << 20
    assert plan.mapping[96] % 8 == 0 and plan.mapping[96] < 96        # the last dim keeps its block residue
    assert len(set(plan.mapping.values()) | {8, 24, 3}) == len(plan.mapping) + 3   # distinct dims stay distinct


def test_a_group_norm_shrinks_its_channels_and_its_group_count_alike():
    # MKB matmul_group_norm_leaky_relu_sum: Linear 8192 -> 8192, GroupNorm(512 groups). Shrunk to 512 channels in the
    # task's 512 groups, each group held one channel (46 of 524288 elements outside MKB's bar)
    x, w, gw = (Shape(dims=d, dtype="float32") for d in ([1024, 8192], [8192, 8192], [8192]))
    out = Shape(dims=[1024, 8192], dtype="float32")
    plan = plan_shrink([x, w, gw], budget=1 << 20, cores=CORES, outputs=[out], groups={8192: 512})
    c = plan.mapping[8192]
    assert plan.fits and c < 8192 and c % 16 == 0 and plan.mapping[512] == c // 16
    # no size lands on the group count's value: the Model's constructor asks for the shrunk sizes, which the worker
    # maps again (8192 -> 512, then Linear's 512 x 512 weight -> 32 x 32 as if 512 were the group count)
    assert set(plan.mapping.values()).isdisjoint(plan.mapping)
    # the group count is a dim's value too (it would shrink that dim): the channels stay whole
    small = [Shape(dims=[64, 4096], dtype="float32"), Shape(dims=[4096], dtype="float32"), Shape(dims=[512, 64], dtype="float32")]
    held = plan_shrink(small, budget=1 << 17, cores=CORES, groups={4096: 512})
    assert held.fits and 4096 not in held.mapping and plan_shrink(small, budget=1 << 17, cores=CORES).mapping[4096] < 4096
    # one group, or a group per channel, shrinks with the channels by itself: no rule
    plain = plan_shrink([x, w, gw], budget=1 << 20, cores=CORES, outputs=[out]).mapping
    for g in (1, 8192):
        assert plan_shrink([x, w, gw], budget=1 << 20, cores=CORES, outputs=[out], groups={8192: g}).mapping == plain


def test_a_group_count_the_shrink_cannot_reach_keeps_the_channels_whole():
    from kernelwright.tools.referee.verify import _group_rules
    from kernelwright.tools.tasks.reference import RefShapes, RefValue
    shapes = RefShapes(args=[RefValue(kind="tensor", shape=[1024, 8192], dtype="float32")],
                       init=[RefValue(kind="scalar", value=8192), RefValue(kind="scalar", value=512)],
                       groups={8192: 512, 64: 8, 32: 1})
    assert _group_rules(shapes) == ({64: 64}, {8192: 512})   # GroupNorm(8, 64) written in the model: 64 stays


def test_a_grouped_convolutions_channels_stay_a_multiple_of_its_groups():
    # MKB conv_transposed_3d_..._strided_padded_grouped: 32 channels in 4 groups shrunk to 2 (the reference failed)
    x, w = Shape(dims=[8, 32, 12, 24, 48], dtype="float32"), Shape(dims=[32, 8, 3, 5, 7], dtype="float32")
    out = Shape(dims=[8, 32, 24, 48, 96], dtype="float32")
    assert plan_shrink([x, w], budget=1 << 20, cores=CORES, outputs=[out]).mapping[32] % 4
    plan = plan_shrink([x, w], budget=1 << 20, cores=CORES, outputs=[out], multiples={32: 4})
    assert plan.fits and plan.mapping.get(32, 32) % 4 == 0
