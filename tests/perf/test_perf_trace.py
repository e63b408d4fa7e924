"""The emulation's instruction trace: what each pipe did, in order, with the synchronisation between
pipes as release/acquire tokens; and the cost model over real emulated kernels."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from kernelwright.tools.perf.estimate import estimate
from kernelwright.tools.perf.trace import ACQ, COPY, KINDS, PIPES, REL, SCALAR, VEC
from kernelwright.tools.project import KernelProject
from kernelwright.tools.toolchain import ArgSpec, Case, OutputSpec

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "sim"))
import sim_harness_ops as h  # noqa: E402

pytestmark = pytest.mark.skipif(not h.have_compiler(), reason="clang++-16 not installed")

# y = x * 2 + 1 over `tiles` tiles per block, through queues with `buffers` buffers each (1 or 2);
# then a strided DataCopyPad of the first tile's rows and a scalar read loop.
PIPELINE = r'''
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void pipeline(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t tile, uint32_t tiles,
                                               uint32_t buffers) {
    TPipe pipe;
    TQue<QuePosition::VECIN, 2> inQ;
    TQue<QuePosition::VECOUT, 2> outQ;
    TBuf<TPosition::VECCALC> tmp;
    pipe.InitBuffer(inQ, buffers, tile * sizeof(float));
    pipe.InitBuffer(outQ, buffers, tile * sizeof(float));
    pipe.InitBuffer(tmp, 256);
    GlobalTensor<float> xg, yg, zg;
    uint32_t per = tile * tiles;
    xg.SetGlobalBuffer((__gm__ float*)x + GetBlockIdx() * per, per);
    yg.SetGlobalBuffer((__gm__ float*)y + GetBlockIdx() * per, per);
    zg.SetGlobalBuffer((__gm__ float*)z + GetBlockIdx() * 64, 64);
    for (uint32_t i = 0; i < tiles; ++i) {
        LocalTensor<float> a = inQ.AllocTensor<float>();
        DataCopy(a, xg[i * tile], tile);
        inQ.EnQue(a);
        LocalTensor<float> b = inQ.DeQue<float>();
        LocalTensor<float> c = outQ.AllocTensor<float>();
        Muls(c, b, 2.0f, tile);
        Adds(c, c, 1.0f, tile);
        outQ.EnQue(c);
        inQ.FreeTensor(b);
        LocalTensor<float> d = outQ.DeQue<float>();
        DataCopy(yg[i * tile], d, tile);
        outQ.FreeTensor(d);
    }
    LocalTensor<float> t = tmp.Get<float>();
    DataCopyPad(t, xg, DataCopyExtParams{8, 8 * sizeof(float), 120, 0, 0}, DataCopyPadExtParams<float>{false, 0, 0, 0});
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    Muls(t, t, 3.0f, 64);
    float s = 0;
    for (int k = 0; k < 64; ++k) s += t.GetValue(k);
    t.SetValue(0, s);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(zg, t, 64);
}
'''


@pytest.fixture(scope="module")
def built(sim):
    b = sim.build(KernelProject(name="pipeline", kind="kernel_launch", files={"pipeline.cpp": PIPELINE}))
    assert b.ok, [d.render() for d in b.diagnostics]
    return b


def run(sim, built, *, blocks=4, tile=2048, tiles=6, buffers=2):
    n = blocks * tile * tiles
    x = np.arange(n, dtype=np.float32) % 97
    case = Case(inputs={"x": x}, outputs={"y": OutputSpec(shape=(n,), dtype="float32"),
                                          "z": OutputSpec(shape=(blocks * 64,), dtype="float32")},
                block_dim=blocks, timeout_s=60,
                args=[ArgSpec(kind="tensor", name="x"), ArgSpec(kind="tensor", name="y"), ArgSpec(kind="tensor", name="z"),
                      ArgSpec(kind="int", value=tile), ArgSpec(kind="int", value=tiles), ArgSpec(kind="int", value=buffers)])
    r = sim.run(built, case)
    assert r.status == "ok", (r.detail, [d.render() for d in r.diagnostics])
    np.testing.assert_array_equal(r.outputs["y"], x * 2 + 1)
    return r


def rows(block):
    out = []
    for rec in block.records:
        pipe = PIPES[rec["pipe"]] if rec["pipe"] < len(PIPES) else "ALL"
        out.append((KINDS[rec["kind"]], pipe, block.names[rec["name"]], int(rec["count"]), int(rec["x"]), int(rec["y"]),
                    int(rec["z"])))
    return out


def test_trace_records_each_pipes_instructions_and_their_synchronisation(sim, built):
    r = run(sim, built, blocks=2, tiles=2)
    trace = r.trace
    assert trace.complete and len(trace.launches) == 1
    launch = trace.launches[0]
    assert (launch.block_dim, launch.ratio, [b.block for b in launch.blocks]) == (2, 1, [0, 1])
    block = launch.blocks[0]
    recs = rows(block)
    copies = [x for x in recs if x[0] == "copy"]
    assert copies[0][:2] == ("copy", "MTE2") and copies[0][5] == 2048 * 4       # DataCopy in: one burst of the tile
    assert ("copy", "MTE3") == copies[1][:2]
    vecs = [x for x in recs if x[0] == "vector"]
    assert [(v[2], v[4], v[5]) for v in vecs[:2]] == [("Muls", 32, 2048), ("Adds", 32, 2048)]   # repeats, elements
    # DeQue on V waits for the EnQue token MTE2 released; the first tile's AllocTensor waits for nothing
    first_rel = next(x for x in recs if x[0] == "release")
    assert first_rel[1:3] == ("MTE2", "EnQue")
    assert next(x for x in recs if x[0] == "acquire")[1:5] == ("V", "DeQue", 1, first_rel[4])
    # the strided DataCopyPad: 8 bursts of 32 bytes, 120 bytes apart on the GM side
    pad = copies[-2]
    assert (pad[4], pad[5], pad[6] & 0xFFFFFFFF, pad[6] >> 32) == (8, 256, 32, 120)
    # GetValue after the vector op: the scalar unit waits for V (auto-sync), then 64 reads in one record
    tokens = {x[4]: x for x in recs if x[0] == "release"}
    auto = [x for x in recs if x[0] == "acquire" and x[2] == "auto-sync"]
    assert auto and auto[0][1] == "S" and tokens[auto[0][4]][1] == "V"
    reads = [x for x in recs if x[0] == "scalar" and x[2] == "local_read"]
    assert reads == [("scalar", "S", "local_read", 64, 0, 0, 0)]
    kinds = block.records["kind"]
    assert set(np.unique(kinds)) <= {COPY, VEC, SCALAR, REL, ACQ}
    # each copy records its first GM sector (for the L2 model): the second tile starts a tile later, the
    # DataCopyPad re-reads the first tile's start
    sectors = [int(g) for g in block.records["gm"][kinds == COPY]]
    assert all(g >> 31 for g in sectors)
    loads = sectors[0::2][:2]
    assert loads[1] - loads[0] == 2048 * 4 // 32 and sectors[-2] == loads[0]


def test_double_buffering_is_estimated_faster_on_an_emulated_kernel(sim, built):
    single = estimate(run(sim, built, buffers=1).trace, "Ascend910B2")
    double = estimate(run(sim, built, buffers=2).trace, "Ascend910B2")
    assert single.status == double.status == "ok"
    assert double.device_us < single.device_us
    assert double.device_us >= double.bound_us


def test_more_tiles_take_proportionally_longer_and_more_blocks_spread_the_work(sim, built):
    base = estimate(run(sim, built, blocks=2, tiles=4).trace, "Ascend910B2")
    more = estimate(run(sim, built, blocks=2, tiles=8).trace, "Ascend910B2")
    wide = estimate(run(sim, built, blocks=8, tiles=2).trace, "Ascend910B2")
    assert 1.6 < more.device_us / base.device_us < 2.2
    assert wide.device_us < more.device_us / 2
    assert 2 * base.gm_bytes - more.gm_bytes == 2 * (256 + 256)   # the tail copies (pad in, z out) once per block
