import numpy as np

from kernelwright.tools.sim.corpus import launch

DESCRIPTION = "fp16 z = x*y + x on rows of odd length: multi-row DataCopyPad bursts in and out, uneven row split"


def cases(rng):
    out = []
    for rows, cols, blocks, tile in ((37, 45, 4, 8), (10, 7, 3, 4), (64, 200, 8, 3)):
        x = rng.uniform(-2, 2, (rows, cols)).astype(np.float16)
        y = rng.uniform(-2, 2, (rows, cols)).astype(np.float16)
        out.append(launch(blocks, ["x", "y", "z", rows, cols, tile], {"x": x, "y": y}, {"z": ((rows, cols), "float16")}))
    return out


def reference(case):
    x, y = case.inputs["x"], case.inputs["y"]
    return {"z": (x * y) + x}   # two fp16 roundings, as the kernel does
