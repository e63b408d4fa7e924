"""InitBuffer with length 0: CANN's CPU debugging asserts, the NPU reserves nothing and runs on. A warning
here (NPUKernelBench CrossEntropyLossGrad sizes an unused buffer 0 for some inputs); using the empty
buffer is an overrun."""
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import sim_harness_ops as h  # noqa: E402

pytestmark = pytest.mark.skipif(not h.have_compiler(), reason="clang++-16 not installed")

BODY = r"""
extern "C" __global__ __aicore__ void zero_buf(GM_ADDR a, GM_ADDR out) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> empty, buf;
    TQue<TPosition::VECIN, 1> q;
    pipe.InitBuffer(empty, 0);
    pipe.InitBuffer(q, 1, 0);
    pipe.InitBuffer(buf, 256);
    GlobalTensor<float> ag, og;
    ag.SetGlobalBuffer((__gm__ float*)a, 64);
    og.SetGlobalBuffer((__gm__ float*)out, 64);
    LocalTensor<float> t = buf.Get<float>();
    DataCopy(t, ag, 64);
    SetFlag<HardEvent::MTE2_V>(0); WaitFlag<HardEvent::MTE2_V>(0);
    USE
    SetFlag<HardEvent::V_MTE3>(0); WaitFlag<HardEvent::V_MTE3>(0);
    DataCopy(og, t, 64);
}
KW_EXPORT_KERNEL(zero_buf)
"""


@pytest.mark.parametrize("use, errors", [
    ("Adds(t, t, 1.0f, 64);", []),
    ("LocalTensor<float> e = empty.Get<float>(); Adds(e, t, 1.0f, 64);", ["ub.out_of_bounds"]),
])
def test_a_zero_length_buffer_is_a_warning_until_used(tmp_path, use, errors):
    x = np.arange(64, dtype=np.float32)
    r = h.build_and_run(tmp_path, h.kernel_source(BODY.replace("USE", use)), "zero_buf",
                        [h.Buf("a", x), h.Buf("out", nbytes=256, role="out")], [("buffer", "a"), ("buffer", "out")])
    assert r.rules("error") == errors, r.diags
    assert r.rules("warning").count("pipe.buffer_length") == 2, r.diags
    if not errors:
        np.testing.assert_array_equal(r.outputs["out"], x + 1)
