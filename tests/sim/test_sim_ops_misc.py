"""Brcb, CreateVecIndex, Gather, GatherMask, Transpose and the vector Copy against NumPy."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import sim_harness_ops as h  # noqa: E402

pytestmark = pytest.mark.skipif(not h.have_compiler(), reason="clang++-16 not installed")

MISC = r"""
extern "C" __global__ __aicore__ void misc(GM_ADDR a, GM_ADDR idx, GM_ADDR out) {
    TPipe pipe;
    In<float> x; x.load(pipe, a, 256);
    In<uint32_t> off; off.load(pipe, idx, 64);
    Out<float> y; y.init(pipe, out, 1024);
    Tmp<uint32_t> pat; pat.init(pipe, 64);
    Duplicate(y.t, 0.0f, 1024);
    Duplicate(pat.t, (uint32_t)0x99999999u, 64);
    PipeBarrier<PIPE_V>();
    Brcb(y.t, x.t, 2, BrcbRepeatParams(2, 16));                  // blocks 0,2,..,14 then 16,18,..,30
    CreateVecIndex(y.t[256], 3.0f, 64);                          // count form
    LocalTensor<float> iv = y.t[320];                            // the mask forms take a non-const reference
    CreateVecIndex(iv, 0.0f, (uint64_t)16, 2, 1, 8);             // first 16 lanes of 2 repeats
    Gather(y.t[448], x.t, off.t, 0, 64);                         // offsets in bytes
    uint64_t cnt = 0, cnt2 = 0;
    GatherMask(y.t[512], x.t, (uint8_t)1, false, 0, GatherMaskParams(1, 2, 8, 0), cnt);   // even elements of x[0..128)
    GatherMask(y.t[576], x.t, pat.t, true, 64, GatherMaskParams(1, 2, 8, 0), cnt2);     // 1st and 4th of every four
    y.t.SetValue(1000, (float)cnt);
    y.t.SetValue(1001, (float)cnt2);
    y.t.SetValue(1002, (float)GetGatherMaskRemainCount());
    Copy(y.t[640], x.t, (uint64_t)64, 4, CopyRepeatParams(1, 1, 8, 8));
    y.store();
}
KW_EXPORT_KERNEL(misc)
"""


def test_brcb_vecindex_gather_gathermask_copy(tmp_path):
    rng = np.random.default_rng(2)
    a = rng.standard_normal(256).astype(np.float32)
    off = (rng.integers(0, 256, 64) * 4).astype(np.uint32)
    r = h.build_and_run(tmp_path, h.kernel_source(MISC), "misc", [h.Buf("a", a), h.Buf("idx", off), h.Buf("out", nbytes=4096, role="out")],
                        [("buffer", "a"), ("buffer", "idx"), ("buffer", "out")])
    assert r.status == 0, r.diags
    y = r.outputs["out"]
    blocks = y[:256].reshape(32, 8)
    assert np.array_equal(blocks[0:32:2], np.repeat(a[:16, None], 8, 1)) and not blocks[1::2].any()
    assert np.array_equal(y[256:320], np.arange(3, 67, dtype=np.float32))
    rep = y[320:448].reshape(2, 64)
    assert np.array_equal(rep[:, :16], np.array([np.arange(16), 64 + np.arange(16)], np.float32)) and not rep[:, 16:].any()
    assert np.array_equal(y[448:512], a[off // 4])
    assert np.array_equal(y[512:576], a[:128:2]) and y[1000] == 64
    assert np.array_equal(y[576:640], a[:128].reshape(-1, 4)[:, [0, 3]].ravel()) and y[1001] == 64 and y[1002] == 64
    assert np.array_equal(y[640:896], a)


TRANSPOSE = r"""
extern "C" __global__ __aicore__ void transpose(GM_ADDR a, GM_ADDR out) {
    TPipe pipe;
    In<half> x; x.load(pipe, a, 512);
    Out<half> y; y.init(pipe, out, 512);
    Tmp<uint8_t> tmp; tmp.init(pipe, 1024);
    Transpose(y.t, x.t);                                          // 16 x 16
    LocalTensor<uint16_t> src = x.t[256].ReinterpretCast<uint16_t>();
    LocalTensor<uint16_t> dst = y.t[256].ReinterpretCast<uint16_t>();
    Transpose(dst, src, tmp.t, TransposeParamsExt(2, 8, 4, 4, TransposeType::TRANSPOSE_NCHW2NHWC));
    y.store();
}
KW_EXPORT_KERNEL(transpose)
"""


def test_transpose_16x16_and_nchw2nhwc(tmp_path):
    a = np.arange(512).astype(np.float16)
    r = h.build_and_run(tmp_path, h.kernel_source(TRANSPOSE), "transpose",
                        [h.Buf("a", a), h.Buf("out", nbytes=1024, role="out", dtype="float16")], [("buffer", "a"), ("buffer", "out")])
    assert r.status == 0, r.diags
    y = r.outputs["out"].view(np.float16)
    assert np.array_equal(y[:256].reshape(16, 16), a[:256].reshape(16, 16).T)
    assert np.array_equal(y[256:].reshape(2, 4, 4, 8), a[256:].reshape(2, 8, 4, 4).transpose(0, 2, 3, 1))


@pytest.mark.parametrize("call,rule", [
    ("Gather(y.t, x.t, off.t, 2, 64);", "vec.gather_offset"),           # base not a multiple of sizeof(float)
    ("Brcb(y.t, y.t[8], 1, BrcbRepeatParams(1, 8));", "vec.overlap"),  # src inside dst
    ("uint64_t c; GatherMask(y.t, x.t, (uint8_t)0, false, 0, GatherMaskParams(1, 1, 8, 0), c);", "vec.gather_pattern"),
    ("Gather(y.t, x.t, off.t, 1024, 64);", "ub.out_of_bounds"),         # reads past src
])
def test_misuse_is_reported(tmp_path, call, rule):
    body = r"""
