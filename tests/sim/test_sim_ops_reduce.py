"""Reductions against NumPy models of the device's accumulation order (binary trees inside a
repeat, every add rounded to the element type) and of the documented result layouts."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import sim_harness_ops as h  # noqa: E402

pytestmark = pytest.mark.skipif(not h.have_compiler(), reason="clang++-16 not installed")


def tree(v: np.ndarray, dt) -> np.generic:
    """Adjacent-pair binary tree, every add rounded to dt (v padded to a power of two with 0)."""
    v = list(np.asarray(v, dtype=dt))
    n = 1
    while n < len(v):
        n *= 2
    v += [dt(0)] * (n - len(v))
    while len(v) > 1:
        v = [dt(np.float32(v[2 * i]) + np.float32(v[2 * i + 1])) for i in range(len(v) // 2)]
    return v[0]


WHOLE = r"""
extern "C" __global__ __aicore__ void whole(GM_ADDR a, GM_ADDR f, GM_ADDR out, GM_ADDR outf) {
    TPipe pipe;
    In<half> x; x.load(pipe, a, 512);
    In<float> y; y.load(pipe, f, 256);
    Out<half> o; o.init(pipe, out, 256);
    Out<float> of; of.init(pipe, outf, 64);
    Duplicate(o.t, (half)0, 256);
    Duplicate(of.t, 0.0f, 64);
    PipeBarrier<PIPE_V>();
    WholeReduceSum(o.t, x.t, 128, 4, 1, 1, 8);                               // o[0..4)
    uint64_t bitsMask[2] = {0x00ff00ff00ff00ffull, 0};                      // lanes 0-7, 16-23, ... of the first 64
    WholeReduceSum(o.t[8], x.t, bitsMask, 4, 2, 1, 8);                       // o[8], o[10], o[12], o[14]
    RepeatReduceSum(o.t[16], x.t, 4, 100, 0, 1, 1, 8);                       // first 100 lanes per repeat
    BlockReduceSum(o.t[32], x.t, 4, 128, 1, 1, 8);                           // o[32..64)
    BlockReduceMax(o.t[64], x.t, 2, 128, 2, 1, 8);                           // o[64..72), o[80..88)
    BlockReduceMin(o.t[96], x.t, 1, 128, 1, 1, 8);                           // o[96..104)
    PairReduceSum(o.t[128], x.t, 2, 128, 1, 1, 8);                           // o[128..256)
    WholeReduceMax(of.t, y.t, 64, 4, 1, 1, 8);                               // (value, index) x 4 -> of[0..8)
    WholeReduceMin(of.t[8], y.t, 64, 4, 1, 1, 8, ReduceOrder::ORDER_INDEX_VALUE);   // of[8..16)
    WholeReduceMax(of.t[16], y.t, 64, 4, 1, 1, 8, ReduceOrder::ORDER_ONLY_VALUE);   // of[16..20)
    WholeReduceMax(of.t[24], y.t, 64, 4, 1, 1, 8, ReduceOrder::ORDER_ONLY_INDEX);   // of[24..28) as uint32
    float v, idx;
    GetReduceMaxMinCount<float>(v, idx);
    of.t.SetValue(32, v);
    of.t.SetValue(33, idx);
    o.store(); of.store();
}
KW_EXPORT_KERNEL(whole)
"""


def test_whole_block_pair_reductions(tmp_path):
    rng = np.random.default_rng(3)
    a = (rng.standard_normal(512) * 8).astype(np.float16)
    f = rng.integers(-50, 50, 256).astype(np.float32)  # integer values: ties happen
    r = h.build_and_run(tmp_path, h.kernel_source(WHOLE), "whole",
                        [h.Buf("a", a), h.Buf("f", f), h.Buf("out", nbytes=512, role="out", dtype="float16"),
                         h.Buf("outf", nbytes=256, role="out", dtype="float32")],
                        [("buffer", "a"), ("buffer", "f"), ("buffer", "out"), ("buffer", "outf")])
    assert r.status == 0, r.diags
    o, of = r.outputs["out"], r.outputs["outf"]
    rows = a.reshape(4, 128)
    assert [o[i] for i in range(4)] == [tree(rows[i], np.float16) for i in range(4)]
    lanes = np.zeros(128, bool)
    for k in range(4):
        lanes[16 * k:16 * k + 8] = True
    assert [o[8 + 2 * i] for i in range(4)] == [tree(np.where(lanes, rows[i], 0), np.float16) for i in range(4)]
    assert [o[16 + i] for i in range(4)] == [tree(np.concatenate([rows[i][:100], np.zeros(28)]), np.float16) for i in range(4)]
    blocks = a.reshape(32, 16)
    assert list(o[32:64]) == [tree(b, np.float16) for b in blocks]
    assert np.array_equal(o[64:72], blocks[:8].max(1)) and np.array_equal(o[80:88], blocks[8:16].max(1))
    assert np.array_equal(o[96:104], blocks[:8].min(1))
    pairs = a[:256].reshape(128, 2).astype(np.float32).sum(1).astype(np.float16)
    assert np.array_equal(o[128:256], pairs)
    fr = f.reshape(4, 64)
    assert np.array_equal(of[0:8:2], fr.max(1))
    assert np.array_equal(of[1:8:2].view(np.uint32), fr.argmax(1))  # lowest index among ties
    assert np.array_equal(of[8:16:2].view(np.uint32), fr.argmin(1)) and np.array_equal(of[9:16:2], fr.min(1))
    assert np.array_equal(of[16:20], fr.max(1))
    assert np.array_equal(of[24:28].view(np.uint32), fr.argmax(1))
    best = int(np.argmax(fr.max(1)))
    assert of[32] == fr.max() and of[33:34].view(np.uint32)[0] == best * 64 + fr[best].argmax()


WHOLE_TENSOR = r"""
extern "C" __global__ __aicore__ void whole_tensor(GM_ADDR a, GM_ADDR f, GM_ADDR out, GM_ADDR outf) {
    TPipe pipe;
    In<half> x; x.load(pipe, a, 1024);
    In<float> y; y.load(pipe, f, 1024);
    Out<half> o; o.init(pipe, out, 64);
    Out<float> of; of.init(pipe, outf, 128);
    Tmp<half> w; w.init(pipe, 256);
    Tmp<float> wf; wf.init(pipe, 128);
    ReduceSum(o.t, x.t, w.t, 1000);                 // count form: repeat sums added in order
    o.t.SetValue(1, GetAccVal<half>());
    ReduceSum(o.t[16], x.t, w.t, 128, 8, 8);       // mask form: repeat sums reduced as a tree
    ReduceMax(of.t, y.t, wf.t, 1000, true);
    uint32_t idx = of.t.ReinterpretCast<uint32_t>().GetValue(1);
    of.t.SetValue(2, (float)idx);
    ReduceMin(of.t[8], y.t, wf.t, 64, 16, 8, true); // mask form; wf keeps the first round (value, index) pairs
    PipeBarrier<PIPE_V>();
    Copy(of.t[64], wf.t, (uint64_t)32, 1, CopyRepeatParams(1, 1, 8, 8));
    o.store(); of.store();
}
KW_EXPORT_KERNEL(whole_tensor)
"""


def test_reduce_whole_tensor_forms_and_work_buffer(tmp_path):
    rng = np.random.default_rng(4)
    a = (rng.standard_normal(1024) * 30).astype(np.float16)
    f = rng.standard_normal(1024).astype(np.float32)
    r = h.build_and_run(tmp_path, h.kernel_source(WHOLE_TENSOR), "whole_tensor",
                        [h.Buf("a", a), h.Buf("f", f), h.Buf("out", nbytes=128, role="out", dtype="float16"),
                         h.Buf("outf", nbytes=512, role="out", dtype="float32")],
                        [("buffer", "a"), ("buffer", "f"), ("buffer", "out"), ("buffer", "outf")])
    assert r.status == 0, r.diags
    o, of = r.outputs["out"], r.outputs["outf"]
    seq = np.float16(0)
    for k in range(0, 1000, 128):
        seq = np.float16(np.float32(seq) + np.float32(tree(a[k:min(k + 128, 1000)], np.float16)))
    assert o[0] == seq and o[1] == seq
    parts = [tree(a[k:k + 128], np.float16) for k in range(0, 1024, 128)]
    assert o[16] == tree(parts, np.float16)
    assert of[0] == f[:1000].max() and of[2] == f[:1000].argmax()
    rows = f.reshape(16, 64)
    assert of[8] == f.min() and of[9:10].view(np.uint32)[0] == f.argmin()
    work = of[64:96]
    assert np.array_equal(work[0::2], rows.min(1)) and np.array_equal(work[1::2].view(np.uint32), rows.argmin(1))


def test_reduce_work_buffer_too_small(tmp_path):
    body = r"""
extern "C" __global__ __aicore__ void small_work(GM_ADDR a, GM_ADDR out) {
    TPipe pipe;
    In<float> x; x.load(pipe, a, 4096);
    Out<float> o; o.init(pipe, out, 8);
    Tmp<float> w; w.init(pipe, 8);
    ReduceMax(o.t, x.t, w.t, 4096, true);   // needs 128 + 8 + 8 elements of work
    o.store();
}
KW_EXPORT_KERNEL(small_work)
"""
    r = h.build_and_run(tmp_path, h.kernel_source(body), "small_work",
                        [h.Buf("a", np.zeros(4096, np.float32)), h.Buf("out", nbytes=32, role="out")], [("buffer", "a"), ("buffer", "out")])
    assert r.rules("error") == ["vec.reduce_work"]
    assert "Worktensor's size should be more than 144" in r.diags[0]["message"]
