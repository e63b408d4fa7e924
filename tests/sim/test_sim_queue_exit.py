"""A queue tensor still allocated when the kernel ends holds no pending event (its free event was consumed by
AllocTensor), so the NPU runs on: a `queue.leak` warning, and the outputs stand. NPUKernelBench GroupNormSwish
allocates the next tile's mean/rstd ahead and ends with one allocated. (EnQue'd and never DeQue'd stays an error:
tests/sim/corpus/bad/leaked_queue_slot.)"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import sim_harness_ops as h  # noqa: E402

pytestmark = pytest.mark.skipif(not h.have_compiler(), reason="clang++-16 not installed")

KERNEL = r"""
extern "C" __global__ __aicore__ void ahead(GM_ADDR a, GM_ADDR out) {
    TPipe pipe;
    TQue<QuePosition::VECOUT, 1> spare;
    pipe.InitBuffer(spare, 1, 256);
    In<half> x; x.load(pipe, a, 128);
    Out<half> o; o.init(pipe, out, 128);
    LocalTensor<half> next = spare.AllocTensor<half>();   // allocated ahead, never used or freed
    Muls(o.t, x.t, (half)2.0f, 128);
    o.store();
}
KW_EXPORT_KERNEL(ahead)
"""


def test_tensor_allocated_at_kernel_end_is_a_warning(tmp_path):
    a = np.arange(128, dtype=np.float16)
    r = h.build_and_run(tmp_path, h.kernel_source(KERNEL), "ahead",
                        [h.Buf("a", a), h.Buf("out", nbytes=256, role="out", dtype="float16")], [("buffer", "a"), ("buffer", "out")])
    assert r.status == 0, r.diags
    assert r.rules("warning") == ["queue.leak"]
    np.testing.assert_array_equal(r.outputs["out"], 2 * a)