extern "C" __global__ __aicore__ void misuse(GM_ADDR a, GM_ADDR idx, GM_ADDR out) {
    TPipe pipe;
    In<float> x; x.load(pipe, a, 256);
    In<uint32_t> off; off.load(pipe, idx, 64);
    Out<float> y; y.init(pipe, out, 256);
    CALL
    y.store();
}
KW_EXPORT_KERNEL(misuse)
""".replace("CALL", call)
    off = (np.arange(64) * 4).astype(np.uint32)
    r = h.build_and_run(tmp_path, h.kernel_source(body), "misuse",
                        [h.Buf("a", np.zeros(256, np.float32)), h.Buf("idx", off), h.Buf("out", nbytes=1024, role="out")],
                        [("buffer", "a"), ("buffer", "idx"), ("buffer", "out")])
    assert r.rules("error") == [rule], r.diags


SORT = r"""
extern "C" __global__ __aicore__ void sort(GM_ADDR a, GM_ADDR out, GM_ADDR cnt) {
    TPipe pipe;
    In<float> x; x.load(pipe, a, 64);
    Out<float> y; y.init(pipe, out, 256);
    Out<uint32_t> c; c.init(pipe, cnt, 8);
    Tmp<uint32_t> idx; idx.init(pipe, 64);
    CreateVecIndex(idx.t.ReinterpretCast<int32_t>(), (int32_t)0, 64);
    PipeBarrier<PIPE_V>();
    Sort32(y.t, x.t, idx.t, 2);                                   // two sorted runs of 32 records
    PipeBarrier<PIPE_V>();
    uint16_t lens[4] = {32, 32, 0, 0};
    MrgSort(y.t[128], MrgSortSrcList<float>(y.t, y.t[64], y.t, y.t), MrgSort4Info(lens, false, 3, 1));
    uint16_t q1, q2, q3, q4;
    GetMrgSortResult(q1, q2, q3, q4);
    c.t.SetValue(0, q1); c.t.SetValue(1, q2);
    y.store(); c.store();
}
KW_EXPORT_KERNEL(sort)
"""


def test_sort32_and_mrgsort(tmp_path):
    rng = np.random.default_rng(9)
    a = rng.integers(0, 20, 64).astype(np.float32)  # many ties
    r = h.build_and_run(tmp_path, h.kernel_source(SORT), "sort",
                        [h.Buf("a", a), h.Buf("out", nbytes=1024, role="out"), h.Buf("cnt", nbytes=32, role="out", dtype="uint32")],
                        [("buffer", "a"), ("buffer", "out"), ("buffer", "cnt")])
    assert r.status == 0, r.diags
    rec = r.outputs["out"].view(np.uint32).reshape(-1, 2)
    for g in range(2):
        order = np.argsort(-a[32 * g:32 * g + 32], kind="stable") + 32 * g
        assert np.array_equal(rec[32 * g:32 * g + 32, 1], order)
        assert np.array_equal(rec[32 * g:32 * g + 32, 0].view(np.float32), a[order])
    merged = rec[64:128]
    assert np.array_equal(merged[:, 0].view(np.float32), np.sort(a)[::-1])
    assert np.array_equal(np.sort(merged[:, 1]), np.arange(64)) and list(r.outputs["cnt"][:2]) == [32, 32]


TRANSDATA = r"""
extern "C" __global__ __aicore__ void transdata(GM_ADDR a, GM_ADDR out) {
    TPipe pipe;
    In<half> x; x.load(pipe, a, 1024);
    Out<half> y; y.init(pipe, out, 2048);
    Duplicate(y.t, (half)0, 2048);
    PipeBarrier<PIPE_V>();
    // b16, LocalTensor lists: a 16x16 transpose
    LocalTensor<half> d16[16], s16[16];
    for (int i = 0; i < 16; ++i) { d16[i] = y.t[16 * i]; s16[i] = x.t[16 * i]; }
    TransDataTo5HD<half>(d16, s16, TransDataTo5HDParams(false, false, 1, 0, 0));
    // b32, address lists: rows of 8 floats; dst pairs (2j, 2j+1) hold element j of src[0..7] and src[8..15]
    LocalTensor<float> xf = x.t.ReinterpretCast<float>(), yf = y.t[256].ReinterpretCast<float>();
    uint64_t d32[16], s32[16];
    for (int i = 0; i < 16; ++i) { d32[i] = (uint64_t)yf[8 * i].GetPhyAddr(); s32[i] = (uint64_t)xf[8 * i].GetPhyAddr(); }
    TransDataTo5HD<float>(d32, s32, TransDataTo5HDParams(false, false, 1, 0, 0));
    // b8: the high half of each source block into the low half of each destination block
    LocalTensor<uint8_t> xb = x.t.ReinterpretCast<uint8_t>(), yb = y.t[512].ReinterpretCast<uint8_t>();
    LocalTensor<uint8_t> d8[16], s8[16];
    for (int i = 0; i < 16; ++i) { d8[i] = yb[32 * i]; s8[i] = xb[32 * i]; }
    TransDataTo5HD<uint8_t>(d8, s8, TransDataTo5HDParams(false, true, 1, 0, 0));
    // two repeats, strides 16 (dst) and 1 (src): a 16x32 half block -> 32x16 (NCHW -> NC1HWC0 pattern)
    LocalTensor<half> dr[16], sr[16];
    for (int i = 0; i < 16; ++i) { dr[i] = y.t[768 + 16 * i]; sr[i] = x.t[32 * i]; }
    TransDataTo5HD<half>(dr, sr, TransDataTo5HDParams(false, false, 2, 16, 1));
    // one repeat with a stride: starts one stride past the lists (the API reference's note)
    LocalTensor<half> d1[16], s1[16];
    for (int i = 0; i < 16; ++i) { d1[i] = y.t[1280 + 16 * i]; s1[i] = x.t[16 * i]; }
    TransDataTo5HD<half>(d1, s1, TransDataTo5HDParams(false, false, 1, 16, 16));
    y.store();
}
KW_EXPORT_KERNEL(transdata)
"""


def test_transdata_to_5hd_b16_b32_b8_and_repeats(tmp_path):
    a = np.arange(1024, dtype=np.float16)
    r = h.build_and_run(tmp_path, h.kernel_source(TRANSDATA), "transdata", [h.Buf("a", a), h.Buf("out", nbytes=4096, role="out")],
                        [("buffer", "a"), ("buffer", "out")])
    assert r.status == 0, r.diags
    y = r.outputs["out"].view(np.float16)
    assert np.array_equal(y[:256].reshape(16, 16), a[:256].reshape(16, 16).T)
    f = a[:256].view(np.float32).reshape(16, 8)            # src block i = row i (8 floats)
    got = y[256:512].view(np.float32).reshape(16, 8)       # dst block k
    for j in range(8):
        assert np.array_equal(got[2 * j], f[:8, j]) and np.array_equal(got[2 * j + 1], f[8:, j])
    b = a[:256].view(np.uint8).reshape(16, 32)
    got8 = y[512:768].view(np.uint8).reshape(16, 32)
    assert np.array_equal(got8[:, :16], b[:, 16:].T) and not got8[:, 16:].any()
    assert np.array_equal(y[768:1280].reshape(2, 16, 16), a[:512].reshape(16, 2, 16).transpose(1, 2, 0))
    assert np.array_equal(y[1280 + 256:1280 + 512].reshape(16, 16), a[256:512].reshape(16, 16).T) and not y[1280:1536].any()
