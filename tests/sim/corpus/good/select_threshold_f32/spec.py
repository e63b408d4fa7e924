import numpy as np

from kernelwright.tools.sim.corpus import launch

DESCRIPTION = "threshold with CompareScalar (GT, bit mask) and Select (VSEL_TENSOR_SCALAR_MODE) on fp32"


def cases(rng):
    out = []
    for blocks, per_core, tile, thr, fill in ((4, 2048, 512, 0.25, -1.0), (2, 128, 64, 0.0, 0.0)):
        n = blocks * per_core
        x = rng.standard_normal(n).astype(np.float32)
        out.append(launch(blocks, ["x", "y", n, tile, thr, fill], {"x": x}, {"y": ((n,), "float32")}))
    return out


def reference(case):
    x = case.inputs["x"]
    thr, fill = np.float32(case.args[4].value), np.float32(case.args[5].value)
    return {"y": np.where(x > thr, x, fill).astype(np.float32)}
