"""High-level APIs (math, activations, softmax family, norms, Sum/Mean/CumSum) against NumPy, and
the temporary-space and shape checks."""
from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import sim_harness_ops as h  # noqa: E402

pytestmark = pytest.mark.skipif(not h.have_compiler(), reason="clang++-16 not installed")

MATH = r"""
extern "C" __global__ __aicore__ void hl_math(GM_ADDR a, GM_ADDR b, GM_ADDR out) {
    TPipe pipe;
    In<float> x, e; x.load(pipe, a, 64); e.load(pipe, b, 64);
    Out<float> y; y.init(pipe, out, 64 * 24);
    Tmp<uint8_t> tmp; tmp.init(pipe, 1024);
    LocalTensor<float> o = y.t;
    Tanh(o[0], x.t, tmp.t, 64);
    Sigmoid(o[64], x.t, 64);
    Erf(o[128], x.t, tmp.t);
    Sin(o[192], x.t);
    Atan(o[256], x.t, 64);
    Sign(o[320], x.t, tmp.t, 64);
    Floor(o[384], x.t, 64);
    Round(o[448], x.t, tmp.t, 64);
    Frac(o[512], x.t, 64);
    Exp<float, 0>(o[576], x.t, 64);
    Exp<float, 3>(o[640], x.t, tmp.t, 64);
    Gelu(o[704], x.t, 64);
    FasterGelu(o[768], x.t, tmp.t, 64);
    Silu(o[832], x.t, 64);
    Swish(o[896], x.t, 64, 1.5f);
    Power(o[960], e.t, x.t, 64);
    Power(o[1024], e.t, 2.0f, tmp.t, 64);
    Power(o[1088], 2.0f, x.t, 64);
    ClampMax(o[1152], x.t, tmp.t, 0.5f, 64);
    ClampMin(o[1216], x.t, -0.5f, 64);
    Log(o[1280], e.t, 64);
    Log10(o[1344], e.t);
    Duplicate(o[1408], 1.0f, 64);
    PipeBarrier<PIPE_V>();
    Axpy<float, float>(o[1408], x.t, 3.0f, tmp.t, 64);
    Cosh(o[1472], x.t, tmp.t);
    y.store();
}
KW_EXPORT_KERNEL(hl_math)
"""


def test_math_family_float(tmp_path):
    rng = np.random.default_rng(5)
    x = (rng.standard_normal(64) * 2).astype(np.float32)
    x[:4] = [2.5, -2.5, 0.0, 1.5]
    e = rng.uniform(0.5, 3.0, 64).astype(np.float32)
    r = h.build_and_run(tmp_path, h.kernel_source(MATH), "hl_math",
                        [h.Buf("a", x), h.Buf("b", e), h.Buf("out", nbytes=64 * 24 * 4, role="out")],
                        [("buffer", "a"), ("buffer", "b"), ("buffer", "out")])
    assert r.status == 0, r.diags
    o = r.outputs["out"].reshape(24, 64).astype(np.float64)
    xd, ed = x.astype(np.float64), e.astype(np.float64)
    erf = np.vectorize(math.erf)
    sig = 1 / (1 + np.exp(-xd))
    taylor = np.exp(np.floor(xd)) * sum((xd - np.floor(xd)) ** k / math.factorial(k) for k in range(4))
    expected = [np.tanh(xd), sig, erf(xd), np.sin(xd), np.arctan(xd), np.sign(xd), np.floor(xd), np.rint(xd), xd - np.trunc(xd),
                np.exp(xd), taylor, xd / (1 + np.exp(-1.5957691216 * (xd + 0.044715 * xd ** 3))), xd / (1 + np.exp(-1.702 * xd)),
                xd * sig, xd / (1 + np.exp(-1.5 * xd)), ed ** xd, ed ** 2, 2.0 ** xd, np.minimum(xd, 0.5), np.maximum(xd, -0.5),
                np.log(ed), np.log10(ed), 1 + 3 * xd, np.cosh(xd)]
    for i, ref in enumerate(expected):
        np.testing.assert_allclose(o[i], ref, rtol=2e-6, atol=2e-6, err_msg=f"slot {i}")


