import numpy as np

from kernelwright.tools.toolchain import Case

DESCRIPTION = "msopgen LayerNormCustom (x, gamma, beta, epsilon attr), fp32/fp16, per-row statistics in fp32"
TOLERANCE = {"float32": (1e-4, 1e-4), "float16": (4e-3, 4e-3)}


def cases(rng):
    out = []
    for shape, dtype, eps in (((2, 16, 100), np.float32, 1e-5), ((37, 64), np.float16, 1e-3), ((5, 1000), np.float32, None)):
        h = shape[-1]
        inputs = {"x": rng.normal(1, 3, shape).astype(dtype), "gamma": rng.uniform(0.5, 1.5, h).astype(dtype),
                  "beta": rng.uniform(-1, 1, h).astype(dtype)}
        attrs = {} if eps is None else {"epsilon": eps}
        out.append(Case(inputs=inputs, attrs=attrs, label=f"{np.dtype(dtype).name}{list(shape)}"))
    return out


def reference(case):
    x = case.inputs["x"].astype(np.float64)
    eps = case.attrs.get("epsilon", 1e-5)
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    y = (x - mean) / np.sqrt(var + eps) * case.inputs["gamma"].astype(np.float64) + case.inputs["beta"].astype(np.float64)
    return {"y": y.astype(case.inputs["x"].dtype)}
