"""The cost model obeys the physics of the SoC: no estimate beats the SoC's bandwidth or compute
bound, double buffering is never slower than single buffering, twice the data on a bandwidth-bound
kernel takes about twice the time, and one core is slower than 48 on the same work."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from kernelwright.tools.hardware import load_soc
from kernelwright.tools.perf import calibration as cal
from kernelwright.tools.perf.estimate import estimate
from kernelwright.tools.perf.trace import TraceBuilder

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synth import elementwise_block, elementwise_kernel, kernel  # noqa: E402

SOC = load_soc("Ascend910B2")


def _bounds(trace) -> tuple[float, float, float]:
    """The SoC's floors computed here, independently of the model: every GM byte at the full HBM
    bandwidth, every vector repeat at the fastest measured rate on every vector core, every fp16
    multiply-add at 16x16x16 per cycle on every cube core."""
    gm = vec = macs = 0.0
    for lt in trace.launches:
        for b in lt.blocks:
            for rec in b.records:
                n = float(rec["count"])
                if rec["kind"] == 1 and 0 in (rec["src"], rec["dst"]):
                    gm += float(rec["y"]) * n
                if rec["kind"] == 2:
                    vec += float(rec["x"]) * 256 * n
                if rec["kind"] == 3:
                    macs += float(rec["y"]) * n
    fastest = max(rate for _, rate in cal.VECTOR.values())
    hz = cal.CLOCK_MHZ * 1e6
    return (gm / cal.HBM_BYTES_PER_S * 1e6, vec / fastest / SOC.aiv_cores / hz * 1e6,
            macs / 4096 / SOC.aic_cores / hz * 1e6)


def matmul_block(tiles: int, m: int = 128, n: int = 256, k: int = 256) -> TraceBuilder:
    """GM -> L1 -> L0A/L0B -> MMAD -> L0C -> GM per tile, each stage handing over by flags."""
    t = TraceBuilder()
    for _ in range(tiles):
        t.copy("GM", "L1", (m + n) * k * 2).flag("MTE2", "MTE1")
        t.copy("L1", "L0A", m * k * 2).copy("L1", "L0B", k * n * 2).flag("MTE1", "M")
        t.cube("half", m, n, k).flag("M", "FIX")
        t.copy("L0C", "GM", m * n * 4).flag("FIX", "MTE2")
    return t


KERNELS = {
    "bandwidth-bound add, 48 blocks": lambda: elementwise_kernel(48, 16, 32768),
    "one block, small tiles": lambda: elementwise_kernel(1, 64, 512, buffers=1),
    "vector-heavy exp": lambda: elementwise_kernel(48, 4, 65536, op="Exp", inputs=1),
    "divide, single buffer": lambda: elementwise_kernel(40, 8, 16384, buffers=1, op="Div"),
    "96 blocks in two waves": lambda: elementwise_kernel(96, 2, 8192),
    "matmul tiles on 24 blocks": lambda: kernel([matmul_block(8).build() for _ in range(24)]),
    "big matmul tiles on 48 blocks": lambda: kernel([matmul_block(2, 256, 512, 2048).build() for _ in range(48)]),
}


@pytest.mark.parametrize("name", list(KERNELS))
def test_no_estimate_beats_the_socs_bounds(name):
    trace = KERNELS[name]()
    est = estimate(trace, SOC)
    gm_floor, vec_floor, cube_floor = _bounds(trace)
    assert est.status == "ok"
    assert est.device_us >= gm_floor * 0.999, (est.device_us, gm_floor)
    assert est.device_us >= vec_floor * 0.999, (est.device_us, vec_floor)
    assert est.device_us >= cube_floor * 0.999, (est.device_us, cube_floor)
    assert est.device_us >= est.bound_us * 0.999
    assert est.kernel_us == pytest.approx(est.device_us + cal.LAUNCH_US)


@pytest.mark.parametrize("blocks,tiles,tile_bytes,op", [(1, 8, 16384, "Add"), (48, 16, 32768, "Add"),
                                                        (8, 32, 4096, "Exp"), (48, 4, 1024, "Div"), (1, 1, 65536, "Add")])
def test_double_buffering_is_never_slower_than_single(blocks, tiles, tile_bytes, op):
    single = estimate(elementwise_kernel(blocks, tiles, tile_bytes, buffers=1, op=op), SOC)
    double = estimate(elementwise_kernel(blocks, tiles, tile_bytes, buffers=2, op=op), SOC)
    assert double.device_us <= single.device_us * 1.0001
    if tiles > 1 and single.bottleneck != "GM":   # copy-in of the next tile overlaps compute and copy-out
        assert double.device_us < single.device_us  # (unless HBM is saturated either way)


def test_double_buffering_overlaps_copy_in_with_compute_on_one_core():
    """With one buffer the next tile's copy-in waits for the vector op that frees its buffer; with two
    it runs under it, and the single core becomes copy-in bound."""
    single = estimate(elementwise_kernel(1, 32, 16384, buffers=1), SOC)
    double = estimate(elementwise_kernel(1, 32, 16384, buffers=2), SOC)
    assert double.device_us < single.device_us * 0.9
    assert double.pipes["MTE2"].share > 0.95 > single.pipes["MTE2"].share


@pytest.mark.parametrize("blocks", [1, 48])
def test_twice_the_data_takes_about_twice_the_time_when_bandwidth_bound(blocks):
    one = estimate(elementwise_kernel(blocks, 16, 32768), SOC)
    two = estimate(elementwise_kernel(blocks, 32, 32768), SOC)
    assert one.bottleneck in ("GM", "MTE2")
    assert 1.85 <= two.device_us / one.device_us <= 2.15


def test_one_core_is_slower_than_48_on_the_same_work():
    spread = estimate(elementwise_kernel(48, 4, 16384), SOC)
    alone = estimate(elementwise_kernel(1, 48 * 4, 16384), SOC)
    assert alone.device_us > spread.device_us * 2
    assert (alone.cores, spread.cores) == (1, 48)


def test_gm_bandwidth_is_shared_by_the_active_cores():
    """48 cores streaming cannot each get their single-core bandwidth: the kernel is HBM-bound."""
    est = estimate(elementwise_kernel(48, 16, 65536), SOC)
    per_core = estimate(elementwise_kernel(1, 16, 65536), SOC)
    assert est.bottleneck == "GM"
    assert est.device_us > per_core.device_us * 1.5
    assert est.device_us == pytest.approx(est.bound_us, rel=0.35)


def test_sync_all_phases_end_together():
    """Each SyncAll phase lasts as long as its slowest block: two blocks slow in different phases
    take longer together than either alone."""
    a, b = TraceBuilder(), TraceBuilder()
    a.copy("GM", "UB", 32768).sync_all().copy("UB", "GM", 1024)
    b.copy("GM", "UB", 1024).sync_all().copy("UB", "GM", 32768)
    both = estimate(kernel([a.build(), b.build()]), SOC).device_us
    pieces = [estimate(kernel([TraceBuilder().copy(s, d, n).build()]), SOC).device_us
              for s, d, n in (("GM", "UB", 32768), ("UB", "GM", 32768))]
    assert both == pytest.approx(sum(pieces) + cal.SYNCALL_CYCLES / cal.CLOCK_MHZ, rel=0.02)


def test_scalar_waits_for_the_pipe_that_wrote_the_data():
    """A GetValue after a vector op stalls the scalar unit, so the next copy is issued late."""
    plain, stalled = TraceBuilder(), TraceBuilder()
    for t in (plain, stalled):
        t.vec("Exp", "float", 200)
        if t is stalled:
            t.acquire("S", t.release("V")).scalar("local_read")
        t.copy("GM", "UB", 1024)
    a, b = estimate(kernel([plain.build()]), SOC), estimate(kernel([stalled.build()]), SOC)
    assert b.device_us > a.device_us


def test_uncalibrated_soc_is_unsupported_not_guessed():
    est = estimate(elementwise_kernel(1, 1, 1024), load_soc("Ascend310P3"))
    assert est.status == "unsupported" and est.kernel_us is None
    assert "no calibrated cost model" in est.notes[0]


def test_equal_blocks_are_timed_once_and_unequal_ones_each():
    blocks = [elementwise_block(2, 4096, 2) for _ in range(3)] + [elementwise_block(6, 4096, 2)]
    est = estimate(kernel(blocks), SOC)
    assert est.blocks == 4 and est.status == "ok"
    longest = estimate(kernel([elementwise_block(6, 4096, 2)]), SOC)
    assert est.device_us >= longest.device_us * 0.99


def test_estimate_run_says_when_there_is_nothing_to_estimate():
    from kernelwright.tools.perf import estimate_run
    from kernelwright.tools.toolchain import RunResult
    failed = estimate_run(RunResult(toolchain="sim", status="crash"), SOC)
    assert failed.status == "unsupported" and "crash" in failed.notes[0]
    ok = estimate_run(RunResult(toolchain="sim", status="ok", trace=elementwise_kernel(2, 2, 4096)), SOC)
    assert ok.status == "ok" and ok.blocks == 2


def test_a_cast_is_costed_as_a_measured_conversion_into_its_destination_dtype():
    # the trace names a Cast's destination dtype; msKPP's VCONV pairs are SRC>DST
    assert cal.vector_cost("Cast", "half")[:2] == cal.VECTOR[("VCONV", "FP32>FP16")]
    assert cal.vector_cost("Cast", "float")[:2] in [v for (i, c), v in cal.VECTOR.items() if c.endswith(">FP32")]
    assert cal.vector_cost("Cast", "int8_t")[:2] == cal.VECTOR[("VCONV", "FP16>INT8")]
