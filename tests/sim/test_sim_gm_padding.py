"""GM buffers are device allocations in whole 512-byte blocks (torch_npu's caching allocator,
aclrtMalloc): a DataCopy that runs past a tiny tensor's end stays inside memory the tensor owns.
The NPU accepts it, so the emulation does too (warning gm.padding); past the block it is still
gm.out_of_bounds."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import sim_harness_ops as h  # noqa: E402

pytestmark = pytest.mark.skipif(not h.have_compiler(), reason="clang++-16 not installed")

TINY = r"""
extern "C" __global__ __aicore__ void tiny(GM_ADDR a, GM_ADDR out, int32_t elems) {
    TPipe pipe;
    In<half> x; x.load(pipe, a, elems);                  // 32 halves = 64 bytes from a 1-element tensor
    Out<half> o; o.init(pipe, out, elems);
    Muls(o.t, x.t, (half)2.0f, elems);
    o.store();
}
KW_EXPORT_KERNEL(tiny)
"""


@pytest.mark.parametrize("elems,ok", [(32, True), (512, False)])
def test_copy_into_allocation_padding(tmp_path, elems, ok):
    a = np.float16([3.0])
    r = h.build_and_run(tmp_path, h.kernel_source(TINY), "tiny", [h.Buf("a", a), h.Buf("out", nbytes=2, role="out", dtype="float16")],
                        [("buffer", "a"), ("buffer", "out"), ("int", elems)])
    if ok:
        assert r.status == 0, r.diags
        assert r.outputs["out"][0] == 6.0
        warn = [d for d in r.diags if d["rule"] == "gm.padding"]
        assert warn and "'a', which holds 2 bytes" in warn[0]["message"] and warn[0]["severity"] == "warning"
    else:  # 1024 bytes: past the 512-byte block
        assert r.status != 0
        assert r.rules("error") == ["gm.out_of_bounds"]


@pytest.mark.parametrize("elems,ok", [(256 + 16, True), (512 + 16, False)])
def test_a_whole_block_tensor_still_has_32_spare_bytes(tmp_path, elems, ok):
    """torch_npu rounds size + 32 up to 512: a 512-byte tensor owns 1024 bytes, so a copy 32 bytes past its end is
    padding (NPUKernelBench AbsMath and ExpandV2 write one 256-byte repeat past a 6144- / 2048-byte output)."""
    a = np.full(256, 3.0, dtype=np.float16)
    r = h.build_and_run(tmp_path, h.kernel_source(TINY), "tiny", [h.Buf("a", a), h.Buf("out", nbytes=512, role="out", dtype="float16")],
                        [("buffer", "a"), ("buffer", "out"), ("int", elems)])
    if ok:
        assert r.status == 0, r.diags
        assert [d["rule"] for d in r.diags if d["rule"] == "gm.padding"]
    else:  # 1056 bytes: past the 1024-byte block
        assert r.rules("error") == ["gm.out_of_bounds"]
