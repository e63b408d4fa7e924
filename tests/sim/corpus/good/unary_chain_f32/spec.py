import numpy as np

from kernelwright.tools.sim.corpus import launch

DESCRIPTION = "fp32 unary chains: softplus (Exp, Adds, Ln), rsqrt(x^2+1) (Mul, Adds, Rsqrt), 1/(1+|x|) (Abs, Reciprocal)"
TOLERANCE = {"float32": (1e-5, 1e-6)}


def cases(rng):
    out = []
    for blocks, per_core, tile in ((4, 1024, 256), (1, 192, 64)):
        n = blocks * per_core
        x = rng.uniform(-8, 8, n).astype(np.float32)
        outs = {k: ((n,), "float32") for k in ("sp", "rs", "rc")}
        out.append(launch(blocks, ["x", "sp", "rs", "rc", n, tile], {"x": x}, outs))
    return out


def reference(case):
    x = case.inputs["x"].astype(np.float64)
    return {"sp": np.log1p(np.exp(x)).astype(np.float32), "rs": (1 / np.sqrt(x * x + 1)).astype(np.float32),
            "rc": (1 / (1 + np.abs(x))).astype(np.float32)}
