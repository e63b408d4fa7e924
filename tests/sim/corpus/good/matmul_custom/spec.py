import numpy as np

from kernelwright.tools.toolchain import Case

DESCRIPTION = ("msopgen MatmulCustom: Matmul API (IterateAll) with host MultiCoreMatmulTiling, fp16 and fp32 inputs, "
               "fp32 output, optional bias and transposes, tails in M, N and K")
TOLERANCE = {"float32": (1e-4, 1e-3)}


def cases(rng):
    out = []
    for (m, n, k), dtype, ta, tb, bias in (((64, 96, 48), np.float16, False, False, False),
                                           ((100, 70, 45), np.float16, False, True, True),
                                           ((33, 130, 200), np.float32, True, False, True),
                                           ((300, 40, 16), np.float32, False, False, False)):
        a = rng.uniform(-1, 1, (k, m) if ta else (m, k)).astype(dtype)
        b = rng.uniform(-1, 1, (n, k) if tb else (k, n)).astype(dtype)
        inputs = {"a": a, "b": b, "bias": rng.uniform(-1, 1, n).astype(np.float32)}
        out.append(Case(inputs=inputs, attrs={"trans_a": ta, "trans_b": tb, "use_bias": bias},
                        label=f"{np.dtype(dtype).name} {m}x{n}x{k} ta={ta} tb={tb} bias={bias}"))
    return out


def reference(case):
    a = case.inputs["a"].astype(np.float64)
    b = case.inputs["b"].astype(np.float64)
    a = a.T if case.attrs["trans_a"] else a
    b = b.T if case.attrs["trans_b"] else b
    c = a @ b + (case.inputs["bias"].astype(np.float64) if case.attrs["use_bias"] else 0.0)
    return {"c": c.astype(np.float32)}
