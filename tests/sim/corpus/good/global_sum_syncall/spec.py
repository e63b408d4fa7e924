import numpy as np

from kernelwright.tools.sim.corpus import launch
from kernelwright.tools.toolchain import ArgSpec

DESCRIPTION = "two-phase global fp32 sum: per-core partials into a GM workspace, SyncAll, core 0 reduces them"
TOLERANCE = {"float32": (1e-5, 1e-3)}


def cases(rng):
    out = []
    for n, blocks, tile in ((20000, 8, 1024), (1001, 5, 256), (64, 2, 64)):
        x = rng.uniform(-1, 1, n).astype(np.float32)
        ws = ArgSpec(kind="workspace", bytes=blocks * 32)
        out.append(launch(blocks, ["x", "y", ws, n, tile], {"x": x}, {"y": ((1,), "float32")}))
    return out


def reference(case):
    return {"y": np.array([case.inputs["x"].astype(np.float64).sum()], dtype=np.float32)}
