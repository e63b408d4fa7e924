import numpy as np

from kernelwright.tools.sim.corpus import launch

DESCRIPTION = "per-row max and sum of fp16 rows (<= 128 wide) with WholeReduceMax (ORDER_ONLY_VALUE) and WholeReduceSum"
TOLERANCE = {"sm": (1e-2, 2e-2)}


def cases(rng):
    out = []
    for rows, cols, blocks, tile in ((100, 77, 4, 16), (9, 128, 2, 4), (40, 16, 3, 40)):
        x = rng.uniform(-1, 1, (rows, cols)).astype(np.float16)
        out.append(launch(blocks, ["x", "mx", "sm", rows, cols, tile], {"x": x},
                          {"mx": ((rows,), "float16"), "sm": ((rows,), "float16")}))
    return out


def reference(case):
    x = case.inputs["x"]
    return {"mx": x.max(axis=1), "sm": x.astype(np.float64).sum(axis=1).astype(np.float16)}
