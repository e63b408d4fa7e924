import numpy as np

from kernelwright.tools.sim.corpus import launch

DESCRIPTION = "fp16 tensor-scalar chain Muls/Adds/LeakyRelu/Maxs/Mins, even multi-core split, double buffering"
PARAMS = (1.5, -0.25, 0.1, -1.0, 2.0)


def cases(rng):
    out = []
    for blocks, per_core, tile in ((8, 2048, 256), (2, 384, 128), (5, 128, 128)):
        n = blocks * per_core
        x = rng.uniform(-3, 3, n).astype(np.float16)
        out.append(launch(blocks, ["x", "y", n, tile, *PARAMS], {"x": x}, {"y": ((n,), "float16")}))
    return out


def reference(case):
    scale, bias, slope, lo, hi = (np.float16(v) for v in PARAMS)
    y = case.inputs["x"] * scale + bias
    y = np.where(y >= 0, y, y * slope)
    return {"y": np.minimum(np.maximum(y, lo), hi).astype(np.float16)}
