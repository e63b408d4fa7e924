"""A trace-only run's blocks cut after a budget of GM bytes and extended by their steady state
(tools/referee/speed_extend.py) are estimated as the blocks run whole, and the physics hold for them."""
from __future__ import annotations

import importlib
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from kernelwright.tools.perf.estimate import estimate
from kernelwright.tools.perf.trace import BlockTrace, KernelTrace, LaunchTrace, TraceBuilder
from kernelwright.tools.referee.speed_extend import Traffic, extend_cut, gm_traffic

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synth import elementwise_block  # noqa: E402

SOC = "Ascend910B2"
TILE = 32768


def launch(blocks: int, tiles: int, *, cut_at: int | None = None, buffers: int = 2, traced=(0, 24, 47),
           addressed: bool = False) -> KernelTrace:
    """`blocks` equal elementwise blocks traced on `traced`; with cut_at, each keeps only its first records."""
    out = []
    for b in traced if blocks > 1 else [0]:
        bt = elementwise_block(tiles, TILE, buffers, addressed=addressed)
        bt.block = b
        if cut_at is not None:
            bt = replace(bt, records=bt.records[:cut_at], cut=True)
        out.append(bt)
    return KernelTrace(launches=[LaunchTrace(block_dim=blocks, blocks=out, sampled=list(traced) if blocks > 1 else [])])


def share(blocks: int, tiles: int) -> Traffic:
    """Two inputs and one output of TILE bytes per tile, each moved once."""
    return Traffic(written_per_output=1.0, read_per_input=1.0, output_bytes=blocks * tiles * TILE,
                   input_bytes=2 * blocks * tiles * TILE)


def test_a_cut_block_extended_by_its_period_is_the_whole_block():
    whole = launch(48, 200)
    got = extend_cut(launch(48, 200, cut_at=300), share(48, 200))
    assert not isinstance(got, str), got
    ext, how = got
    assert ext.complete and "more periods of" in how
    w, e = whole.launches[0].blocks[0].records, ext.launches[0].blocks[0].records
    # the block ends with its last tile's copy out: the last tile's FreeTensor after it is the only record missing
    assert len(e) == len(w) - 1 and np.array_equal(e, w[:-1])      # tokens numbered as the emulator numbers them
    a, b = estimate(whole, SOC), estimate(ext, SOC)
    assert b.gm_bytes == a.gm_bytes and b.device_us == pytest.approx(a.device_us, rel=1e-3)


def test_extended_tiles_read_new_addresses_not_the_prefix_again():
    """The repeats' copies advance by the period's address step: a stream reads each byte once, so the L2 model
    (tools/perf/l2.py) finds no re-read in the extension, as in the whole block."""
    whole = launch(48, 200, addressed=True)
    got = extend_cut(launch(48, 200, cut_at=300, addressed=True), share(48, 200))
    assert not isinstance(got, str), got
    w, e = whole.launches[0].blocks[0].records, got[0].launches[0].blocks[0].records
    assert np.array_equal(e["gm"], w["gm"][:-1])
    a, b = estimate(whole, SOC), estimate(got[0], SOC)
    assert a.l2_bytes == b.l2_bytes == 0 and b.device_us == pytest.approx(a.device_us, rel=1e-3)


def test_physics_hold_for_extended_estimates():
    def est(blocks: int, tiles: int, buffers: int = 2, traced=(0, 24, 47)):
        got = extend_cut(launch(blocks, tiles, cut_at=120, buffers=buffers, traced=traced), share(blocks, tiles))
        assert not isinstance(got, str), got
        return estimate(got[0], SOC)
    one, two = est(48, 64), est(48, 128)
    assert one.device_us >= one.bound_us * 0.999                         # nothing beats the SoC's floor
    assert two.device_us == pytest.approx(2 * one.device_us, rel=0.1)    # twice the data, about twice the time
    assert one.device_us <= est(48, 64, buffers=1).device_us             # double buffering never slower
    assert est(1, 48 * 64, traced=(0,)).device_us > 10 * one.device_us   # one core of 48 on the same work


