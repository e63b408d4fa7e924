import numpy as np
from ml_dtypes import bfloat16

from kernelwright.tools.toolchain import Case

DESCRIPTION = "msopgen RmsNormCustom (x, gamma, epsilon attr), fp16/fp32/bf16, multi-row DataCopyPad tiles"
TOLERANCE = {"float32": (1e-5, 1e-5)}


def cases(rng):
    out = []
    for shape, dtype in (((4, 9, 96), np.float16), ((50, 333), np.float32), ((6, 40), bfloat16)):
        x = rng.normal(0, 2, shape).astype(dtype)
        gamma = rng.uniform(0.5, 1.5, shape[-1]).astype(dtype)
        out.append(Case(inputs={"x": x, "gamma": gamma}, attrs={"epsilon": 1e-5}, label=f"{np.dtype(dtype).name}{list(shape)}"))
    return out


def reference(case):
    x = case.inputs["x"].astype(np.float64)
    rms = np.sqrt((x * x).mean(axis=-1, keepdims=True) + case.attrs["epsilon"])
    y = x / rms * case.inputs["gamma"].astype(np.float64)
    return {"y": y.astype(np.float32).astype(case.inputs["x"].dtype)}
