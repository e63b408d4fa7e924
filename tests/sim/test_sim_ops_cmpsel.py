"""Compare / CompareScalar / CMPMASK register / Select against NumPy, and their diagnostics."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import sim_harness_ops as h  # noqa: E402

pytestmark = pytest.mark.skipif(not h.have_compiler(), reason="clang++-16 not installed")

MODES = ["LT", "GT", "EQ", "LE", "GE", "NE"]
NP_OPS = [np.less, np.greater, np.equal, np.less_equal, np.greater_equal, np.not_equal]


def bits(a: np.ndarray, n: int) -> np.ndarray:
    return np.unpackbits(a.view(np.uint8), bitorder="little")[:n].astype(bool)


def packbits(b: np.ndarray) -> np.ndarray:
    return np.packbits(b.astype(np.uint8), bitorder="little")


COMPARE_ALL = r"""
extern "C" __global__ __aicore__ void cmp_all(GM_ADDR a, GM_ADDR b, GM_ADDR out) {
    TPipe pipe;
    In<float> x, y; x.load(pipe, a, 128); y.load(pipe, b, 128);
    Out<uint8_t> o; o.init(pipe, out, 6 * 32);
    const CMPMODE modes[6] = {CMPMODE::LT, CMPMODE::GT, CMPMODE::EQ, CMPMODE::LE, CMPMODE::GE, CMPMODE::NE};
    for (int i = 0; i < 6; ++i) Compare(o.t[32 * i], x.t, y.t, modes[i], 128);
    o.store();
}
KW_EXPORT_KERNEL(cmp_all)
"""


def test_compare_count_form_all_modes(tmp_path):
    rng = np.random.default_rng(0)
    a = rng.integers(-3, 3, 128).astype(np.float32)
    b = rng.integers(-3, 3, 128).astype(np.float32)
    r = h.build_and_run(tmp_path, h.kernel_source(COMPARE_ALL), "cmp_all",
                        [h.Buf("a", a), h.Buf("b", b), h.Buf("out", nbytes=192, role="out", dtype="uint8")],
                        [("buffer", "a"), ("buffer", "b"), ("buffer", "out")])
    assert r.status == 0, r.diags
    out = r.outputs["out"].reshape(6, 32)
    for i, op in enumerate(NP_OPS):
        assert np.array_equal(out[i, :16], packbits(op(a, b))), MODES[i]


SELECT_FORMS = r"""
extern "C" __global__ __aicore__ void select_forms(GM_ADDR a, GM_ADDR b, GM_ADDR m, GM_ADDR out) {
    TPipe pipe;
    In<half> x, y; x.load(pipe, a, 256); y.load(pipe, b, 256);
    In<uint8_t> sel; sel.load(pipe, m, 32);
    Out<half> o; o.init(pipe, out, 5 * 256);
    Tmp<uint8_t> bits; bits.init(pipe, 64);
    Tmp<uint64_t> addr; addr.init(pipe, 4);
    // mode 2, count form: one bit per element, consumed continuously
    Select(o.t, sel.t, x.t, y.t, SELMODE::VSEL_TENSOR_TENSOR_MODE, 256);
    // mode 1, mask form (scalar src1), 2 repeats of 128
    Select(o.t[256], sel.t, x.t, (half)-7.0, SELMODE::VSEL_TENSOR_SCALAR_MODE, 128, 2, BinaryRepeatParams());
    // mode 0, mask form: every repeat reuses the first 128 bits
    Select(o.t[512], sel.t, x.t, y.t, SELMODE::VSEL_CMPMASK_SPR, 128, 2, BinaryRepeatParams());
    // register Compare (one repeat, masked lanes give 0) -> GetCmpMask -> SetCmpMask -> Select<T, mode 0>
    Compare(x.t, y.t, CMPMODE::GT, 64, BinaryRepeatParams());
    GetCmpMask(bits.t);
    PipeBarrier<PIPE_V>();
    SetCmpMask(bits.t);
    PipeBarrier<PIPE_V>();
    SetVectorMask<half, MaskMode::NORMAL>(128);
    Select<half, SELMODE::VSEL_CMPMASK_SPR>(o.t[768], x.t, y.t, 2, BinaryRepeatParams());
    // mode 2 through the register: it holds the address of the selection mask (CPU-debug style)
    addr.t.SetValue(0, (uint64_t)reinterpret_cast<uintptr_t>(sel.t.GetPhyAddr()));
    SetFlag<HardEvent::S_V>(EVENT_ID0);
    WaitFlag<HardEvent::S_V>(EVENT_ID0);
    SetCmpMask(addr.t);
    PipeBarrier<PIPE_V>();
    Select<half, SELMODE::VSEL_TENSOR_TENSOR_MODE>(o.t[1024], x.t, y.t, 2, BinaryRepeatParams());
    ResetMask();
    o.store();
}
KW_EXPORT_KERNEL(select_forms)
"""


def test_select_all_modes_and_cmpmask_register(tmp_path):
    rng = np.random.default_rng(1)
    a = rng.standard_normal(256).astype(np.float16)
    b = rng.standard_normal(256).astype(np.float16)
    m = rng.integers(0, 256, 32).astype(np.uint8)
    r = h.build_and_run(tmp_path, h.kernel_source(SELECT_FORMS), "select_forms",
                        [h.Buf("a", a), h.Buf("b", b), h.Buf("m", m), h.Buf("out", nbytes=5 * 512, role="out", dtype="float16")],
                        [("buffer", "a"), ("buffer", "b"), ("buffer", "m"), ("buffer", "out")])
    assert r.status == 0, r.diags
    out = r.outputs["out"].reshape(5, 256)
    sel = bits(m, 256)
    assert np.array_equal(out[0], np.where(sel, a, b))
    assert np.array_equal(out[1], np.where(sel, a, np.float16(-7)))
    assert np.array_equal(out[2], np.where(np.tile(sel[:128], 2), a, b))
    gt = np.zeros(128, bool)
    gt[:64] = a[:64] > b[:64]
    assert np.array_equal(out[3], np.where(np.tile(gt, 2), a, b))
    assert np.array_equal(out[4], np.where(sel, a, b))


COMPARE_SCALAR = r"""
extern "C" __global__ __aicore__ void cmps(GM_ADDR a, GM_ADDR out) {
    TPipe pipe;
    In<half> x; x.load(pipe, a, 256);
    Out<uint8_t> o; o.init(pipe, out, 64);
    CompareScalar(o.t, x.t, (half)0.25, CMPMODE::GE, 256);
    UnaryRepeatParams p;
    uint64_t mask[2] = {0xffull, 0};  // ignored on A2/A3: every lane is compared
    CompareScalar(o.t[32], x.t, (half)0.25, CMPMODE::LT, mask, 2, p);
    o.store();
}
KW_EXPORT_KERNEL(cmps)
"""


def test_compare_scalar_count_and_mask_forms(tmp_path):
    a = np.linspace(-1, 1, 256).astype(np.float16)
    r = h.build_and_run(tmp_path, h.kernel_source(COMPARE_SCALAR), "cmps",
                        [h.Buf("a", a), h.Buf("out", nbytes=64, role="out", dtype="uint8")], [("buffer", "a"), ("buffer", "out")])
    assert r.status == 0, r.diags
    assert np.array_equal(r.outputs["out"][:32], packbits(a >= np.float16(0.25)))
    assert np.array_equal(r.outputs["out"][32:], packbits(a < np.float16(0.25)))


def _one_shot(tmp_path, body: str, kernel: str, n_in: int = 256, dtype="float32"):
    a = np.ones(n_in, dtype=dtype)
    return h.build_and_run(tmp_path, h.kernel_source(body), kernel,
                           [h.Buf("a", a), h.Buf("out", nbytes=4096, role="out", dtype="uint8")], [("buffer", "a"), ("buffer", "out")])


def test_compare_count_must_fill_whole_repeats(tmp_path):
    body = r"""