def two_pass_rows(rows: int, chunks: int) -> BlockTrace:
    """Each row: a pass reading its chunks (a max), then a pass reading them again and writing the results."""
    t = TraceBuilder()
    for _ in range(rows):
        for _ in range(chunks):
            t.copy("GM", "UB", TILE).vec("ReduceMax", "float", 128)
        for _ in range(chunks):
            t.copy("GM", "UB", TILE).vec("Exp", "float", 128).copy("UB", "GM", TILE)
    return t.build()


def test_the_steady_state_of_a_block_is_its_outer_loop_not_the_last_pass():
    """Cut inside a row's second pass, the prefix ends with many repeats of that pass's chunk; extending by it
    would leave every later row's first pass out. The period must span most of the prefix: whole rows."""
    rows, chunks = 40, 12
    whole = two_pass_rows(rows, chunks)
    per_row = len(whole.records) // rows
    traffic = Traffic(1.0, 2.0, output_bytes=rows * chunks * TILE, input_bytes=rows * chunks * TILE)

    def cut_at(n: int):
        b = replace(whole, records=whole.records[:n], cut=True)
        return extend_cut(KernelTrace(launches=[LaunchTrace(block_dim=1, blocks=[b])]), traffic)

    got = cut_at(int(4.5 * per_row))
    assert not isinstance(got, str), got
    assert f"periods of {per_row} " in got[1]
    ext = got[0].launches[0].blocks[0].records
    assert len(ext) == len(whole.records) and np.array_equal(ext, whole.records)
    assert "no period repeats" in cut_at(int(1.5 * per_row))      # a row and a half: its last pass is no steady state
    assert "writes nothing" in cut_at(int(0.3 * per_row))         # inside the first reading pass


def test_a_prefix_without_a_steady_state_is_not_extended():
    t = TraceBuilder().copy("GM", "UB", 4096).vec("Add", "float", 16).copy("UB", "GM", 4096).build()
    trace = KernelTrace(launches=[LaunchTrace(block_dim=1, blocks=[replace(t, cut=True)])])
    got = extend_cut(trace, share(1, 100))
    assert isinstance(got, str) and "no period repeats" in got
    synced = launch(4, 50, cut_at=200, traced=(0,))
    b = synced.launches[0].blocks[0]
    synced.launches[0].blocks[0] = replace(b, records=np.concatenate([TraceBuilder().sync_all().build().records,
                                                                       b.records]))
    assert "SyncAll" in extend_cut(synced, share(4, 50))


def test_a_block_that_rewrites_its_outputs_at_the_task_shapes_is_not_extended():
    """Written twice per output byte at the task's shapes (the runtime counted half the written bytes as distinct
    output bytes) against once at the shrunk shapes: a count by written bytes would stop halfway."""
    cut = launch(48, 200, cut_at=300)
    written = gm_traffic(KernelTrace(launches=[LaunchTrace(block_dim=1, blocks=cut.launches[0].blocks[:1])]))[1]
    for b in cut.launches[0].blocks:
        b.cut_out_bytes = written // 2
    got = extend_cut(cut, share(48, 200))
    assert isinstance(got, str) and "2.00 GM bytes per output byte" in got
    for b in cut.launches[0].blocks:
        b.cut_out_bytes = written
    assert not isinstance(extend_cut(cut, share(48, 200)), str)


def test_gm_traffic_counts_copies_to_and_from_gm_only():
    t = TraceBuilder().copy("GM", "UB", 1000, count=3).copy("UB", "GM", 500).copy("UB", "UB", 99).build()
    assert gm_traffic(KernelTrace(launches=[LaunchTrace(block_dim=1, blocks=[t])])) == (3000, 500)


TILED = r'''
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void tiled(GM_ADDR x, GM_ADDR y, uint32_t tiles, uint32_t tile) {
    TPipe pipe;
    TQue<QuePosition::VECIN, 2> inQ;
    TQue<QuePosition::VECOUT, 2> outQ;
    pipe.InitBuffer(inQ, 2, tile * sizeof(float));
    pipe.InitBuffer(outQ, 2, tile * sizeof(float));
    GlobalTensor<float> xg, yg;
    xg.SetGlobalBuffer((__gm__ float*)x + GetBlockIdx() * tiles * tile, tiles * tile);
    yg.SetGlobalBuffer((__gm__ float*)y + GetBlockIdx() * tiles * tile, tiles * tile);
    for (uint32_t i = 0; i < tiles; ++i) {
        LocalTensor<float> a = inQ.AllocTensor<float>();
        DataCopy(a, xg[i * tile], tile);
        inQ.EnQue(a);
        LocalTensor<float> b = inQ.DeQue<float>();
        LocalTensor<float> c = outQ.AllocTensor<float>();
        Muls(c, b, 2.0f, tile);
        outQ.EnQue(c);
        inQ.FreeTensor(b);
        LocalTensor<float> d = outQ.DeQue<float>();
        DataCopy(yg[i * tile], d, tile);
        outQ.FreeTensor(d);
    }
}
'''


