import numpy as np

from kernelwright.tools.sim.corpus import launch

DESCRIPTION = "1-D max pooling over L of channels-last [N, L, C] fp32 (window k, stride s) with Max on channel rows"


def cases(rng):
    out = []
    for n, length, ch, k, s, blocks in ((2, 17, 16, 3, 2, 4), (3, 32, 64, 2, 2, 8), (1, 9, 8, 4, 1, 3)):
        x = rng.standard_normal((n, length, ch)).astype(np.float32)
        lo = (length - k) // s + 1
        out.append(launch(blocks, ["x", "y", n, length, ch, k, s], {"x": x}, {"y": ((n, lo, ch), "float32")},
                          label=f"k={k} s={s}"))
    return out


def reference(case):
    x = case.inputs["x"]
    k, s = case.args[5].value, case.args[6].value
    lo = (x.shape[1] - k) // s + 1
    return {"y": np.stack([x[:, i * s:i * s + k].max(axis=1) for i in range(lo)], axis=1)}
