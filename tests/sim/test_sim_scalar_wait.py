"""A wait on the scalar pipe orders everything issued after it: the scalar unit issues every instruction in
order, so after WaitFlag<MTE2_S> no later instruction (an MTE3 copy-out of the loaded bytes) starts before the
load is done (NPUKernelBench ScatterList copies its updates out that way). A wait on another pipe does not."""
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import sim_harness_ops as h  # noqa: E402

pytestmark = pytest.mark.skipif(not h.have_compiler(), reason="clang++-16 not installed")

BODY = r"""
extern "C" __global__ __aicore__ void scalar_wait(GM_ADDR a, GM_ADDR out) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 256);
    GlobalTensor<float> ag, og;
    ag.SetGlobalBuffer((__gm__ float*)a, 64);
    og.SetGlobalBuffer((__gm__ float*)out, 64);
    LocalTensor<float> t = buf.Get<float>();
    DataCopy(t, ag, 64);
    SYNC
    DataCopy(og, t, 64);
}
KW_EXPORT_KERNEL(scalar_wait)
"""


@pytest.mark.parametrize("sync, rules", [
    ("SetFlag<HardEvent::MTE2_S>(0); WaitFlag<HardEvent::MTE2_S>(0);", []),
    ("SetFlag<HardEvent::MTE2_V>(0); WaitFlag<HardEvent::MTE2_V>(0);", ["pipe.hazard.raw"]),
    ("", ["pipe.hazard.raw"]),
])
def test_a_wait_on_the_scalar_pipe_orders_later_copies(tmp_path, sync, rules):
    x = np.arange(64, dtype=np.float32)
    r = h.build_and_run(tmp_path, h.kernel_source(BODY.replace("SYNC", sync)), "scalar_wait",
                        [h.Buf("a", x), h.Buf("out", nbytes=256, role="out")], [("buffer", "a"), ("buffer", "out")])
    assert r.rules("error") == rules, r.diags
    if not rules:
        np.testing.assert_array_equal(r.outputs["out"], x)
