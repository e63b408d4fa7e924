import numpy as np
from ml_dtypes import bfloat16

from kernelwright.tools.sim.corpus import launch

DESCRIPTION = "bf16 z = x*y + x computed in fp32 via Cast (CAST_NONE in, CAST_RINT out), uneven split, padded tails"


def cases(rng):
    out = []
    for n, blocks, tile in ((777, 5, 128), (4096, 8, 512), (31, 2, 64)):
        x = rng.standard_normal(n).astype(bfloat16)
        y = rng.standard_normal(n).astype(bfloat16)
        out.append(launch(blocks, ["x", "y", "z", n, tile], {"x": x, "y": y}, {"z": ((n,), "bfloat16")}))
    return out


def reference(case):
    x = case.inputs["x"].astype(np.float32)
    y = case.inputs["y"].astype(np.float32)
    return {"z": (x * y + x).astype(bfloat16)}
