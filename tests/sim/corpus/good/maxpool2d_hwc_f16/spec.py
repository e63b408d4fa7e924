import numpy as np

from kernelwright.tools.sim.corpus import launch

DESCRIPTION = "2-D max pooling of channels-last [H, W, C] fp16 (kh x kw window, sh x sw stride), rows split over cores"


def cases(rng):
    out = []
    for h, w, c, kh, kw, sh, sw, blocks in ((9, 10, 32, 3, 3, 2, 2, 3), (8, 8, 16, 2, 2, 2, 2, 4), (5, 7, 48, 2, 3, 1, 2, 2)):
        x = rng.standard_normal((h, w, c)).astype(np.float16)
        oh, ow = (h - kh) // sh + 1, (w - kw) // sw + 1
        out.append(launch(blocks, ["x", "y", h, w, c, kh, kw, sh, sw], {"x": x}, {"y": ((oh, ow, c), "float16")},
                          label=f"{kh}x{kw}/{sh}x{sw}"))
    return out


def reference(case):
    x = case.inputs["x"]
    kh, kw, sh, sw = (a.value for a in case.args[5:9])
    oh, ow = (x.shape[0] - kh) // sh + 1, (x.shape[1] - kw) // sw + 1
    y = np.empty((oh, ow, x.shape[2]), dtype=np.float16)
    for i in range(oh):
        for j in range(ow):
            y[i, j] = x[i * sh:i * sh + kh, j * sw:j * sw + kw].max(axis=(0, 1))
    return {"y": y}
