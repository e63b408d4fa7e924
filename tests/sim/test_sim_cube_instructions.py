"""The cube instructions on small shapes against NumPy: DataCopy ND->NZ into L1, LoadData (with
and without the b16 transpose) and LoadDataWithTranspose into L0A/L0B, Mmad with and without a
bias-table operand, Fixpipe NZ->ND with F322F16 and ReLU; and the misuse the NPU punishes."""
import numpy as np
import pytest

from kernelwright.tools.project import KernelProject
from kernelwright.tools.toolchain import ArgSpec, Case, OutputSpec

# One tile C[m, n] = A[m, k] x B (B as [k, n], or as [n, k] when TRANS_B), all of it in L0.
CUBE = r'''
#include "kernel_operator.h"
using namespace AscendC;
constexpr uint32_t Align(uint32_t v, uint32_t a) { return (v + a - 1) / a * a; }

template <typename T, typename C, typename OutT, bool TRANS_B, bool BIAS, bool RELU>
__aicore__ inline void Tile(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c, uint32_t m, uint32_t n, uint32_t k) {
    constexpr uint32_t C0 = 32 / sizeof(T), FRAC = 512 / sizeof(T);
    const uint32_t mA = Align(m, 16), nA = Align(n, 16), kA = Align(k, TRANS_B ? C0 : 16);
    TPipe pipe;
    TQue<QuePosition::A1, 1> qa1; TQue<QuePosition::B1, 1> qb1; TQue<QuePosition::C1, 1> qbias1;
    TQue<QuePosition::A2, 1> qa2; TQue<QuePosition::B2, 1> qb2; TQue<QuePosition::C2, 1> qbias2;
    TQue<QuePosition::CO1, 1> qc;
    pipe.InitBuffer(qa1, 1, mA * Align(k, C0) * sizeof(T));
    pipe.InitBuffer(qb1, 1, kA * nA * sizeof(T));
    pipe.InitBuffer(qa2, 1, mA * Align(k, C0) * sizeof(T));
    pipe.InitBuffer(qb2, 1, kA * nA * sizeof(T));
    pipe.InitBuffer(qc, 1, mA * nA * sizeof(C));
    pipe.InitBuffer(qbias1, 1, nA * sizeof(float));
    pipe.InitBuffer(qbias2, 1, nA * sizeof(float));
    GlobalTensor<T> ag, bg; GlobalTensor<OutT> cg; GlobalTensor<float> biasg;
    ag.SetGlobalBuffer((__gm__ T*)a); bg.SetGlobalBuffer((__gm__ T*)b); cg.SetGlobalBuffer((__gm__ OutT*)c);
    biasg.SetGlobalBuffer((__gm__ float*)bias);

    LocalTensor<T> a1 = qa1.AllocTensor<T>();
    DataCopy(a1, ag, Nd2NzParams(1, m, k, 0, k, mA, 1, 0));
    qa1.EnQue(a1);
    LocalTensor<T> b1 = qb1.AllocTensor<T>();
    if (TRANS_B) DataCopy(b1, bg, Nd2NzParams(1, n, k, 0, k, nA, 1, 0));
    else DataCopy(b1, bg, Nd2NzParams(1, k, n, 0, n, kA, 1, 0));
    qb1.EnQue(b1);

    a1 = qa1.DeQue<T>();
    LocalTensor<T> a2 = qa2.AllocTensor<T>();
    const uint32_t kBlocks = (k + C0 - 1) / C0;
    for (uint32_t i = 0; i < mA / 16; ++i)
        LoadData(a2[i * kBlocks * FRAC], a1[i * FRAC], LoadData2DParams(0, kBlocks, mA / 16, 0, 0, false, 0));
    qa2.EnQue(a2);
    qa1.FreeTensor(a1);

    b1 = qb1.DeQue<T>();
    LocalTensor<T> b2 = qb2.AllocTensor<T>();
    if (TRANS_B) {  // [n, k] in NZ already is the L0B layout: copy k column blocks of n/16 fractals
        for (uint32_t i = 0; i < kBlocks; ++i)
            LoadData(b2[i * (nA / 16) * FRAC], b1[i * nA * C0], LoadData2DParams(0, nA / 16, 1, 0, 0, false, 0));
    } else {        // [k, n] in NZ: transpose every 16x16 fractal on the way
        for (uint32_t i = 0; i < kA / 16; ++i)
            LoadData(b2[i * (nA / 16) * FRAC], b1[i * FRAC], LoadData2DParams(0, nA / 16, kA / 16, 0, 0, true, 0));
    }
    qb2.EnQue(b2);
    qb1.FreeTensor(b1);

    if (BIAS) {
        LocalTensor<float> bias1 = qbias1.AllocTensor<float>();
        DataCopy(bias1, biasg, DataCopyParams(1, nA * 4 / 32, 0, 0));
        qbias1.EnQue(bias1);
        bias1 = qbias1.DeQue<float>();
        LocalTensor<float> bias2 = qbias2.AllocTensor<float>();
        DataCopy(bias2, bias1, DataCopyParams(1, nA * 4 / 64, 0, 0));
        qbias2.EnQue(bias2);
        qbias1.FreeTensor(bias1);
    }

    a2 = qa2.DeQue<T>();
    b2 = qb2.DeQue<T>();
    LocalTensor<C> c1 = qc.AllocTensor<C>();
    MmadParams mp;
    mp.m = m; mp.n = n; mp.k = k;
    if (BIAS) {
        LocalTensor<float> bias2 = qbias2.DeQue<float>();
        Mmad(c1, a2, b2, bias2, mp);
        qbias2.FreeTensor(bias2);
    } else {
        Mmad(c1, a2, b2, mp);
    }
    qc.EnQue(c1);
    qa2.FreeTensor(a2);
    qb2.FreeTensor(b2);

    c1 = qc.DeQue<C>();
    FixpipeParamsV220 fp;
    fp.nSize = n; fp.mSize = m; fp.srcStride = mA; fp.dstStride = n; fp.reluEn = RELU;
    fp.quantPre = sizeof(OutT) == 2 ? QuantMode_t::F322F16 : QuantMode_t::NoQuant;
    Fixpipe<OutT, C, CFG_ROW_MAJOR>(cg, c1, fp);
    qc.FreeTensor(c1);
}

extern "C" __global__ __aicore__ void mm_f16(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c, uint32_t m, uint32_t n, uint32_t k) {
    Tile<half, float, float, false, false, false>(a, b, bias, c, m, n, k);
}
extern "C" __global__ __aicore__ void mm_f32_bt(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c, uint32_t m, uint32_t n, uint32_t k) {
    Tile<float, float, float, true, false, false>(a, b, bias, c, m, n, k);
}
extern "C" __global__ __aicore__ void mm_i8_bt(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c, uint32_t m, uint32_t n, uint32_t k) {
    Tile<int8_t, int32_t, int32_t, true, false, false>(a, b, bias, c, m, n, k);
}
extern "C" __global__ __aicore__ void mm_f16_bias_relu(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c, uint32_t m, uint32_t n, uint32_t k) {
    Tile<half, float, half, false, true, true>(a, b, bias, c, m, n, k);
}
'''


