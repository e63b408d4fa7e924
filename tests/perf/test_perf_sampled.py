"""A launch traced on a sample of its blocks (the task's own shapes, runtime/sample.cpp) is estimated as the
whole launch: every untraced block takes the time of the nearest traced block,
and the physics hold at those shapes as they do for a launch traced whole."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from kernelwright.tools.perf.estimate import estimate, stand_in
from kernelwright.tools.perf.trace import KernelTrace, LaunchTrace

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synth import elementwise_block, elementwise_kernel  # noqa: E402


def sampled(blocks: int, traced: list[int], *, tail: int | None = None, **kw) -> KernelTrace:
    """A launch of `blocks` equal blocks (the last one with `tail` tiles) of which only `traced` left a trace."""
    tiles = kw.pop("tiles", 16)
    out = []
    for b in traced:
        bt = elementwise_block(tail if b == blocks - 1 and tail is not None else tiles, kw.get("tile_bytes", 32768),
                               kw.get("buffers", 2))
        bt.block = b
        out.append(bt)
    return KernelTrace(launches=[LaunchTrace(block_dim=blocks, blocks=out, sampled=list(traced))])


def test_stand_in_is_the_nearest_traced_block():
    assert stand_in(5, [0, 24, 47]) == 0 and stand_in(13, [0, 24, 47]) == 24
    assert stand_in(35, [0, 24, 47]) == 24 and stand_in(36, [0, 24, 47]) == 47
    assert stand_in(12, [0, 24, 47]) == 0              # a tie goes to the earlier block
    assert stand_in(3, [0, 7]) == 0


def test_a_sampled_launch_of_equal_blocks_is_estimated_as_the_whole_launch():
    whole = estimate(elementwise_kernel(48, 16, 32768), "Ascend910B2")
    part = estimate(sampled(48, [0, 24, 47]), "Ascend910B2")
    assert part.status == "ok" and part.blocks == 48 and part.cores == 48
    assert part.gm_bytes == whole.gm_bytes
    assert part.device_us == pytest.approx(whole.device_us)
    assert any("3 of 48 blocks traced" in n for n in part.notes)


def test_a_short_last_block_stands_in_for_the_blocks_nearer_to_it():
    short = estimate(sampled(48, [0, 24, 47], tail=2), "Ascend910B2")
    even = estimate(elementwise_kernel(48, 16, 32768), "Ascend910B2")
    assert 0.7 * even.gm_bytes < short.gm_bytes < even.gm_bytes         # blocks 36-47 counted as short
    assert short.bound_us * 0.999 <= short.device_us <= even.device_us


def test_physics_at_the_task_shapes():
    soc = "Ascend910B2"
    one = estimate(sampled(48, [0, 24, 47], tiles=16), soc)
    two = estimate(sampled(48, [0, 24, 47], tiles=32), soc)
    assert one.device_us >= one.bound_us * 0.999                 # nothing beats the SoC's floor
    assert two.device_us == pytest.approx(2 * one.device_us, rel=0.1)   # twice the data, about twice the time
    single = estimate(sampled(48, [0, 24, 47], buffers=1), soc)
    assert one.device_us <= single.device_us                     # double buffering never slower
    alone = estimate(elementwise_kernel(1, 48 * 16, 32768), soc)
    assert alone.device_us > 10 * one.device_us                  # one core of 48 on the same work


def test_a_sampled_launch_missing_a_sampled_block_is_partial():
    t = sampled(48, [0, 24])
    t.launches[0].sampled = [0, 24, 47]
    assert estimate(t, "Ascend910B2").status == "partial"
