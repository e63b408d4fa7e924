"""A count-form instruction that runs past a view shorter than its buffer (TBuf::Get(n)) but stays inside the
buffer touches only bytes the kernel owns: a `ub.past_view` warning, as on the NPU, which checks nothing there
(NPUKernelBench Arange casts 8 floats into Get<float>(0) of an 8-byte TBuf, which InitBuffer rounds to 32 bytes).
Past the buffer it is still ub.out_of_bounds."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import sim_harness_ops as h  # noqa: E402

pytestmark = pytest.mark.skipif(not h.have_compiler(), reason="clang++-16 not installed")

KERNEL = r"""
extern "C" __global__ __aicore__ void view(GM_ADDR a, GM_ADDR out, int32_t count) {
    TPipe pipe;
    In<float> x; x.load(pipe, a, 64);
    Out<float> o; o.init(pipe, out, 64);
    TBuf<QuePosition::VECCALC> small, next;
    pipe.InitBuffer(small, 8);
    pipe.InitBuffer(next, 64);
    LocalTensor<float> v = small.Get<float>(0);
    Duplicate(v, 3.0f, count);
    Adds(o.t, x.t, v.GetValue(0), 64);
    o.store();
}
KW_EXPORT_KERNEL(view)
"""


@pytest.mark.parametrize("count,rule", [(8, None), (16, "ub.out_of_bounds")])
def test_writes_past_a_short_view(tmp_path, count, rule):
    a = np.arange(64, dtype=np.float32)
    r = h.build_and_run(tmp_path, h.kernel_source(KERNEL), "view",
                        [h.Buf("a", a), h.Buf("out", nbytes=256, role="out", dtype="float32")],
                        [("buffer", "a"), ("buffer", "out"), ("int", count)])
    if rule is None:
        assert r.status == 0, r.diags
        assert "ub.past_view" in r.rules("warning")
        np.testing.assert_array_equal(r.outputs["out"], a + 3)
    else:
        assert r.rules("error") == [rule]
