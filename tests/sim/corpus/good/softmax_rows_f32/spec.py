import numpy as np

from kernelwright.tools.sim.corpus import launch

DESCRIPTION = "row softmax in fp32 by hand (ReduceMax, Adds, Exp, ReduceSum, Muls), odd row lengths via DataCopyPad"
TOLERANCE = {"float32": (1e-5, 1e-6)}


def cases(rng):
    out = []
    for rows, cols, blocks, tile in ((20, 100, 4, 4), (7, 13, 3, 2), (48, 512, 8, 3)):
        x = rng.normal(0, 3, (rows, cols)).astype(np.float32)
        out.append(launch(blocks, ["x", "y", rows, cols, tile], {"x": x}, {"y": ((rows, cols), "float32")}))
    return out


def reference(case):
    x = case.inputs["x"].astype(np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return {"y": (e / e.sum(axis=1, keepdims=True)).astype(np.float32)}
