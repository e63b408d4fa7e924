"""Emulation speed of cube work: a C = A x B GEMM written with the raw cube instructions (GM -> L1
with ND->NZ, LoadData into L0A/L0B, Mmad accumulating in L0C over K, Fixpipe back to GM), fp16 in,
fp32 out, on the `sim` backend. Prints the build and run times and the multiply-adds per second,
and checks the result against NumPy.

    python -m kernelwright.evals.cube_speed [--m 1024 --n 1024 --k 8192] [--blocks 8] [--dsl]

The default is the issue's yardstick: a 1024 x 1024 x 8192 fp16 MMAD sequence (4096 Mmad
instructions of 128 x 256 x 64). With --dsl the same product runs as the DSL's matmul example
(prompts/examples/matmul/matmul.dsl.py, the Matmul API on the cube cores) lowered to an msopgen
project. Runs in a temporary KERNELWRIGHT_HOME.
"""
from __future__ import annotations

import argparse
import os
import resource
import tempfile
import time
from pathlib import Path

import numpy as np

# One block walks its share of the 128 x 256 output tiles; K in steps of 64.
GEMM = r'''
#include "kernel_operator.h"
using namespace AscendC;

constexpr uint32_t BM = 128, BN = 256, BK = 64, FRAC = 256;   // FRAC: half elements per 512-byte fractal

extern "C" __global__ __aicore__ void gemm(GM_ADDR a, GM_ADDR b, GM_ADDR c, uint32_t M, uint32_t N, uint32_t K) {
    TPipe pipe;
    TQue<QuePosition::A1, 1> qa1; TQue<QuePosition::B1, 1> qb1;
    TQue<QuePosition::A2, 1> qa2; TQue<QuePosition::B2, 1> qb2; TQue<QuePosition::CO1, 1> qc;
    pipe.InitBuffer(qa1, 1, BM * BK * sizeof(half));
    pipe.InitBuffer(qb1, 1, BK * BN * sizeof(half));
    pipe.InitBuffer(qa2, 1, BM * BK * sizeof(half));
    pipe.InitBuffer(qb2, 1, BK * BN * sizeof(half));
    pipe.InitBuffer(qc, 1, BM * BN * sizeof(float));
    GlobalTensor<half> ag, bg; GlobalTensor<float> cg;
    ag.SetGlobalBuffer((__gm__ half*)a); bg.SetGlobalBuffer((__gm__ half*)b); cg.SetGlobalBuffer((__gm__ float*)c);
    const uint32_t tilesN = N / BN, tiles = (M / BM) * tilesN;
    for (uint32_t t = GetBlockIdx(); t < tiles; t += GetBlockNum()) {
        const uint32_t m0 = t / tilesN * BM, n0 = t % tilesN * BN;
        LocalTensor<float> c1 = qc.AllocTensor<float>();
        for (uint32_t k0 = 0; k0 < K; k0 += BK) {
            LocalTensor<half> a1 = qa1.AllocTensor<half>();
            DataCopy(a1, ag[m0 * K + k0], Nd2NzParams(1, BM, BK, 0, K, BM, 1, 0));
            qa1.EnQue(a1);
            LocalTensor<half> b1 = qb1.AllocTensor<half>();
            DataCopy(b1, bg[k0 * N + n0], Nd2NzParams(1, BK, BN, 0, N, BK, 1, 0));
            qb1.EnQue(b1);
            a1 = qa1.DeQue<half>();
            LocalTensor<half> a2 = qa2.AllocTensor<half>();
            for (uint32_t i = 0; i < BM / 16; ++i)
                LoadData(a2[i * (BK / 16) * FRAC], a1[i * FRAC], LoadData2DParams(0, BK / 16, BM / 16, 0, 0, false, 0));
            qa2.EnQue(a2);
            qa1.FreeTensor(a1);
            b1 = qb1.DeQue<half>();
            LocalTensor<half> b2 = qb2.AllocTensor<half>();
            for (uint32_t i = 0; i < BK / 16; ++i)
                LoadData(b2[i * (BN / 16) * FRAC], b1[i * FRAC], LoadData2DParams(0, BN / 16, BK / 16, 0, 0, true, 0));
            qb2.EnQue(b2);
            qb1.FreeTensor(b1);
            a2 = qa2.DeQue<half>();
            b2 = qb2.DeQue<half>();
            MmadParams mp;
            mp.m = BM; mp.n = BN; mp.k = BK; mp.cmatrixInitVal = k0 == 0;
            Mmad(c1, a2, b2, mp);
            qa2.FreeTensor(a2);
            qb2.FreeTensor(b2);
        }
        qc.EnQue(c1);
        c1 = qc.DeQue<float>();
        FixpipeParamsV220 fp;
        fp.nSize = BN; fp.mSize = BM; fp.srcStride = BM; fp.dstStride = N;
        Fixpipe<float, float, CFG_ROW_MAJOR>(cg[m0 * N + n0], c1, fp);
        qc.FreeTensor(c1);
    }
}
'''


