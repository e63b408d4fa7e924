"""bisheng builtins and CANN 8.x APIs that cann-ops kernels call directly: `vcadd` on GetPhyAddr()
pointers with the ACC register (GetAccVal), SetDeqScale for int32 -> half casts, BroadCast, the
untyped TQue::DeQue(), the block-local `block_idx`; and InitBuffer reservations past the end of UB
(accepted until something touches those bytes, as on the NPU)."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import sim_harness_ops as h  # noqa: E402
from test_sim_ops_reduce import tree  # noqa: E402

pytestmark = pytest.mark.skipif(not h.have_compiler(), reason="clang++-16 not installed")

RAW = r"""
extern "C" __global__ __aicore__ void raw(GM_ADDR a, GM_ADDR q, GM_ADDR out) {
    TPipe pipe;
    In<float> x; x.load(pipe, a, 256);
    In<int32_t> iq; iq.load(pipe, q, 64);
    Out<float> o; o.init(pipe, out, 64);
    Tmp<half> hq; hq.init(pipe, 64);
    Tmp<float> row; row.init(pipe, 8);
    Duplicate(o.t, 0.0f, 64);
    PipeBarrier<PIPE_V>();
    AscendCUtils::SetMask<float>(64);
    vcadd((__ubuf__ float*)o.t.GetPhyAddr(), (__ubuf__ float*)x.t.GetPhyAddr(), 4, 1, 1, 8, false);   // o[0..4)
    set_vector_mask(0, (1ull << 10) - 1);
    vcadd(nullptr, (__ubuf__ float*)x.t.GetPhyAddr(), 3, 1, 1, 8, true);       // ACC = 3 sums of 10 lanes
    set_flag(PIPE_V, PIPE_S, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_S, EVENT_ID0);
    uint64_t acc = GetAccVal();
    o.t.SetValue(8, *reinterpret_cast<float*>(&acc));
    set_mask_count();
    set_mask_norm();
    ResetMask();
    SetDeqScale((half)0.5f);
    Cast(hq.t, iq.t, RoundMode::CAST_NONE, 64);
    PipeBarrier<PIPE_V>();
    Cast(o.t[16], hq.t, RoundMode::CAST_NONE, 32);                             // o[16..48) = q * 0.5
    row.t.SetValue(0, 7.0f); row.t.SetValue(1, -2.0f);
    uint32_t dstShape[2] = {2, 8}, srcShape[2] = {2, 1};
    BroadCast<float, 2, 1>(o.t[48], row.t, dstShape, srcShape);             // o[48..64) = 7 x8, -2 x8
    PipeBarrier<PIPE_V>();
    if (block_idx == 0 && block_num == 1) o.t.SetValue(9, 1.0f);
    o.store();
}
KW_EXPORT_KERNEL(raw)
"""


def test_vcadd_acc_deqscale_broadcast(tmp_path):
    rng = np.random.default_rng(5)
    a = rng.standard_normal(256).astype(np.float32)
    q = rng.integers(-1000, 1000, 64).astype(np.int32)
    r = h.build_and_run(tmp_path, h.kernel_source(RAW), "raw",
                        [h.Buf("a", a), h.Buf("q", q), h.Buf("out", nbytes=256, role="out")],
                        [("buffer", "a"), ("buffer", "q"), ("buffer", "out")])
    assert r.status == 0, r.diags
    o = r.outputs["out"]
    rows = a.reshape(4, 64)
    assert [o[i] for i in range(4)] == [tree(rows[i], np.float32) for i in range(4)]
    parts = [tree(np.concatenate([rows[i][:10], np.zeros(54)]), np.float32) for i in range(3)]
    assert o[8] == np.float32(np.float32(parts[0] + parts[1]) + parts[2])   # repeat sums added in order
    assert o[9] == 1.0
    assert np.array_equal(o[16:48], (q[:32] * 0.5).astype(np.float16).astype(np.float32))
    assert np.array_equal(o[48:64], np.repeat(np.float32([7, -2]), 8))


UNTYPED_DEQUE = r"""
extern "C" __global__ __aicore__ void untyped(GM_ADDR a, GM_ADDR out) {
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> q;
    pipe.InitBuffer(q, 1, 64 * sizeof(float));
    GlobalTensor<float> g; g.SetGlobalBuffer((__gm__ float*)a, 64);
    Out<float> o; o.init(pipe, out, 64);
    LocalTensor<float> x = q.AllocTensor<float>();
    DataCopy(x, g, 64);
    q.EnQue(x);
    TBufHandle handle = q.DeQue();                                   // the round trip orders MTE2 before V
    (void)handle;
    q.EnQue(x);                                                      // a dequeued tensor may be enqueued again
    x = q.DeQue<float>();
    Muls(o.t, x, 3.0f, 64);
    q.FreeTensor(x);
    o.store();
}
KW_EXPORT_KERNEL(untyped)
"""


def test_untyped_deque_and_enque_of_a_dequeued_tensor(tmp_path):
    a = np.arange(64, dtype=np.float32)
    r = h.build_and_run(tmp_path, h.kernel_source(UNTYPED_DEQUE), "untyped",
                        [h.Buf("a", a), h.Buf("out", nbytes=256, role="out")], [("buffer", "a"), ("buffer", "out")])
    assert r.status == 0, r.diags
    assert np.array_equal(r.outputs["out"], a * 3)


# An extra TBuf past the end of UB: harmless while unused (the NPU does not check InitBuffer),
# an error naming the InitBuffer line once an instruction touches it.
OVER = r"""
extern "C" __global__ __aicore__ void over(GM_ADDR a, GM_ADDR out, int32_t touch) {
    TPipe pipe;
    In<float> x; x.load(pipe, a, 64);
    Out<float> o; o.init(pipe, out, 64);
    TBuf<TPosition::VECCALC> big, spare;
    pipe.InitBuffer(big, 160 * 1024);
    pipe.InitBuffer(spare, 64 * 1024);                              // ends past 192 KiB
    LocalTensor<float> s = spare.Get<float>();
    if (touch) Duplicate(s, 1.0f, 64 * 256);
    Muls(o.t, x.t, 2.0f, 64);
    o.store();
}
KW_EXPORT_KERNEL(over)
"""


@pytest.mark.parametrize("touch", [0, 1])
def test_reservation_past_ub_fails_only_when_used(tmp_path, touch):
    a = np.arange(64, dtype=np.float32)
    r = h.build_and_run(tmp_path, h.kernel_source(OVER), "over", [h.Buf("a", a), h.Buf("out", nbytes=256, role="out")],
                        [("buffer", "a"), ("buffer", "out"), ("int", touch)])
    if not touch:
        assert r.status == 0, r.diags
        assert r.rules("warning") == ["ub.capacity"] and r.rules("error") == []
        assert np.array_equal(r.outputs["out"], a * 2)
        return
    assert r.status != 0
    err = next(d for d in r.diags if d["severity"] == "error")
    assert err["rule"] == "ub.capacity" and err.get("at"), err
    assert "InitBuffer needs 65536 more bytes" in err["message"] and "Duplicate writes dst" in err["message"]
    assert err["values"]["capacity"] == 196608


# Repeats of one instruction run in order, each seeing the previous one's results: with dstRepStride
# = src1RepStride = 0 an Add accumulates every repeat of src0 (cann-ops ReduceSumFP32ToBlock). The same
# flag set twice before two waits is counted (cann-ops kernels FetchEventID twice without allocating);
# a view past a tensor's end and a Get() of an uninitialised TBuf are 0-byte tensors, errors only when used.
ACCUM = r"""
extern "C" __global__ __aicore__ void accum(GM_ADDR a, GM_ADDR out) {
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> q;
    pipe.InitBuffer(q, 1, 512 * sizeof(float));
    GlobalTensor<float> g; g.SetGlobalBuffer((__gm__ float*)a, 512);
    Out<float> o; o.init(pipe, out, 64);
    LocalTensor<float> x = q.AllocTensor<float>();
    DataCopy(x, g, 256);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    DataCopy(x[256], g[256], 256);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    Duplicate(o.t, 0.0f, 64);
    PipeBarrier<PIPE_V>();
    BinaryRepeatParams p;
    p.dstRepStride = 0; p.src0RepStride = 8; p.src1RepStride = 0;
    Add(o.t, x, o.t, 64, 8, p);
    PipeBarrier<PIPE_V>();
    LocalTensor<float> past = o.t[4096];                             // a view past the end: legal while unused
    if (past.GetSize() != 0) o.t.SetValue(0, -1.0f);
    TBuf<TPosition::VECCALC> never;                                  // Get() without InitBuffer: a warning
    if (never.Get<float>().GetSize() != 0) o.t.SetValue(1, -1.0f);
    q.FreeTensor(x);
    o.store();
}
KW_EXPORT_KERNEL(accum)
"""


def test_repeats_accumulate_in_order_and_flags_count(tmp_path):
    a = np.arange(512, dtype=np.float32) / 7
    r = h.build_and_run(tmp_path, h.kernel_source(ACCUM), "accum", [h.Buf("a", a), h.Buf("out", nbytes=256, role="out")],
                        [("buffer", "a"), ("buffer", "out")])
    assert r.status == 0, r.diags
    assert r.rules("warning") == ["tbuf.uninitialised"]
    want = np.zeros(64, np.float32)
    for row in a.reshape(8, 64):
        want = (row + want).astype(np.float32)
    assert np.array_equal(r.outputs["out"], want)


# Shifts by the element width saturate as on the NPU (NPUKernelBench's AbsMath takes the sign mask
# of int32 values with ShiftRight(x, 32)).
SHIFT = r"""
extern "C" __global__ __aicore__ void shift(GM_ADDR a, GM_ADDR out) {
    TPipe pipe;
    In<int32_t> x; x.load(pipe, a, 64);
    Out<int32_t> o; o.init(pipe, out, 64);
    ShiftRight(o.t, x.t, (int32_t)32, 32);
    ShiftLeft(o.t[32], x.t[32], (int32_t)33, 32);
    o.store();
}
KW_EXPORT_KERNEL(shift)
"""


def test_shift_by_the_width_saturates(tmp_path):
    a = np.arange(-32, 32, dtype=np.int32) * 1000
    r = h.build_and_run(tmp_path, h.kernel_source(SHIFT), "shift", [h.Buf("a", a), h.Buf("out", nbytes=256, role="out", dtype="int32")],
                        [("buffer", "a"), ("buffer", "out")])
    assert r.status == 0, r.diags
    o = r.outputs["out"]
    assert o[:32].tolist() == [-1] * 32 and o[32:].tolist() == [0] * 32


# float -> float Cast rounds to an integral value (NPUKernelBench's SinMath/CosMath take the period
# count with Cast(f32, f32, CAST_ROUND)).
ROUNDF = r"""
extern "C" __global__ __aicore__ void cast_f32_round(GM_ADDR a, GM_ADDR out) {
    TPipe pipe;
    In<float> x; x.load(pipe, a, 64);
    Out<float> o; o.init(pipe, out, 320);
    const RoundMode modes[5] = {RoundMode::CAST_RINT, RoundMode::CAST_FLOOR, RoundMode::CAST_CEIL, RoundMode::CAST_ROUND,
                                RoundMode::CAST_TRUNC};
    for (int m = 0; m < 5; ++m) Cast(o.t[64 * m], x.t, modes[m], 64);
    o.store();
}
KW_EXPORT_KERNEL(cast_f32_round)
"""


def test_float_to_float_cast_rounds_to_integers(tmp_path):
    a = (np.arange(64, dtype=np.float32) - 32) / 4          # halves and quarters, both signs
    r = h.build_and_run(tmp_path, h.kernel_source(ROUNDF), "cast_f32_round", [h.Buf("a", a), h.Buf("out", nbytes=1280, role="out")],
                        [("buffer", "a"), ("buffer", "out")])
    assert r.status == 0, r.diags
    o = r.outputs["out"].reshape(5, 64)
    away = np.sign(a) * np.floor(np.abs(a) + 0.5)
    for got, want in zip(o, [np.rint(a), np.floor(a), np.ceil(a), away, np.trunc(a)]):
        assert np.array_equal(got, want.astype(np.float32))


# A queue passed by value shares the original's buffers (CANN keeps buffer states in the TPipe):
# FreeTensor on the copy orders the copy's V writes before the original's next AllocTensor.
BYVALUE = r"""
__aicore__ inline float Scratch(TQue<QuePosition::VECIN, 1> q) {
    LocalTensor<float> t = q.AllocTensor<float>();
    Duplicate(t, 2.0f, 64);
    set_flag(PIPE_V, PIPE_S, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_S, EVENT_ID0);
    float v = t.GetValue(0);
    q.FreeTensor(t);
    return v;
}
extern "C" __global__ __aicore__ void byvalue(GM_ADDR a, GM_ADDR out) {
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> q;
    pipe.InitBuffer(q, 1, 64 * sizeof(float));
    GlobalTensor<float> g; g.SetGlobalBuffer((__gm__ float*)a, 64);
    Out<float> o; o.init(pipe, out, 64);
    float k = Scratch(q);
    LocalTensor<float> x = q.AllocTensor<float>();
    DataCopy(x, g, 64);                                              // MTE2 after the copy's V write: ordered
    q.EnQue(x);
    x = q.DeQue<float>();
    Muls(o.t, x, k, 64);
    q.FreeTensor(x);
    o.store();
}
KW_EXPORT_KERNEL(byvalue)
"""


def test_queue_passed_by_value_shares_the_buffers(tmp_path):
    a = np.arange(64, dtype=np.float32)
    r = h.build_and_run(tmp_path, h.kernel_source(BYVALUE), "byvalue", [h.Buf("a", a), h.Buf("out", nbytes=256, role="out")],
                        [("buffer", "a"), ("buffer", "out")])
    assert r.status == 0, r.diags
    assert np.array_equal(r.outputs["out"], a * 2)


# FreeTensor on the wrong queue (two VECIN queues swapped, as in NPUKernelBench's DeepNormGrad): CANN
# frees through the tensor's buffer handle, so the owner queue frees it; a warning names the mix-up.
SWAPPED = r"""
extern "C" __global__ __aicore__ void swapped(GM_ADDR a, GM_ADDR out) {
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> qa, qb;
    pipe.InitBuffer(qa, 1, 64 * sizeof(float));
    pipe.InitBuffer(qb, 1, 64 * sizeof(float));
    GlobalTensor<float> g; g.SetGlobalBuffer((__gm__ float*)a, 64);
    Out<float> o; o.init(pipe, out, 64);
    LocalTensor<float> x = qa.AllocTensor<float>(), y = qb.AllocTensor<float>();
    DataCopy(x, g, 64);
    DataCopy(y, g, 64);
    qa.EnQue(x); qb.EnQue(y);
    x = qa.DeQue<float>(); y = qb.DeQue<float>();
    Add(o.t, x, y, 64);
    qa.FreeTensor(y);
    qb.FreeTensor(x);
    o.store();
}
KW_EXPORT_KERNEL(swapped)
"""


def test_free_on_the_wrong_queue_frees_the_owner(tmp_path):
    a = np.arange(64, dtype=np.float32)
    r = h.build_and_run(tmp_path, h.kernel_source(SWAPPED), "swapped", [h.Buf("a", a), h.Buf("out", nbytes=256, role="out")],
                        [("buffer", "a"), ("buffer", "out")])
    assert r.status == 0, r.diags
    assert r.rules("warning") == ["queue.foreign_tensor", "queue.foreign_tensor"] and r.rules("error") == []
    assert np.array_equal(r.outputs["out"], a * 2)


AXPY = r"""
extern "C" __global__ __aicore__ void axpy(GM_ADDR a, GM_ADDR b, GM_ADDR out) {
    TPipe pipe;
    In<half> x, y; x.load(pipe, a, 16); y.load(pipe, b, 16);
    Out<half> o; o.init(pipe, out, 16);
    DataCopy(o.t, y.t, 16);
    PipeBarrier<PIPE_V>();
    Axpy<half, half>(o.t, x.t, (half)3.0, 16);
    o.store();
}
KW_EXPORT_KERNEL(axpy)
"""


def test_half_axpy_rounds_the_product_then_the_sum(tmp_path):
    # x * 3 lands halfway between two halves: rounded first (as two instructions and torch's half ops do),
    # -3.5 + round(3.5009765625) is exactly 0; a fused multiply-add would give 0.0009765625
    x = np.full(16, 1.1669921875, np.float16)
    y = np.full(16, -3.5, np.float16)
    r = h.build_and_run(tmp_path, h.kernel_source(AXPY), "axpy", [h.Buf("a", x), h.Buf("b", y), h.Buf("out", nbytes=32, role="out")],
                        [("buffer", "a"), ("buffer", "b"), ("buffer", "out")])
    assert r.status == 0, r.diags
    np.testing.assert_array_equal(r.outputs["out"].view(np.float16), y + x * np.float16(3.0))
    assert not r.outputs["out"].view(np.float16).any()


# DataCopy's implementation functions on raw pointers (cann-ops GeGluV2 zeroes GM with DataCopyUB2GMImpl):
# the same checked copy, so a burst past the output is still gm.out_of_bounds.
RAWCOPY = r"""
extern "C" __global__ __aicore__ void rawcopy(GM_ADDR a, GM_ADDR out) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 512);
    LocalTensor<float> t = buf.Get<float>();
    DataCopyGM2UBImpl((__ubuf__ float*)t.GetPhyAddr(), (__gm__ float*)a, {1, 8, 0, 0});
    SetFlag<HardEvent::MTE2_V>(0); WaitFlag<HardEvent::MTE2_V>(0);
    Adds(t, t, 1.0f, 64);
    SetFlag<HardEvent::V_MTE3>(0); WaitFlag<HardEvent::V_MTE3>(0);
    DataCopyUB2GMImpl((__gm__ float*)out, (__ubuf__ float*)t.GetPhyAddr(), {1, BLOCKS, 0, 0});
}
KW_EXPORT_KERNEL(rawcopy)
"""


# 16 stays in the 512-byte padding, 32 passes its block into free segment memory (a gm.past_allocation warning)
@pytest.mark.parametrize("blocks, errors", [(8, []), (32, [])])
def test_raw_pointer_data_copies_are_checked_copies(tmp_path, blocks, errors):
    a = np.arange(64, dtype=np.float32)
    r = h.build_and_run(tmp_path, h.kernel_source(RAWCOPY.replace("BLOCKS", str(blocks))), "rawcopy",
                        [h.Buf("a", a), h.Buf("out", nbytes=256, role="out")], [("buffer", "a"), ("buffer", "out")])
    assert r.rules("error") == errors, r.diags
    assert bool(r.rules("warning").count("gm.past_allocation")) == (blocks == 32)
    if not errors:
        np.testing.assert_array_equal(r.outputs["out"], a + 1)