HALF_ACT = r"""
extern "C" __global__ __aicore__ void hl_half(GM_ADDR a, GM_ADDR out) {
    TPipe pipe;
    In<half> x; x.load(pipe, a, 128);
    Out<half> y; y.init(pipe, out, 512);
    Tmp<uint8_t> tmp; tmp.init(pipe, 512);
    Sigmoid(y.t, x.t, tmp.t, 128);
    Gelu(y.t[128], x.t, tmp.t, 128);
    Tanh(y.t[256], x.t);
    ClampMin(y.t[384], x.t, (half)0, 128);
    y.store();
}
KW_EXPORT_KERNEL(hl_half)
"""


def test_half_inputs_compute_in_fp32_and_round_once_but_sigmoid_rounds_each_step(tmp_path):
    """Sigmoid is four vector instructions on T in CANN (SigmoidIntrinsicsImpl: Muls -1, Exp, Adds 1, Div), so
    half data is rounded after Exp and after the add, as torch rounds `1 / (1 + torch.exp(-x))` in half."""
    x = np.linspace(-4, 4, 128).astype(np.float16)
    r = h.build_and_run(tmp_path, h.kernel_source(HALF_ACT), "hl_half",
                        [h.Buf("a", x), h.Buf("out", nbytes=1024, role="out", dtype="float16")], [("buffer", "a"), ("buffer", "out")])
    assert r.status == 0, r.diags
    o = r.outputs["out"].reshape(4, 128)
    xf = x.astype(np.float32)
    e = np.exp(-xf).astype(np.float16).astype(np.float32)
    stepwise = (1 / (1 + e).astype(np.float16).astype(np.float32)).astype(np.float16)
    assert np.array_equal(o[0], stepwise)
    assert not np.array_equal(stepwise, (1 / (1 + np.exp(-xf))).astype(np.float16))   # rounding once differs
    np.testing.assert_allclose(o[1].astype(np.float32), xf / (1 + np.exp(-1.5957691216 * (xf + 0.044715 * xf ** 3))), atol=4e-3, rtol=2e-3)
    assert np.array_equal(o[2], np.tanh(xf).astype(np.float16))
    assert np.array_equal(o[3], np.maximum(x, 0))


SOFTMAX = r"""
extern "C" __global__ __aicore__ void hl_softmax(GM_ADDR a, GM_ADDR ah, GM_ADDR out, GM_ADDR outh) {
    TPipe pipe;
    In<float> x; x.load(pipe, a, 8 * 64);
    In<half> xh; xh.load(pipe, ah, 8 * 64);
    Out<float> y; y.init(pipe, out, 8 * 64 * 5 + 8 * 8 * 10);
    Out<half> yh; yh.init(pipe, outh, 8 * 64);
    Tmp<uint8_t> tmp; tmp.init(pipe, 4096);
    LocalTensor<float> o = y.t, st = y.t[8 * 64 * 5];        // st: 10 stat tensors of [8 rows x 8]
    SoftMaxTiling tiling;                                     // empty: the shape comes from SoftMaxShapeInfo
    SoftMaxShapeInfo shape{8, 64, 8, 64};
    SoftMax<float>(o, st, st[64], x.t, tmp.t, tiling, shape);
    SoftMaxTiling fromTiling;
    fromTiling.srcM = 8;
    fromTiling.srcK = 64;
    SoftMax<float>(o[512], x.t, fromTiling);                  // dst/src form, shape from the tiling
    SimpleSoftMax<float>(o[1024], st, st[64], x.t, tiling, shape);
    LogSoftMaxTiling lt;
    LocalTensor<float> logDst = o[1536];
    LogSoftMax<float>(logDst, st[128], st[192], x.t, tmp.t, lt, shape);
    SoftmaxFlashV2<float, true>(o[2048], st[256], st[320], x.t, st[384], st, st[64], tmp.t, tiling, shape);
    SoftMax<half>(yh.t, st[448], st[512], xh.t, tiling, shape);   // half data, float statistics
    y.store(); yh.store();
}
KW_EXPORT_KERNEL(hl_softmax)
"""