extern "C" __global__ __aicore__ void cmp_tail(GM_ADDR a, GM_ADDR out) {
    TPipe pipe;
    In<float> x; x.load(pipe, a, 256);
    Out<uint8_t> o; o.init(pipe, out, 64);
    Compare(o.t, x.t, x.t, CMPMODE::EQ, 200);  // 800 bytes: not a multiple of 256
    o.store();
}
KW_EXPORT_KERNEL(cmp_tail)
"""
    r = _one_shot(tmp_path, body, "cmp_tail")
    assert r.status != 0
    assert "vec.cmp_count_align" in r.rules("error")


def test_int32_compare_only_eq(tmp_path):
    body = r"""
extern "C" __global__ __aicore__ void cmp_i32(GM_ADDR a, GM_ADDR out) {
    TPipe pipe;
    In<int32_t> x; x.load(pipe, a, 64);
    Out<uint8_t> o; o.init(pipe, out, 32);
    Compare(o.t, x.t, x.t, CMPMODE::EQ, 64);
    Compare(o.t, x.t, x.t, CMPMODE::LT, 64);
    o.store();
}
KW_EXPORT_KERNEL(cmp_i32)
"""
    r = _one_shot(tmp_path, body, "cmp_i32", 64, "int32")
    assert r.rules("error") == ["vec.cmp_mode"]


def test_select_scratch_warning_when_buffers_reach_last_8k(tmp_path):
    body = r"""
