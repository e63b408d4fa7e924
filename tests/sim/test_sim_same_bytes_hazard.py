"""An unordered write that stores the bytes already in place changes nothing whatever order the pipes take
(NPUKernelBench MatmulBias reloads the same bias into the bias table on every L0 tile with no MTE1 barrier): it is
a `pipe.hazard.same_bytes` warning. The same missing sync with different bytes stays a hazard (WAW and WAR),
unless the scalar unit read the first load in between: its auto-sync stall orders everything issued after it
(MultiKernelBench cumsum_reverse reloads its UB tile per row after GetValue has read it)."""
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import sim_harness_ops as h  # noqa: E402

pytestmark = pytest.mark.skipif(not h.have_compiler(), reason="clang++-16 not installed")

# Loads a[0:64] into t, then a[SECOND:SECOND+64] into t again with no barrier on MTE2 (WAW); the WAR variant
# reads t on V (Adds into u) before the second load, with no V->MTE2 flag (the loads themselves are ordered).
BODY = r"""
extern "C" __global__ __aicore__ void reload(GM_ADDR a, GM_ADDR out) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf, ubuf;
    pipe.InitBuffer(buf, 256);
    pipe.InitBuffer(ubuf, 256);
    GlobalTensor<float> ag, og;
    ag.SetGlobalBuffer((__gm__ float*)a, 128);
    og.SetGlobalBuffer((__gm__ float*)out, 64);
    LocalTensor<float> t = buf.Get<float>(), u = ubuf.Get<float>();
    DataCopy(t, ag, 64);
    READ
    DataCopy(t, ag[SECOND], 64);
    SetFlag<HardEvent::MTE2_MTE3>(0); WaitFlag<HardEvent::MTE2_MTE3>(0);
    DataCopy(og, t, 64);
}
KW_EXPORT_KERNEL(reload)
"""
READ = "SetFlag<HardEvent::MTE2_V>(0); WaitFlag<HardEvent::MTE2_V>(0); Adds(u, t, 1.0f, 64); PipeBarrier<PIPE_MTE2>();"


@pytest.mark.parametrize("read, second, errors", [
    ("", "0", []),                              # same bytes twice: order cannot matter
    ("", "64", ["pipe.hazard.waw"]),            # different bytes: the later load may land first
    (READ, "0", []),
    (READ, "64", ["pipe.hazard.war"]),          # V may still read t when the new bytes arrive
])
def test_a_reload_of_the_same_bytes_is_no_hazard(tmp_path, read, second, errors):
    x = np.arange(128, dtype=np.float32)
    x[64:] += 1000.0
    src = h.kernel_source(BODY.replace("READ", read).replace("SECOND", second))
    r = h.build_and_run(tmp_path, src, "reload", [h.Buf("a", x), h.Buf("out", nbytes=256, role="out")],
                        [("buffer", "a"), ("buffer", "out")])
    assert r.rules("error") == errors, r.diags
    if not errors:
        assert r.rules("warning") == ["pipe.hazard.same_bytes"], r.diags
        np.testing.assert_array_equal(r.outputs["out"], x[:64])


@pytest.mark.parametrize("read, errors", [
    ("float v = t.GetValue(3); u.SetValue(0, v);", []),   # the scalar unit waited for the first load
    ("u.SetValue(0, 1.0f);", ["pipe.hazard.waw"]),         # a scalar access to other bytes waits for nothing
])
def test_a_scalar_read_of_the_first_load_orders_the_reload(tmp_path, read, errors):
    x = np.arange(128, dtype=np.float32)
    src = h.kernel_source(BODY.replace("READ", read).replace("SECOND", "64"))
    r = h.build_and_run(tmp_path, src, "reload", [h.Buf("a", x), h.Buf("out", nbytes=256, role="out")],
                        [("buffer", "a"), ("buffer", "out")])
    assert r.rules("error") == errors, r.diags
    if not errors:
        np.testing.assert_array_equal(r.outputs["out"], x[64:])


# NPUKernelBench AddRmsNormCast: MTE3 copies out lane 0 of each 32-byte row, then a Gather (V) rewrites the rows
# with no MTE3->V flag. Offsets row*32 keep lane 0 (only lanes MTE3 never reads change); row*32+4 change it.
GATHER = r"""
extern "C" __global__ __aicore__ void lane0(GM_ADDR a, GM_ADDR out) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf, offBuf;
    pipe.InitBuffer(buf, 256);
    pipe.InitBuffer(offBuf, 256);
    GlobalTensor<float> ag, og;
    ag.SetGlobalBuffer((__gm__ float*)a, 64);
    og.SetGlobalBuffer((__gm__ float*)out, 8);
    LocalTensor<float> t = buf.Get<float>();
    LocalTensor<uint32_t> off = offBuf.Get<uint32_t>();
    DataCopy(t, ag, 64);
    for (uint32_t i = 0; i < 8; ++i) Duplicate(off[i * 8], (uint32_t)(i * 32 + SHIFT), 8);
    SetFlag<HardEvent::MTE2_MTE3>(0); WaitFlag<HardEvent::MTE2_MTE3>(0);
    DataCopyPad(og, t, DataCopyParams(8, 4, 0, 0));
    SetFlag<HardEvent::MTE2_V>(0); WaitFlag<HardEvent::MTE2_V>(0);
    Gather(t, t, off, (uint32_t)0, 64);
}
KW_EXPORT_KERNEL(lane0)
"""


@pytest.mark.parametrize("shift, errors", [("0", []), ("4", ["pipe.hazard.war"])])
def test_a_write_that_keeps_the_bytes_an_unordered_reader_reads_is_no_hazard(tmp_path, shift, errors):
    x = np.arange(64, dtype=np.float32)
    r = h.build_and_run(tmp_path, h.kernel_source(GATHER.replace("SHIFT", shift)), "lane0",
                        [h.Buf("a", x), h.Buf("out", nbytes=32, role="out")], [("buffer", "a"), ("buffer", "out")])
    assert r.rules("error") == errors, r.diags
    if not errors:
        assert "pipe.hazard.same_bytes" in r.rules("warning")
        np.testing.assert_array_equal(r.outputs["out"], x[::8])