def test_the_emulator_cuts_a_trace_only_block_at_its_budget_and_the_extension_matches_the_whole_run(sim):
    from kernelwright.tools.toolchain import ArgSpec, Case, OutputSpec
    from tests.sim.test_sim_driver import launch_project
    b = sim.build(launch_project(TILED, "tiled"))
    assert b.ok, [d.render() for d in b.diagnostics]
    blocks, tiles, tile = 8, 64, 1024
    x = np.broadcast_to(np.zeros((), np.float32), (blocks * tiles * tile,))
    case = Case(inputs={"x": x}, outputs={"y": OutputSpec(shape=x.shape, dtype="float32")}, block_dim=blocks,
                timeout_s=20.0, trace_only=True, sample_blocks=3,
                args=[ArgSpec(kind="tensor", name="x"), ArgSpec(kind="tensor", name="y"),
                      ArgSpec(kind="int", value=tiles), ArgSpec(kind="int", value=tile)])
    whole = sim.run(b, case)
    cut = sim.run(b, case.model_copy(update={"trace_budget": 16 * 2 * 4 * tile}))   # 16 tiles in and out
    assert whole.status == cut.status == "ok", (cut.detail, [d.render() for d in cut.diagnostics])
    assert whole.trace.complete and not cut.trace.complete and not whole.outputs
    assert all(bt.cut for bt in cut.trace.launches[0].blocks)
    # the output pages each cut block touched: what it wrote (one 4 KB page per tile), not the earlier blocks' pages
    written = [gm_traffic(KernelTrace(launches=[LaunchTrace(block_dim=1, blocks=[bt])]))[1]
               for bt in cut.trace.launches[0].blocks]
    assert [bt.cut_out_bytes for bt in cut.trace.launches[0].blocks] == written
    assert len(cut.trace.launches[0].blocks[0].records) < len(whole.trace.launches[0].blocks[0].records) / 3
    nbytes = x.size * 4
    got = extend_cut(cut.trace, Traffic(1.0, 1.0, output_bytes=nbytes, input_bytes=nbytes))
    assert not isinstance(got, str), got
    a, e = estimate(whole.trace, SOC), estimate(got[0], SOC)
    assert e.gm_bytes == pytest.approx(a.gm_bytes, rel=0.02)
    assert e.device_us == pytest.approx(a.device_us, rel=0.02)


def synced_block(tiles: int) -> BlockTrace:
    """A first phase reading partial results, a SyncAll, then an elementwise last phase over `tiles` tiles."""
    head = TraceBuilder()
    for _ in range(4):
        head.copy("GM", "UB", 1024).vec("ReduceSum", "float", 4)
    head.sync_all()
    tail = elementwise_block(tiles, TILE, 2)
    return BlockTrace(block=0, records=np.concatenate([head.build().records, tail.records]), names=tail.names)


def test_a_block_with_a_syncall_is_extended_in_its_last_phase_only():
    whole = synced_block(200)
    traffic = Traffic(1.0, 1.0, output_bytes=200 * TILE, input_bytes=2 * 200 * TILE + 4096, syncalls=1)

    def cut(n: int, t: Traffic):
        b = replace(whole, records=whole.records[:n], cut=True)
        return extend_cut(KernelTrace(launches=[LaunchTrace(block_dim=1, blocks=[b])]), t)

    got = cut(300, traffic)
    assert not isinstance(got, str), got
    e = got[0].launches[0].blocks[0].records
    assert len(e) == len(whole.records) - 1 and np.array_equal(e, whole.records[:-1])
    a = estimate(KernelTrace(launches=[LaunchTrace(block_dim=1, blocks=[whole])]), SOC)
    assert estimate(got[0], SOC).device_us == pytest.approx(a.device_us, rel=1e-3)
    # a kernel whose blocks made two SyncAlls at the shrunk shapes: this cut fell in an earlier phase
    assert "holds 1 SyncAll(s), every block made 2" in cut(300, replace(traffic, syncalls=2))
    assert "holds 0 SyncAll(s), every block made 1" in cut(6, traffic)   # a cut in the first phase


