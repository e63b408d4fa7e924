"""APIs that CANN 8.x declares for A2/A3 but whose A2/A3 bodies only report "unsupported API on current
device" (the region-proposal sort of earlier vector units: NPUKernelBench TopKV3 calls ProposalConcat,
RpSort16, MrgSort4) compile here as there, and stop the kernel with a clear finding when they run."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import sim_harness_ops as h  # noqa: E402

pytestmark = pytest.mark.skipif(not h.have_compiler(), reason="clang++-16 not installed")

KERNEL = r"""
extern "C" __global__ __aicore__ void proposals(GM_ADDR a, GM_ADDR out) {
    TPipe pipe;
    In<half> x; x.load(pipe, a, 128);
    Out<half> o; o.init(pipe, out, 128);
    TBuf<QuePosition::VECCALC> buf;
    pipe.InitBuffer(buf, 128 * 8 * sizeof(half));
    LocalTensor<half> region = buf.Get<half>();
    ProposalConcat(region, x.t, 8, 4);
    RpSort16(region, region, 8);
    Muls(o.t, x.t, (half)1.0f, 128);
    o.store();
}
KW_EXPORT_KERNEL(proposals)
"""


def test_proposal_sort_compiles_and_stops_when_it_runs(tmp_path):
    a = np.arange(128, dtype=np.float16)
    r = h.build_and_run(tmp_path, h.kernel_source(KERNEL), "proposals",
                        [h.Buf("a", a), h.Buf("out", nbytes=256, role="out", dtype="float16")],
                        [("buffer", "a"), ("buffer", "out")])
    assert r.status != 0
    assert r.rules("error") == ["api.unsupported_on_device"], r.diags
    assert "ProposalConcat is an unsupported API on current device" in r.diags[-1]["message"]