def _case(a, b, bias, out_dtype, m, n, k):
    args = [ArgSpec(kind="tensor", name=x) for x in ("a", "b", "bias", "c")] + [ArgSpec(kind="int", value=v) for v in (m, n, k)]
    return Case(inputs={"a": a, "b": b, "bias": bias}, outputs={"c": OutputSpec(shape=(m, n), dtype=out_dtype)}, block_dim=1,
                args=args)


@pytest.fixture(scope="module")
def cube_build(sim):
    b = sim.build(KernelProject(name="cube", kind="kernel_launch", files={"cube.cpp": CUBE}))
    assert b.ok, [d.render() for d in b.diagnostics]
    return b


def _run(sim, build, kernel, case):
    case.kernel = kernel
    r = sim.run(build, case)
    assert r.status == "ok", [d.render() for d in r.diagnostics]
    return r


@pytest.mark.parametrize("m,n,k", [(16, 16, 16), (30, 50, 70), (64, 48, 96)])
def test_mmad_f16_matches_numpy(sim, cube_build, m, n, k):
    rng = np.random.default_rng(m + n + k)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    r = _run(sim, cube_build, "mm_f16", _case(a, b, np.zeros(64, np.float32), "float32", m, n, k))
    np.testing.assert_allclose(r.outputs["c"], a.astype(np.float32) @ b.astype(np.float32), rtol=1e-5, atol=1e-4)
    cube = r.counters[0]["cube"][0]
    assert cube["api"] == "Mmad" and cube["macs"] == m * n * k


def test_mmad_f32_and_int8_with_transposed_b(sim, cube_build):
    rng = np.random.default_rng(3)
    m, n, k = 20, 40, 36
    a = rng.standard_normal((m, k)).astype(np.float32)
    bt = rng.standard_normal((n, k)).astype(np.float32)
    r = _run(sim, cube_build, "mm_f32_bt", _case(a, bt, np.zeros(64, np.float32), "float32", m, n, k))
    np.testing.assert_allclose(r.outputs["c"], a @ bt.T, rtol=1e-5, atol=1e-4)
    ai = rng.integers(-128, 128, (m, 64)).astype(np.int8)
    bi = rng.integers(-128, 128, (n, 64)).astype(np.int8)
    r = _run(sim, cube_build, "mm_i8_bt", _case(ai, bi, np.zeros(64, np.float32), "int32", m, n, 64))
    np.testing.assert_array_equal(r.outputs["c"], ai.astype(np.int32) @ bi.astype(np.int32).T)


def test_mmad_bias_table_and_fixpipe_relu_f16(sim, cube_build):
    rng = np.random.default_rng(4)
    m, n, k = 32, 48, 40
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    bias = rng.standard_normal(n).astype(np.float32)
    r = _run(sim, cube_build, "mm_f16_bias_relu", _case(a, b, bias, "float16", m, n, k))
    want = np.maximum(a.astype(np.float32) @ b.astype(np.float32) + bias, 0).astype(np.float16)
    np.testing.assert_allclose(r.outputs["c"].astype(np.float32), want.astype(np.float32), rtol=2e-3, atol=2e-3)
