import numpy as np

from kernelwright.tools.sim.corpus import launch

DESCRIPTION = "GELU (tanh form) in fp32 with Mul/Muls/Adds/Exp/Div, even split, double buffering"
TOLERANCE = {"float32": (1e-5, 1e-5)}


def cases(rng):
    out = []
    for blocks, per_core, tile in ((8, 1024, 256), (3, 64, 64)):
        n = blocks * per_core
        x = rng.uniform(-6, 6, n).astype(np.float32)
        out.append(launch(blocks, ["x", "y", n, tile], {"x": x}, {"y": ((n,), "float32")}))
    return out


def reference(case):
    x = case.inputs["x"].astype(np.float64)
    y = 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))
    return {"y": y.astype(np.float32)}