def _children_cpu() -> float:
    """CPU seconds of finished child processes (the emulation's blocks): wall time on a shared machine says little."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--m", type=int, default=1024)
    ap.add_argument("--n", type=int, default=1024)
    ap.add_argument("--k", type=int, default=8192)
    ap.add_argument("--blocks", type=int, default=8)
    ap.add_argument("--dsl", action="store_true", help="run the DSL matmul example instead of raw instructions")
    args = ap.parse_args(argv)
    m, n, k = args.m, args.n, args.k
    if not args.dsl and (m % 128 or n % 256 or k % 64):
        ap.error("m must be a multiple of 128, n of 256 and k of 64")
    with tempfile.TemporaryDirectory(prefix="kw-cube-speed-") as home:
        os.environ["KERNELWRIGHT_HOME"] = home
        from kernelwright.tools.project import KernelProject
        from kernelwright.tools.sim.toolchain import SimToolchain
        from kernelwright.tools.toolchain import ArgSpec, Case, OutputSpec

        tc = SimToolchain()
        t0 = time.perf_counter()
        if args.dsl:
            return _dsl(tc, m, n, k)
        build = tc.build(KernelProject(name="gemm", kind="kernel_launch", files={"gemm.cpp": GEMM}))
        built = time.perf_counter()
        if not build.ok:
            print("\n".join(d.render() for d in build.diagnostics))
            return 1
        rng = np.random.default_rng(0)
        a = rng.uniform(-1, 1, (m, k)).astype(np.float16)
        b = rng.uniform(-1, 1, (k, n)).astype(np.float16)
        case = Case(kernel="gemm", inputs={"a": a, "b": b}, outputs={"c": OutputSpec(shape=(m, n), dtype="float32")},
                    block_dim=args.blocks, timeout_s=3600,
                    args=[ArgSpec(kind="tensor", name=x) for x in ("a", "b", "c")] +
                    [ArgSpec(kind="int", value=v) for v in (m, n, k)])
        t1, cpu1 = time.perf_counter(), _children_cpu()
        run = tc.run(build, case)
        t2, cpu2 = time.perf_counter(), _children_cpu()
        if run.status != "ok":
            print(run.status, "\n".join(d.render() for d in run.diagnostics))
            return 1
        rows = rng.choice(m, size=min(m, 32), replace=False)
        want = a[rows].astype(np.float64) @ b.astype(np.float64)
        err = float(np.max(np.abs(run.outputs["c"][rows] - want)))
        macs = m * n * k
        mmads = sum(c["instructions"] for blk in run.counters for c in blk.get("cube", []) if c["api"] == "Mmad")
        print(f"{m} x {n} x {k} fp16 -> fp32, {mmads} Mmad instructions over {args.blocks} blocks: build {built - t0:.1f} s, "
              f"run {t2 - t1:.1f} s wall, {cpu2 - cpu1:.1f} s CPU ({macs / (cpu2 - cpu1) / 1e9:.2f} G multiply-adds per CPU second); "
              f"max |error| on 32 rows {err:.2e}")
        return 0 if err < 1e-2 * np.sqrt(k) else 1


def _dsl(tc, m: int, n: int, k: int) -> int:
    from kernelwright.tools.dsl.lower import lower
    from kernelwright.tools.dsl.parse_program import parse_file
    from kernelwright.tools.toolchain import Case
    program = Path(__file__).resolve().parents[1] / "prompts" / "examples" / "matmul" / "matmul.dsl.py"
    t0 = time.perf_counter()
    build = tc.build(lower(parse_file(program), "CubeMatmul"))
    built = time.perf_counter()
    if not build.ok:
        print("\n".join(d.render() for d in build.diagnostics))
        return 1
    rng = np.random.default_rng(0)
    a = rng.uniform(-1, 1, (m, k)).astype(np.float16)
    b = rng.uniform(-1, 1, (k, n)).astype(np.float16)
    t1, cpu1 = time.perf_counter(), _children_cpu()
    run = tc.run(build, Case(inputs={"a": a, "b": b}, timeout_s=3600))
    t2, cpu2 = time.perf_counter(), _children_cpu()
    if run.status != "ok":
        print(run.status, "\n".join(d.render() for d in run.diagnostics))
        return 1
    rows = rng.choice(m, size=min(m, 32), replace=False)
    err = float(np.max(np.abs(run.outputs["c"][rows].astype(np.float64) - a[rows].astype(np.float64) @ b.astype(np.float64))))
    macs = sum(c["macs"] for blk in run.counters for c in blk.get("cube", []) if c["api"] == "Mmad")
    print(f"DSL matmul {m} x {n} x {k} fp16 (Matmul API, {run.block_dim} cube blocks, {macs} multiply-adds counted): "
          f"build {built - t0:.1f} s, run {t2 - t1:.1f} s wall, {cpu2 - cpu1:.1f} s CPU; max |error| on 32 rows {err:.2e} "
          "(fp16 output)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