def test_the_pipe_model_times_an_extension_by_its_steady_state_as_if_walked(monkeypatch):
    """An extended block (BlockTrace.period) is walked until steady, the rest added by its step: the same times as
    walking every record, for single and double buffering, rows of two passes and a scalar unit that runs ahead."""
    estimate_mod = importlib.import_module("kernelwright.tools.perf.estimate")
    import kernelwright.tools.perf.pipes as pipes
    rows = two_pass_rows(60, 6)
    per_row = len(rows.records) // 60
    cases = [(launch(48, 400, cut_at=300, buffers=b), share(48, 400)) for b in (1, 2)] + [
        (KernelTrace(launches=[LaunchTrace(block_dim=1, blocks=[replace(rows, records=rows.records[:5 * per_row],
                                                                          cut=True)])]),
         Traffic(1.0, 2.0, output_bytes=60 * 6 * TILE, input_bytes=60 * 6 * TILE))]
    walked, calls = [], []
    real, block = pipes._walk, pipes.run_block
    monkeypatch.setattr(pipes, "_walk", lambda c, *cols: (walked.append(len(cols[0])), real(c, *cols))[1])
    monkeypatch.setattr(estimate_mod, "run_block", lambda b, *a: (calls.append(len(b.records)), block(b, *a))[1])
    for cut, traffic in cases:
        got = extend_cut(cut, traffic)
        assert not isinstance(got, str), got
        ext = got[0]
        assert all(b.period is not None for lt in ext.launches for b in lt.blocks)
        walked.clear(), calls.clear()
        fast = estimate(ext, SOC)
        assert calls and sum(walked) < sum(calls) / 4     # most repeats were not walked
        for lt in ext.launches:
            for b in lt.blocks:
                b.period = None
        slow = estimate(ext, SOC)
        assert fast.device_us == pytest.approx(slow.device_us, rel=1e-9)
        busy = {p: u.busy_us for p, u in slow.pipes.items()}
        assert {p: u.busy_us for p, u in fast.pipes.items()} == pytest.approx(busy, rel=1e-9)


def random_periodic_block(seed: int) -> tuple[BlockTrace, int]:
    """A random prologue, then a random body of copies, vector ops, scalar work and barriers repeated 10-150 times,
    with flags released in one repeat and acquired in the same or one of the next two (or never released)."""
    import random
    rnd = random.Random(seed)
    t = TraceBuilder()
    for _ in range(rnd.randint(0, 20)):
        rnd.choice([lambda: t.copy("GM", "UB", 8192), lambda: t.vec("Mul", "float", 8), lambda: t.barrier()])()
    ops = [(rnd.randint(0, 6), rnd.choice([256, 4096, 32768]), rnd.randint(1, 64)) for _ in range(rnd.randint(2, 10))]
    pipes = ["V", "MTE2", "MTE3", "S"]
    pairs = []
    for _ in range(rnd.randint(0, 3)):
        i, j = rnd.randint(0, len(ops)), rnd.randint(0, len(ops))
        pairs.append((i, j, rnd.randint(0 if j > i else 1, 2), rnd.choice(pipes), rnd.choice(pipes)))
    start, tokens = len(t.rows), {}
    for k in range(rnd.randint(10, 150)):
        for pos in range(len(ops) + 1):
            for n, (i, j, d, rel, acq) in enumerate(pairs):
                if j == pos:
                    t.acquire(acq, tokens.get((n, k - d), 10 ** 6 + n))
                if i == pos:
                    tokens[(n, k)] = t.release(rel)
            if pos < len(ops):
                c, nbytes, reps = ops[pos]
                [lambda: t.copy("GM", "UB", nbytes), lambda: t.copy("GM", "UB", nbytes),
                 lambda: t.copy("UB", "GM", nbytes), lambda: t.vec("Exp", "float", reps), lambda: t.vec("Add", "float", reps),
                 lambda: t.scalar("GetValue", count=reps), lambda: t.barrier()][c]()
    return t.build(), start


