import numpy as np

from kernelwright.tools.toolchain import Case

DESCRIPTION = ("msopgen MatmulLeakyrelu: Matmul API Iterate + GetTensorC into UB, LeakyReLU on the vector core, "
               "DataCopyPad out; fp16 inputs, fp32 bias and output, tail blocks in M and N")
TOLERANCE = {"float32": (1e-4, 1e-3)}


def cases(rng):
    out = []
    for (m, n, k), alpha in (((256, 320, 64), 0.1), ((200, 100, 40), 0.2)):
        inputs = {"x": rng.uniform(-1, 1, (m, k)).astype(np.float16), "w": rng.uniform(-1, 1, (k, n)).astype(np.float16),
                  "bias": rng.uniform(-1, 1, n).astype(np.float32)}
        out.append(Case(inputs=inputs, attrs={"alpha": alpha}, label=f"{m}x{n}x{k}"))
    return out


def reference(case):
    y = case.inputs["x"].astype(np.float64) @ case.inputs["w"].astype(np.float64) + case.inputs["bias"]
    return {"y": np.where(y >= 0, y, y * case.attrs["alpha"]).astype(np.float32)}
