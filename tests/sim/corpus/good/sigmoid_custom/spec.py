import numpy as np
from ml_dtypes import bfloat16

from kernelwright.tools.toolchain import Case

DESCRIPTION = "msopgen SigmoidCustom: fp16/fp32/bf16 OpDef, compute in fp32 via Cast, whole tiles split unevenly"
TOLERANCE = {"float32": (1e-5, 1e-6)}


def cases(rng):
    out = []
    for n, dtype in ((50_000, np.float16), (3000, np.float32), (4097, bfloat16), (10, np.float32)):
        out.append(Case(inputs={"x": rng.uniform(-8, 8, n).astype(dtype)}, label=f"{np.dtype(dtype).name}[{n}]"))
    return out


def reference(case):
    x = case.inputs["x"]
    y = 1.0 / (1.0 + np.exp(-x.astype(np.float64)))
    return {"y": y.astype(np.float32).astype(x.dtype)}
