import numpy as np

from kernelwright.tools.sim.corpus import launch

DESCRIPTION = "TBuf-only pipeline with explicit SetFlag/WaitFlag (MTE2_V, V_MTE3, V_MTE2, MTE3_V) and FetchEventID"


def cases(rng):
    out = []
    for blocks, per_core, tile in ((4, 2048, 512), (3, 96, 32)):
        n = blocks * per_core
        x = rng.uniform(-100, 100, n).astype(np.float32)
        out.append(launch(blocks, ["x", "y", n, tile], {"x": x}, {"y": ((n,), "float32")}))
    return out


def reference(case):
    return {"y": (np.sqrt(np.abs(case.inputs["x"])) + np.float32(1)).astype(np.float32)}
