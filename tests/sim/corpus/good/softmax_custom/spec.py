import numpy as np

from kernelwright.tools.toolchain import Case

DESCRIPTION = "msopgen SoftmaxCustom over the last axis, fp32/fp16 (fp16 widened to fp32), tile rows from the UB size"
TOLERANCE = {"float32": (1e-5, 1e-6)}


def cases(rng):
    out = []
    for shape, dtype in (((4, 30, 77), np.float32), ((100, 256), np.float16), ((3, 5), np.float32), ((70, 1000), np.float32)):
        out.append(Case(inputs={"x": rng.normal(0, 2, shape).astype(dtype)}, label=f"{np.dtype(dtype).name}{list(shape)}"))
    return out


def reference(case):
    x = case.inputs["x"]
    e = np.exp(x.astype(np.float64) - x.max(axis=-1, keepdims=True))
    return {"y": (e / e.sum(axis=-1, keepdims=True)).astype(np.float32).astype(x.dtype)}
