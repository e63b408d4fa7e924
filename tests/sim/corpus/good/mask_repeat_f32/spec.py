import numpy as np

from kernelwright.tools.sim.corpus import launch

DESCRIPTION = "level-0 forms: Add with mask+repeatTimes+BinaryRepeatParams and a tail mask, Muls in counter mode, Relu with a bit mask"


def cases(rng):
    out = []
    for blocks, per_core, tile in ((4, 800, 200), (2, 16016, 8008), (3, 64, 64)):
        n = blocks * per_core
        x = rng.standard_normal(n).astype(np.float32)
        y = rng.standard_normal(n).astype(np.float32)
        out.append(launch(blocks, ["x", "y", "z", n, tile, 0.5], {"x": x, "y": y}, {"z": ((n,), "float32")},
                          label=f"tile={tile}"))
    return out


def reference(case):
    z = (case.inputs["x"] + case.inputs["y"]) * np.float32(0.5)
    tile = case.args[4].value
    lane = (np.arange(z.size) % tile) % 64
    return {"z": np.where(lane % 2 == 0, np.maximum(z, 0), z).astype(np.float32)}
