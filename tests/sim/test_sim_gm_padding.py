"""GM buffers are device allocations in whole 512-byte blocks (torch_npu's caching allocator,
aclrtMalloc): a DataCopy that runs past a tiny tensor's end stays inside memory the tensor owns.
The NPU accepts it, so the emulation does too (warning gm.padding). Past the block lies the rest of
the allocator's segment (2 MiB for a block up to 1 MiB), mapped, so the MTE does not fault either: a
read there or a write past the last tensor is a gm.past_allocation warning (the kernel relies on
luck), a write into the next tensor's block is gm.out_of_bounds, and past the segment it is too."""
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


@pytest.mark.parametrize("elems", [32, 512])
def test_copy_into_allocation_padding(tmp_path, elems):
    a = np.float16([3.0])
    r = h.build_and_run(tmp_path, h.kernel_source(TINY), "tiny", [h.Buf("a", a), h.Buf("out", nbytes=2, role="out", dtype="float16")],
                        [("buffer", "a"), ("buffer", "out"), ("int", elems)])
    assert r.status == 0, r.diags
    assert r.outputs["out"][0] == 6.0
    if elems == 32:
        warn = [d for d in r.diags if d["rule"] == "gm.padding"]
        assert warn and "'a', which holds 2 bytes" in warn[0]["message"] and warn[0]["severity"] == "warning"
    else:  # 1024 bytes: past the 512-byte block, inside the segment (the read and the write)
        past = [d for d in r.diags if d["rule"] == "gm.past_allocation"]
        assert len(past) == 2 and all(d["severity"] == "warning" for d in past)
        assert "free memory only because no tensor was allocated after 'out'" in past[1]["message"]


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
    else:  # 1056 bytes: past the 1024-byte block, a warning only
        assert r.status == 0 and [d for d in r.diags if d["rule"] == "gm.past_allocation"]


AT = r"""
extern "C" __global__ __aicore__ void at(GM_ADDR a, GM_ADDR out, int32_t at, int32_t into_a) {
    TPipe pipe;
    GlobalTensor<half> ga; ga.SetGlobalBuffer((__gm__ half*)a);
    GlobalTensor<half> go; go.SetGlobalBuffer((__gm__ half*)out);
    TQue<QuePosition::VECIN, 1> q; pipe.InitBuffer(q, 1, 64);
    LocalTensor<half> x = q.AllocTensor<half>();
    DataCopy(x, ga, 32);
    PipeBarrier<PIPE_ALL>();
    DataCopy(into_a ? ga[at] : go[at], x, 32);            // 64 bytes at element `at` of a or of out
    q.FreeTensor(x);
}
KW_EXPORT_KERNEL(at)
"""


@pytest.mark.parametrize("at,into_a,out,workspace,rule", [
    (4096, 0, 512, 0, "gm.past_allocation"), (4096, 1, 512, 0, "gm.out_of_bounds"), (4096, 0, 512, 64, "gm.out_of_bounds"),
    (1 << 20, 0, 512, 0, "gm.out_of_bounds"), ((3 << 19) + 4096, 0, 3 << 20, 16 << 20, "gm.out_of_bounds"),
    ((3 << 20) + 4096, 0, 6 << 20, 16 << 20, "gm.past_allocation")])
def test_a_write_past_the_block(tmp_path, at, into_a, out, workspace, rule):
    """8 KiB past the 1 KiB output is free segment memory (NPUKernelBench's ExpandV2 writes there) unless the
    operator asks for a workspace, which EXEC_NPU_CMD allocates next; past the input it is the output's block,
    which the allocator cut next; 2 MiB past it, outside the segment. A 16 MiB workspace is cut from the rest of
    the 20 MiB segment of a 3 MiB output, but does not fit beside a 6 MiB one (NPUKernelBench's PreLayerNorm, with
    4.5 MiB of tensors): it gets its own segment, and past the output is free memory again."""
    a = np.full(256, 3.0, dtype=np.float16)
    r = h.build_and_run(tmp_path, h.kernel_source(AT), "at", [h.Buf("a", a), h.Buf("out", nbytes=out, role="out", dtype="float16"),
                                                               h.Buf("workspace", nbytes=workspace, role="workspace")],
                        [("buffer", "a"), ("buffer", "out"), ("int", at), ("int", into_a)])
    if rule == "gm.past_allocation":
        assert r.status == 0 and [d["severity"] for d in r.diags if d["rule"] == rule] == ["warning"]
    else:
        assert r.rules("error") == [rule]
        if into_a or workspace:
            assert f"the next tensor, '{'out' if into_a else 'workspace'}'" in r.diags[0]["message"]
