import numpy as np

from kernelwright.tools.sim.corpus import launch

DESCRIPTION = "int32 ShiftLeft/Add/Maxs with int32 scalars, whole tiles split unevenly over cores"


def cases(rng):
    out = []
    for tiles, tile, blocks, shift, floor in ((13, 64, 4, 2, -100), (5, 8, 2, 3, 0)):
        n = tiles * tile
        x = rng.integers(-1000, 1000, n).astype(np.int32)
        y = rng.integers(-1000, 1000, n).astype(np.int32)
        out.append(launch(blocks, ["x", "y", "z", tiles, tile, shift, floor], {"x": x, "y": y}, {"z": ((n,), "int32")}))
    return out


def reference(case):
    shift, floor = case.args[5].value, case.args[6].value
    return {"z": np.maximum((case.inputs["x"] << shift) + case.inputs["y"], floor).astype(np.int32)}