def test_softmax_family(tmp_path):
    rng = np.random.default_rng(6)
    x = (rng.standard_normal((8, 64)) * 3).astype(np.float32)
    xh = x.astype(np.float16)
    nf = 8 * 64 * 5 + 8 * 8 * 10
    r = h.build_and_run(tmp_path, h.kernel_source(SOFTMAX), "hl_softmax",
                        [h.Buf("a", x), h.Buf("ah", xh), h.Buf("out", nbytes=nf * 4, role="out"),
                         h.Buf("outh", nbytes=8 * 64 * 2, role="out", dtype="float16")],
                        [("buffer", "a"), ("buffer", "ah"), ("buffer", "out"), ("buffer", "outh")])
    assert r.status == 0, r.diags
    o = r.outputs["out"]
    st = o[8 * 64 * 5:].reshape(10, 8, 8)  # stat tensor, row, broadcast lane
    mx = x.max(1, keepdims=True)
    ex = np.exp(x - mx)
    sm = ex / ex.sum(1, keepdims=True)
    np.testing.assert_allclose(o[:512].reshape(8, 64), sm, rtol=1e-5, atol=1e-7)
    assert np.allclose(st[0], ex.sum(1, keepdims=True), rtol=1e-5) and np.array_equal(st[1], np.repeat(mx, 8, 1))
    np.testing.assert_allclose(o[512:1024].reshape(8, 64), sm, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(o[1024:1536].reshape(8, 64), sm, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(o[1536:2048].reshape(8, 64), x - mx - np.log(ex.sum(1, keepdims=True)), rtol=1e-5, atol=1e-5)
    # flash v2 with update against the running (max, sum) of the first SoftMax call: here both equal this block's own
    new_max = mx
    np.testing.assert_allclose(o[2048:2560].reshape(8, 64), np.exp(x - new_max), rtol=1e-5)
    np.testing.assert_allclose(st[4][:, 0], 2 * ex.sum(1), rtol=1e-5)  # exp(0) * inSum + sum
    np.testing.assert_allclose(st[6][:, 0], np.ones(8), rtol=1e-6)      # expMax = exp(inMax - max) = 1
    ref_h = np.exp(xh.astype(np.float32) - xh.astype(np.float32).max(1, keepdims=True))
    ref_h = (ref_h / ref_h.sum(1, keepdims=True)).astype(np.float16)
    np.testing.assert_allclose(r.outputs["outh"].reshape(8, 64).astype(np.float32), ref_h, atol=1e-3)


NORMS = r"""
extern "C" __global__ __aicore__ void hl_norms(GM_ADDR a, GM_ADDR g, GM_ADDR out) {
    TPipe pipe;
    In<float> x; x.load(pipe, a, 4 * 64);
    In<float> gb; gb.load(pipe, g, 128);
    Out<float> y; y.init(pipe, out, 4 * 64 * 5 + 256);
    Tmp<uint8_t> tmp; tmp.init(pipe, 2048);
    LocalTensor<float> o = y.t, stat = y.t[1280];
    LayerNormTiling ln;
    ln.bLength = 2; ln.sLength = 2; ln.hLength = 64; ln.originalHLength = 60;   // padded rows
    LayerNorm<float>(o, stat, stat[8], x.t, gb.t, gb.t[64], tmp.t, 1e-5f, ln);
    RmsNormTiling rn;
    rn.bLength = 1; rn.sLength = 4; rn.hLength = 64; rn.originalHLength = 64;
    RmsNorm(o[256], x.t, gb.t, 1e-5f, rn);
    BatchNormTiling bn;
    bn.originalBLength = 4; bn.meanVarSize = 64;
    BatchNorm<float>(o[512], stat[16], stat[80], x.t, gb.t, gb.t[8], tmp.t, 1e-5f, bn);
    GroupNormTiling gn;
    gn.n = 2; gn.c = 4; gn.hw = 32; gn.g = 2;
    GroupNorm<float>(o[768], stat[144], stat[152], x.t, gb.t, gb.t[8], 1e-5f, gn);
    LayerNormPara para{4, 64, 64};
    LayerNormSeparateTiling sep;
    LayerNorm<float, float>(o[1024], stat[160], stat[168], x.t, gb.t, gb.t[64], 1e-5f, tmp.t, para, sep);
    y.store();
}
KW_EXPORT_KERNEL(hl_norms)
"""


def test_layernorm_rmsnorm_batchnorm_groupnorm(tmp_path):
    rng = np.random.default_rng(7)
    x = (rng.standard_normal(256) * 2 + 1).astype(np.float32)
    g = rng.uniform(0.5, 1.5, 128).astype(np.float32)
    r = h.build_and_run(tmp_path, h.kernel_source(NORMS), "hl_norms",
                        [h.Buf("a", x), h.Buf("g", g), h.Buf("out", nbytes=(1280 + 256) * 4, role="out")],
                        [("buffer", "a"), ("buffer", "g"), ("buffer", "out")])
    assert r.status == 0, r.diags
    o, stat = r.outputs["out"][:1280], r.outputs["out"][1280:]
    eps = 1e-5
    rows = x.reshape(4, 64).astype(np.float64)
    v = rows[:, :60]
    ln = (v - v.mean(1, keepdims=True)) / np.sqrt(v.var(1, keepdims=True) + eps) * g[:60] + g[64:124]
    np.testing.assert_allclose(o[:256].reshape(4, 64)[:, :60], ln, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(stat[:4], v.mean(1), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(stat[8:12], v.var(1), rtol=1e-5)
    rms = rows / np.sqrt((rows ** 2).mean(1, keepdims=True) + eps) * g[:64]
    np.testing.assert_allclose(o[256:512].reshape(4, 64), rms, rtol=1e-5, atol=1e-6)
    bm, bv = rows.mean(0), rows.var(0)
    bn = (rows - bm) / np.sqrt(bv + eps) * g[:4, None] + g[8:12, None]
    np.testing.assert_allclose(o[512:768].reshape(4, 64), bn, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(stat[16:80], bm, rtol=1e-5, atol=1e-6)
    grp = x.reshape(2, 2, 2 * 32).astype(np.float64)  # n, g, d*hw
    gm, gv = grp.mean(2, keepdims=True), grp.var(2, keepdims=True)
    gamma = np.repeat(g[:4].reshape(2, 2), 32, 1)[None]  # channel of each element in a group
    beta = np.repeat(g[8:12].reshape(2, 2), 32, 1)[None]
    gn = (grp - gm) / np.sqrt(gv + eps) * gamma + beta
    np.testing.assert_allclose(o[768:1024].reshape(2, 2, 64), gn, rtol=1e-5, atol=1e-5)
    ln2 = (rows - rows.mean(1, keepdims=True)) / np.sqrt(rows.var(1, keepdims=True) + eps) * g[:64] + g[64:128]
    np.testing.assert_allclose(o[1024:1280].reshape(4, 64), ln2, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(stat[168:172], 1 / np.sqrt(rows.var(1) + eps), rtol=1e-5)


REDUCE = r"""
extern "C" __global__ __aicore__ void hl_reduce(GM_ADDR a, GM_ADDR ah, GM_ADDR out, GM_ADDR outh) {
    TPipe pipe;
    In<float> x; x.load(pipe, a, 4 * 64);
    In<half> xh; xh.load(pipe, ah, 2 * 400);
    Out<float> y; y.init(pipe, out, 4 * 64 * 4);
    Out<half> yh; yh.init(pipe, outh, 32);
    Tmp<uint8_t> tmp; tmp.init(pipe, 1024);
    SumParams sp{4, 64, 60};
    Sum(y.t, x.t, tmp.t, sp);
    MeanParams mp{2, 400, 400};
    Mean<half, float>(yh.t, xh.t, mp);
    Mean<half>(yh.t[16], xh.t, tmp.t, mp);
    LocalTensor<float> cs = y.t[256], last = y.t[512], cs2 = y.t[576];
    CumSumInfo ci{4, 64};
    CumSum<float>(cs, last, x.t, tmp.t, ci);
    static constexpr CumSumConfig firstAxis{false, false, false};
    CumSum<float, firstAxis>(cs2, last, x.t, ci);
    y.store(); yh.store();
}
KW_EXPORT_KERNEL(hl_reduce)
"""


def test_sum_mean_cumsum(tmp_path):
    rng = np.random.default_rng(8)
    x = rng.standard_normal(256).astype(np.float32)
    xh = (rng.standard_normal(800) * 4).astype(np.float16)
    r = h.build_and_run(tmp_path, h.kernel_source(REDUCE), "hl_reduce",
                        [h.Buf("a", x), h.Buf("ah", xh), h.Buf("out", nbytes=256 * 4 * 4, role="out"),
                         h.Buf("outh", nbytes=64, role="out", dtype="float16")],
                        [("buffer", "a"), ("buffer", "ah"), ("buffer", "out"), ("buffer", "outh")])
    assert r.status == 0, r.diags
    o, oh = r.outputs["out"], r.outputs["outh"]
    rows = x.reshape(4, 64)
    np.testing.assert_allclose(o[:4], rows[:, :60].sum(1), rtol=1e-5, atol=1e-6)
    hr = xh.reshape(2, 400).astype(np.float64)
    np.testing.assert_allclose(oh[:2].astype(np.float64), hr.mean(1), atol=2e-3)
    np.testing.assert_allclose(oh[16:18].astype(np.float64), hr.mean(1), atol=2e-2)  # accumulated in half
    np.testing.assert_allclose(o[256:512].reshape(4, 64), np.cumsum(rows, 1), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(o[512:576], np.cumsum(rows, 1)[-1], rtol=1e-5, atol=1e-5)  # the last row (first call)
    np.testing.assert_allclose(o[576:832].reshape(4, 64), np.cumsum(rows, 0), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("setup,call,rule", [
    ("Tmp<uint8_t> tmp; tmp.init(pipe, 128);", "Tanh(y.t, x.t, tmp.t, 64);", "hl.tmp_size"),
    ("Tmp<uint8_t> tmp; tmp.init(pipe, 512);", "Tanh(y.t, x.t, tmp.t.ReinterpretCast<uint8_t>(), 64); Tanh(y.t, x.t, x.t.ReinterpretCast<uint8_t>(), 64);",
     "hl.tmp_overlap"),
    ("Tmp<uint8_t> big; big.init(pipe, 196608 - 512 - 128);", "Sigmoid(y.t, x.t, 64);", "hl.stack_space"),
    ("", "SoftMaxTiling t; SoftMax<float>(y.t, x.t, t);", "hl.shape"),
    ("", "SoftMaxTiling t; SoftMax<float>(y.t, x.t, t, SoftMaxShapeInfo{4, 10, 4, 10});", "hl.shape"),
    ("", "SumParams p{1, 10, 10}; Sum(y.t, x.t, p);", "hl.shape"),
])
def test_highlevel_misuse(tmp_path, setup, call, rule):
    body = r"""
extern "C" __global__ __aicore__ void hl_misuse(GM_ADDR a, GM_ADDR out) {
    TPipe pipe;
    In<float> x; x.load(pipe, a, 64);
    Out<float> y; y.init(pipe, out, 64);
    SETUP
    CALL
    y.store();
}
KW_EXPORT_KERNEL(hl_misuse)
""".replace("SETUP", setup).replace("CALL", call)
    r = h.build_and_run(tmp_path, h.kernel_source(body), "hl_misuse",
                        [h.Buf("a", np.ones(64, np.float32)), h.Buf("out", nbytes=256, role="out")], [("buffer", "a"), ("buffer", "out")])
    assert r.rules("error") == [rule], r.diags


def test_inplace_elementwise_is_a_warning(tmp_path):
    body = r"""
extern "C" __global__ __aicore__ void hl_inplace(GM_ADDR a, GM_ADDR out) {
    TPipe pipe;
    Out<float> y; y.init(pipe, out, 64);
    Duplicate(y.t, 2.0f, 64);
    PipeBarrier<PIPE_V>();
    Sigmoid(y.t, y.t, 64);
    y.store();
}
KW_EXPORT_KERNEL(hl_inplace)
"""
    r = h.build_and_run(tmp_path, h.kernel_source(body), "hl_inplace",
                        [h.Buf("a", np.ones(64, np.float32)), h.Buf("out", nbytes=256, role="out")], [("buffer", "a"), ("buffer", "out")])
    assert r.status == 0 and r.rules() == ["hl.overlap"]
    np.testing.assert_allclose(r.outputs["out"], 1 / (1 + np.exp(-2.0)), rtol=1e-6)


def test_operands_are_tracked_for_pipe_hazards(tmp_path):
    body = r"""
extern "C" __global__ __aicore__ void hl_hazard(GM_ADDR a, GM_ADDR out) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 512);
    LocalTensor<float> x = buf.Get<float>(64), y = buf.GetWithOffset<float>(64, 256);
    GlobalTensor<float> g; g.SetGlobalBuffer((__gm__ float*)a, 64);
    DataCopy(x, g, 64);            // MTE2 writes x ...
    Tanh(y, x, 64);                // ... and the vector pipe reads it with no MTE2 -> V flag
}
KW_EXPORT_KERNEL(hl_hazard)
"""
    r = h.build_and_run(tmp_path, h.kernel_source(body), "hl_hazard",
                        [h.Buf("a", np.ones(64, np.float32)), h.Buf("out", nbytes=256, role="out")], [("buffer", "a"), ("buffer", "out")])
    assert r.rules("error") == ["pipe.hazard.raw"]
    assert r.diags[0]["api"] == "Tanh"


SELECT_BYTES = r"""
extern "C" __global__ __aicore__ void sel_bytes(GM_ADDR a, GM_ADDR m, GM_ADDR out) {
    TPipe pipe;
    In<half> x; x.load(pipe, a, 64);                  // [4, 16]
    In<uint8_t> mk; mk.load(pipe, m, 128);            // [4, 32]: 16 extra columns
    Out<half> y; y.init(pipe, out, 128);
    Tmp<uint8_t> tmp; tmp.init(pipe, 1024);
    SelectWithBytesMaskShapeInfo info;
    info.firstAxis = 4; info.srcLastAxis = 16; info.maskLastAxis = 32;
    SelectWithBytesMask<half, uint8_t, false>(y.t, x.t, (half)-1.0, mk.t, tmp.t, info);   // mask 0 -> x, else -1
    SelectWithBytesMask(y.t[64], (half)7.0, x.t, mk.t, tmp.t, info);                     // mask 0 -> 7, else x
    y.store();
}
KW_EXPORT_KERNEL(sel_bytes)
"""


def test_select_with_bytes_mask(tmp_path):
    rng = np.random.default_rng(5)
    x = rng.standard_normal(64).astype(np.float16)
    mask = rng.integers(0, 2, 128).astype(np.uint8) * rng.integers(1, 9, 128).astype(np.uint8)
    r = h.build_and_run(tmp_path, h.kernel_source(SELECT_BYTES), "sel_bytes",
                        [h.Buf("a", x), h.Buf("m", mask), h.Buf("out", nbytes=256, role="out")],
                        [("buffer", "a"), ("buffer", "m"), ("buffer", "out")])
    assert r.status == 0, r.diags
    y = r.outputs["out"].view(np.float16)
    sel = mask.reshape(4, 32)[:, :16].reshape(-1) != 0        # the mask's extra columns take no part
    np.testing.assert_array_equal(y[:64], np.where(sel, np.float16(-1), x))
    np.testing.assert_array_equal(y[64:], np.where(sel, x, np.float16(7)))


SOFTMAX_GRAD = r"""
extern "C" __global__ __aicore__ void sm_grad(GM_ADDR a, GM_ADDR b, GM_ADDR out) {
    TPipe pipe;
    In<float> g, x; g.load(pipe, a, 64); x.load(pipe, b, 64);   // [4, 16]
    Out<float> y; y.init(pipe, out, 96);
    Tmp<uint8_t> tmp; tmp.init(pipe, 1024);
    SoftMaxTiling tiling{};
    SoftMaxShapeInfo shape{4, 16, 4, 16};
    SoftmaxGrad<float>(y.t, g.t, x.t, tmp.t, tiling, false, shape);
    SoftmaxGradFront<float>(y.t[64], g.t, x.t, tmp.t, tiling, shape);   // one 32-byte block per row
    y.store();
}
KW_EXPORT_KERNEL(sm_grad)
"""


def test_softmax_grad_and_front(tmp_path):
    rng = np.random.default_rng(9)
    g, x = rng.standard_normal(64).astype(np.float32), rng.random(64).astype(np.float32)
    r = h.build_and_run(tmp_path, h.kernel_source(SOFTMAX_GRAD), "sm_grad",
                        [h.Buf("a", g), h.Buf("b", x), h.Buf("out", nbytes=384, role="out")],
                        [("buffer", "a"), ("buffer", "b"), ("buffer", "out")])
    assert r.status == 0, r.diags
    y = r.outputs["out"]
    gm, xm = g.reshape(4, 16), x.reshape(4, 16)
    s = (gm * xm).sum(-1, keepdims=True)
    np.testing.assert_allclose(y[:64].reshape(4, 16), gm * xm - s * xm, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(y[64:].reshape(4, 8), np.repeat(s, 8, 1), rtol=1e-5)