extern "C" __global__ __aicore__ void sel_scratch(GM_ADDR a, GM_ADDR out) {
    TPipe pipe;
    In<float> x; x.load(pipe, a, 64);
    Out<float> o; o.init(pipe, out, 64);
    Tmp<uint8_t> big; big.init(pipe, 190 * 1024);   // UB is now full up to the last 8 KiB and beyond
    Tmp<uint8_t> m; m.init(pipe, 32);
    Duplicate(m.t.ReinterpretCast<uint16_t>(), (uint16_t)0xffff, 16);
    PipeBarrier<PIPE_V>();
    Select(o.t, m.t, x.t, 1.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, 64);
    o.store();
}
KW_EXPORT_KERNEL(sel_scratch)
"""
    a = np.arange(64, dtype=np.float32)
    r = h.build_and_run(tmp_path, h.kernel_source(body), "sel_scratch",
                        [h.Buf("a", a), h.Buf("out", nbytes=256, role="out")], [("buffer", "a"), ("buffer", "out")])
    assert "ub.reserved_scratch" in r.rules("warning")


SHORT = r"""
extern "C" __global__ __aicore__ void cmp_short(GM_ADDR a, GM_ADDR b, GM_ADDR out) {
    TPipe pipe;
    In<float> x, y; x.load(pipe, a, 8); y.load(pipe, b, 8);
    Out<uint8_t> o; o.init(pipe, out, 32);
    Compare(o.t, x.t, y.t, CMPMODE::EQ, 8, 1, {1, 1, 1, 8, 8, 8});
    o.store();
}
KW_EXPORT_KERNEL(cmp_short)
"""


def test_mask_form_on_a_short_tensor_reads_the_whole_repeat_with_a_warning(tmp_path):
    """A2/A3 Compare ignores the mask (a reserved parameter there): 8 compared floats read all 64 lanes, past the
    8-element tensors into the bytes after them (NPUKernelBench CrossEntropyLossGrad). Within UB that is a warning."""
    a = np.arange(8, dtype=np.float32)
    b = np.float32([0, 9, 2, 9, 4, 9, 6, 9])
    r = h.build_and_run(tmp_path, h.kernel_source(SHORT), "cmp_short",
                        [h.Buf("a", a), h.Buf("b", b), h.Buf("out", nbytes=32, role="out", dtype="uint8")],
                        [("buffer", "a"), ("buffer", "b"), ("buffer", "out")])
    assert r.status == 0, r.diags
    assert "cmp.whole_repeat" in r.rules("warning")
    assert np.array_equal(bits(r.outputs["out"], 8), a == b)
