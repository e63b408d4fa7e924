import numpy as np

from kernelwright.tools.sim.corpus import launch

DESCRIPTION = "DataCopyPad with a GM-side row gap (column window) and zero right padding in, compact rows out; fp16"


def cases(rng):
    out = []
    for rows, width, c0, w, blocks, tile in ((30, 50, 3, 21, 4, 4), (9, 16, 5, 11, 2, 8), (16, 300, 100, 130, 3, 2)):
        x = rng.uniform(-4, 4, (rows, width)).astype(np.float16)
        out.append(launch(blocks, ["x", "y", rows, width, c0, w, tile], {"x": x}, {"y": ((rows, w), "float16")},
                          label=f"window {c0}:{c0 + w}"))
    return out


def reference(case):
    c0, w = case.args[4].value, case.args[5].value
    return {"y": (np.abs(case.inputs["x"][:, c0:c0 + w]) * np.float16(2)).astype(np.float16)}