def test_the_steady_state_jump_equals_walking_on_random_periodic_blocks():
    import kernelwright.tools.perf.pipes as pipes
    for seed in range(40):
        b, start = random_periodic_block(seed)
        rows = len(b.records) - start
        p = next(p for p in range(1, rows + 1) if rows % p == 0 and np.array_equal(
            b.records[start:]["kind"].reshape(-1, p), np.tile(b.records[start:start + p]["kind"], (rows // p, 1))))
        fast = pipes.run_block(replace(b, period=(start, p)), 7.0, 20.0)
        slow = pipes.run_block(b, 7.0, 20.0)
        assert fast.cycles == pytest.approx(slow.cycles, rel=1e-9), seed
        assert fast.busy == pytest.approx(slow.busy, rel=1e-9), seed


def test_a_syncall_the_shrunk_shapes_did_not_make_is_extended_only_where_the_outputs_are_written():
    """At the task's shapes the kernel took a path with a SyncAll (rows split across cores) that the shrunk shapes
    did not: the last phase is extended when its period writes the task's outputs, which the cut block touched."""
    whole = synced_block(200)
    traffic = Traffic(1.0, 1.0, output_bytes=200 * TILE, input_bytes=2 * 200 * TILE + 4096, syncalls=0)
    cut = replace(whole, records=whole.records[:300], cut=True)

    def extended(touched: int):
        cut.cut_out_bytes = touched
        return extend_cut(KernelTrace(launches=[LaunchTrace(block_dim=1, blocks=[cut])]), traffic)

    written = gm_traffic(KernelTrace(launches=[LaunchTrace(block_dim=1, blocks=[cut])]))[1]
    got = extended(written)
    assert not isinstance(got, str), got
    assert np.array_equal(got[0].launches[0].blocks[0].records, whole.records[:-1])
    assert "does not write the task's outputs" in extended(0)
    # rounds: a SyncAll per few rows recurs, so the phase after the last one is one round's, not the rest's
    rounds = BlockTrace(block=0, records=np.concatenate([synced_block(20).records] * 10), names=whole.names)
    cut = replace(rounds, records=rounds.records[:len(rounds.records) // 2], cut=True, cut_out_bytes=written)
    why = extend_cut(KernelTrace(launches=[LaunchTrace(block_dim=1, blocks=[cut])]), traffic)
    assert isinstance(why, str) and "phases recur" in why


def test_a_cut_before_a_last_combine_is_extended_only_when_the_combine_moved_little_at_the_shrunk_shapes():
    """Rows, then a SyncAll and a combine of the blocks' partial results: a cut in the rows extends them and leaves
    the combine out when it moved under LATER_PHASES of a block's GM bytes at the shrunk shapes, else it is refused."""
    from kernelwright.tools.referee.speed_extend import later_share
    t = TraceBuilder()
    for _ in range(300):
        t.copy("GM", "UB", TILE).vec("ReduceSum", "float", 128)
    rows = t.build()
    combine = TraceBuilder().sync_all().copy("GM", "UB", 192).vec("Add", "float", 1).copy("UB", "GM", 32).build()
    whole = BlockTrace(block=0, records=np.concatenate([rows.records, combine.records]), names=rows.names)
    assert 0 < later_share(whole.records) < 0.001
    cut = replace(whole, records=whole.records[:200], cut=True)
    trace = KernelTrace(launches=[LaunchTrace(block_dim=1, blocks=[cut])])
    traffic = Traffic(0.0, 1.0, output_bytes=4, input_bytes=300 * TILE, syncalls=1, later=later_share(whole.records))
    got = extend_cut(trace, traffic)
    assert not isinstance(got, str), got
    assert "left out" in got[1]
    assert len(got[0].launches[0].blocks[0].records) == len(rows.records) - 1     # it ends with the last copy
    assert "SyncAll" in extend_cut(trace, replace(traffic, later=0.2))
